/**
 * One row per (window, occurrence start, phase), claimed with a lease (store/leases.ts) that makes each
 * freeze start and end happen once across replicas, as the digests' claims do. The running replica keeps
 * the lease renewed (each tick); one that dies stops renewing and, once the lease has passed, another
 * takes it over by compare-and-set and continues from what the row says (the state read before the
 * change, so a change that went through just before the crash is recognised instead of repeated).
 *
 * A failed attempt leaves the row `retrying` and releases the lease until the next attempt is due; any
 * replica takes it then, by the same compare-and-set. Every write is fenced by the lease, in one
 * transaction with it, so a replica that lost its claim finds out at its next write.
 */
import { LEGACY_LEASE_UNTIL, SqlLeases } from '../store/leases.ts';
import type { Db, DbExecutor, Row } from '../store/types.ts';
import { targetKey } from './repository.ts';
import type { Occurrence } from './schedule.ts';
import type { FreezeWindow } from './types.ts';

export type Phase = 'start' | 'end';

export interface ClaimKey {
  windowId: string;
  occurrenceStart: number;
  phase: Phase;
}

export interface ClaimRecord extends ClaimKey {
  workspaceId: string;
  target: string;
  occurrenceEnd: number;
  /** The window as it was when claimed: a removed window still ends. */
  window: FreezeWindow;
  status: 'running' | 'retrying' | 'done' | 'failed';
  outcome?: string;
  owner: string;
  leaseUntil: number;
  /** The lease's fence as read (undefined for a finished claim from before migration 009). */
  fence?: number;
  attempts: number;
  beforeState?: string;
  setState?: string;
  detail?: string;
  claimedAt: number;
  finishedAt?: number;
}

/** The lease of each (window, occurrence, phase), in the store's lease table (store/leases.ts). */
const PHASE_LEASE = 'freeze.phase';
const phaseLease = (k: ClaimKey) => ({
  kind: PHASE_LEASE,
  key: `${k.windowId}|${k.occurrenceStart}|${k.phase}`,
});
function keyOfLease(leaseKey: string): ClaimKey | undefined {
  const [windowId, start, phase] = leaseKey.split('|');
  return windowId && (phase === 'start' || phase === 'end') && Number.isFinite(Number(start))
    ? { windowId, occurrenceStart: Number(start), phase }
    : undefined;
}
// The row's `owner` and `attempts` stay its record of who works (or worked) on it and on which attempt;
// the lease decides who may. Its lease_until is LEGACY_LEASE_UNTIL (see store/leases.ts).

const SELECT = `SELECT c.window_id, c.occurrence_start, c.phase, c.workspace_id, c.target, c.occurrence_end,
  c.window_json, c.status, c.outcome, COALESCE(l.holder, c.owner) AS owner,
  COALESCE(l.expires_at, c.lease_until) AS lease_until, COALESCE(l.attempts, c.attempts) AS attempts, l.fence,
  c.before_state, c.set_state, c.detail, c.claimed_at, c.finished_at
  FROM freeze_claims c
  LEFT JOIN leases l ON l.kind = '${PHASE_LEASE}'
    AND l.lease_key = c.window_id || '|' || c.occurrence_start || '|' || c.phase`;

const KEY_WHERE = 'window_id = $1 AND occurrence_start = $2 AND phase = $3';
const keyParams = (k: ClaimKey) => [k.windowId, k.occurrenceStart, k.phase];

function toRecord(r: Row): ClaimRecord {
  const rec: ClaimRecord = {
    windowId: String(r['window_id']),
    occurrenceStart: Number(r['occurrence_start']),
    phase: String(r['phase']) as Phase,
    workspaceId: String(r['workspace_id']),
    target: String(r['target']),
    occurrenceEnd: Number(r['occurrence_end']),
    window: JSON.parse(String(r['window_json'])) as FreezeWindow,
    status: String(r['status']) as ClaimRecord['status'],
    owner: String(r['owner']),
    leaseUntil: Number(r['lease_until']),
    attempts: Number(r['attempts']),
    claimedAt: Number(r['claimed_at']),
  };
  if (r['fence'] !== null && r['fence'] !== undefined) rec.fence = Number(r['fence']);
  for (const [col, field] of [
    ['outcome', 'outcome'],
    ['before_state', 'beforeState'],
    ['set_state', 'setState'],
    ['detail', 'detail'],
  ] as const) {
    if (typeof r[col] === 'string') rec[field] = r[col];
  }
  if (r['finished_at'] !== null && r['finished_at'] !== undefined) rec.finishedAt = Number(r['finished_at']);
  return rec;
}

export class FreezeClaims {
  readonly #db: Db;
  readonly #leases: SqlLeases;
  constructor(db: Db) {
    this.#db = db;
    this.#leases = new SqlLeases(db);
  }

  /** The new running record when this replica now owns (window, occurrence, phase); undefined when taken. */
  async claim(
    window: FreezeWindow,
    occurrence: Occurrence,
    phase: Phase,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<ClaimRecord | undefined> {
    const key: ClaimKey = { windowId: window.id, occurrenceStart: occurrence.start, phase };
    const made = await this.#leases.together(
      async (tx) => {
        const c = await this.#leases.claim(
          {
            ...phaseLease(key),
            workspaceId: window.workspaceId,
            holder: owner,
            ttlMs: leaseMs,
            now,
            mode: 'new',
          },
          tx,
        );
        return c.acquired;
      },
      // Refused when the row exists without a lease: claimed before migration 009.
      (tx) =>
        tx.execute(
          `INSERT INTO freeze_claims (window_id, occurrence_start, phase, workspace_id, target, occurrence_end, window_json, status, owner, lease_until, attempts, claimed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8, $9, 1, $10)
           ON CONFLICT (window_id, occurrence_start, phase) DO NOTHING`,
          [
            window.id,
            occurrence.start,
            phase,
            window.workspaceId,
            targetKey(window.target),
            occurrence.end,
            JSON.stringify(window),
            owner,
            LEGACY_LEASE_UNTIL,
            now,
          ],
        ),
    );
    return made ? this.get(key) : undefined;
  }

  async get(key: ClaimKey): Promise<ClaimRecord | undefined> {
    const rows = await this.#db.query(
      `${SELECT} WHERE c.window_id = $1 AND c.occurrence_start = $2 AND c.phase = $3`,
      keyParams(key),
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Claims of the occurrences open at or after `since` (and any still in progress): what a tick compares with. */
  async recent(since: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `${SELECT} WHERE c.occurrence_end >= $1 OR c.status IN ('running', 'retrying')`,
      [since],
    );
    return rows.map(toRecord);
  }

  /** Start claims of one queue whose occurrence had not ended by `since`, oldest finished first. */
  async startsOnTarget(workspaceId: string, target: string, since: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `${SELECT}
       WHERE c.workspace_id = $1 AND c.target = $2 AND c.phase = 'start' AND c.occurrence_end >= $3
       ORDER BY c.finished_at, c.claimed_at`,
      [workspaceId, target, since],
    );
    return rows.map(toRecord);
  }

  /** Finished starts whose occurrence is over and whose end nobody has claimed (missed ends included). */
  async endsDue(now: number, limit: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `${SELECT}
       WHERE c.phase = 'start' AND c.status IN ('done', 'failed') AND c.occurrence_end <= $1
         AND NOT EXISTS (SELECT 1 FROM freeze_claims e
                         WHERE e.window_id = c.window_id AND e.occurrence_start = c.occurrence_start AND e.phase = 'end')
       ORDER BY c.occurrence_end LIMIT $2`,
      [now, limit],
    );
    return rows.map(toRecord);
  }

  /** Running claims whose owner stopped renewing, and retrying claims whose next attempt is due. */
  async available(now: number, limit: number): Promise<ClaimRecord[]> {
    const out: ClaimRecord[] = [];
    for (const lease of await this.#leases.available({ kind: PHASE_LEASE, now, limit })) {
      const key = keyOfLease(lease.key);
      const rec = key && (await this.get(key));
      if (rec && (rec.status === 'running' || rec.status === 'retrying')) out.push(rec);
      // Its claim row is gone (deleted with its workspace's data): close the lease so it is not listed again.
      else await this.#leases.abandon(lease, now);
    }
    return out;
  }

  /** Compare-and-set on the lease as `rec` saw it: exactly one replica wins. */
  async takeOver(rec: ClaimRecord, owner: string, leaseUntil: number): Promise<boolean> {
    if (rec.fence === undefined) return false; // a row without a lease: nothing to take over
    const seen = { fence: rec.fence, expiresAt: rec.leaseUntil };
    const fence = await this.#leases.together(
      (tx) => this.#leases.takeOver({ ...phaseLease(rec), holder: owner, expiresAt: leaseUntil, seen }, tx),
      (tx) =>
        tx.execute(
          `UPDATE freeze_claims SET owner = $4, status = 'running', attempts = attempts + 1
           WHERE ${KEY_WHERE} AND status = $5`,
          [...keyParams(rec), owner, rec.status],
        ),
    );
    return fence !== undefined;
  }

  /** Extends the lease; false when the claim is no longer ours. */
  heartbeat(key: ClaimKey, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#leases.heartbeat({ ...phaseLease(key), holder: owner, expiresAt: leaseUntil });
  }

  /** The queue's state before this attempt changes it; kept for a takeover to recognise its own change. */
  recordBefore(key: ClaimKey, owner: string, beforeState: string): Promise<boolean> {
    return this.#write(
      key,
      (tx) => this.#leases.heartbeat({ ...phaseLease(key), holder: owner }, tx),
      'before_state = $4',
      [beforeState],
    );
  }

  /** Leaves the claim for whichever replica comes at `nextAt`. */
  retryLater(key: ClaimKey, owner: string, nextAt: number, detail: string): Promise<boolean> {
    return this.#write(
      key,
      (tx) => this.#leases.release({ ...phaseLease(key), holder: owner, availableAt: nextAt }, tx),
      "status = 'retrying', detail = $4",
      [detail],
    );
  }

  finish(
    key: ClaimKey,
    owner: string,
    status: 'done' | 'failed',
    outcome: string,
    now: number,
    extra: { setState?: string; detail?: string } = {},
  ): Promise<boolean> {
    return this.#write(
      key,
      (tx) => this.#leases.finish({ ...phaseLease(key), holder: owner, now, result: status }, tx),
      'status = $4, outcome = $5, set_state = $6, detail = $7, finished_at = $8',
      [status, outcome, extra.setState ?? null, extra.detail ?? null, now],
    );
  }

  /** Forgets finished claims of occurrences that ended before `before` (and old leases nobody holds). */
  async prune(before: number): Promise<number> {
    const n = await this.#db.execute(
      "DELETE FROM freeze_claims WHERE occurrence_end < $1 AND status IN ('done', 'failed')",
      [before],
    );
    await this.#leases.prune({ kind: PHASE_LEASE, before });
    return n;
  }

  /** `lease` (a fenced lease write) and the running row's update commit together, or neither does. */
  async #write(
    key: ClaimKey,
    lease: (tx: DbExecutor) => Promise<boolean>,
    set: string,
    values: Array<string | number | null>,
  ): Promise<boolean> {
    const done = await this.#leases.together(lease, (tx) =>
      tx.execute(`UPDATE freeze_claims SET ${set} WHERE ${KEY_WHERE} AND status = 'running'`, [
        ...keyParams(key),
        ...values,
      ]),
    );
    return done === true;
  }
}
