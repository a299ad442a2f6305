/**
 * One row per (window, occurrence start, phase): the claim that makes each freeze start and end happen
 * once across replicas, as the digests' claims do. The running replica keeps its lease renewed (each tick);
 * one that dies stops renewing and, once the lease has passed, another takes the row over by
 * compare-and-set and continues from what the row says (the state read before the change, so a change
 * that went through just before the crash is recognised instead of repeated).
 *
 * A failed attempt leaves the row `retrying` with `lease_until` set to when the next attempt is due; any
 * replica takes it then, by the same compare-and-set. Every write is fenced by `owner = me AND status =
 * 'running'`, so a replica that lost its claim finds out at its next write.
 */
import type { Db, Row } from '../store/types.ts';
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
  attempts: number;
  beforeState?: string;
  setState?: string;
  detail?: string;
  claimedAt: number;
  finishedAt?: number;
}

const COLUMNS =
  'window_id, occurrence_start, phase, workspace_id, target, occurrence_end, window_json, status, outcome, owner, lease_until, attempts, before_state, set_state, detail, claimed_at, finished_at';

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
  constructor(db: Db) {
    this.#db = db;
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
    const rows = await this.#db.query(
      `INSERT INTO freeze_claims (window_id, occurrence_start, phase, workspace_id, target, occurrence_end, window_json, status, owner, lease_until, attempts, claimed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'running', $8, $9, 1, $10)
       ON CONFLICT (window_id, occurrence_start, phase) DO NOTHING RETURNING ${COLUMNS}`,
      [
        window.id,
        occurrence.start,
        phase,
        window.workspaceId,
        targetKey(window.target),
        occurrence.end,
        JSON.stringify(window),
        owner,
        now + leaseMs,
        now,
      ],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async get(key: ClaimKey): Promise<ClaimRecord | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_claims WHERE ${KEY_WHERE}`,
      keyParams(key),
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** Claims of the occurrences open at or after `since` (and any still in progress): what a tick compares with. */
  async recent(since: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_claims WHERE occurrence_end >= $1 OR status IN ('running', 'retrying')`,
      [since],
    );
    return rows.map(toRecord);
  }

  /** Start claims of one queue whose occurrence had not ended by `since`, oldest finished first. */
  async startsOnTarget(workspaceId: string, target: string, since: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_claims
       WHERE workspace_id = $1 AND target = $2 AND phase = 'start' AND occurrence_end >= $3
       ORDER BY finished_at, claimed_at`,
      [workspaceId, target, since],
    );
    return rows.map(toRecord);
  }

  /** Finished starts whose occurrence is over and whose end nobody has claimed (missed ends included). */
  async endsDue(now: number, limit: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_claims s
       WHERE s.phase = 'start' AND s.status IN ('done', 'failed') AND s.occurrence_end <= $1
         AND NOT EXISTS (SELECT 1 FROM freeze_claims e
                         WHERE e.window_id = s.window_id AND e.occurrence_start = s.occurrence_start AND e.phase = 'end')
       ORDER BY s.occurrence_end LIMIT $2`,
      [now, limit],
    );
    return rows.map(toRecord);
  }

  /** Running claims whose owner stopped renewing, and retrying claims whose next attempt is due. */
  async available(now: number, limit: number): Promise<ClaimRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_claims WHERE status IN ('running', 'retrying') AND lease_until <= $1
       ORDER BY lease_until LIMIT $2`,
      [now, limit],
    );
    return rows.map(toRecord);
  }

  /** Compare-and-set on the owner, status and lease we saw: exactly one replica wins. */
  async takeOver(rec: ClaimRecord, owner: string, leaseUntil: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE freeze_claims SET owner = $6, lease_until = $7, status = 'running', attempts = attempts + 1
       WHERE ${KEY_WHERE} AND owner = $4 AND lease_until = $5 AND status = '${rec.status === 'retrying' ? 'retrying' : 'running'}'`,
      [...keyParams(rec), rec.owner, rec.leaseUntil, owner, leaseUntil],
    );
    return n === 1;
  }

  /** Extends the lease; false when the claim is no longer ours. */
  async heartbeat(key: ClaimKey, owner: string, leaseUntil: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE freeze_claims SET lease_until = $5 WHERE ${KEY_WHERE} AND owner = $4 AND status = 'running'`,
      [...keyParams(key), owner, leaseUntil],
    );
    return n === 1;
  }

  /** The queue's state before this attempt changes it; kept for a takeover to recognise its own change. */
  async recordBefore(key: ClaimKey, owner: string, beforeState: string): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE freeze_claims SET before_state = $5 WHERE ${KEY_WHERE} AND owner = $4 AND status = 'running'`,
      [...keyParams(key), owner, beforeState],
    );
    return n === 1;
  }

  /** Leaves the claim for whichever replica comes at `nextAt`. */
  async retryLater(key: ClaimKey, owner: string, nextAt: number, detail: string): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE freeze_claims SET status = 'retrying', lease_until = $5, detail = $6
       WHERE ${KEY_WHERE} AND owner = $4 AND status = 'running'`,
      [...keyParams(key), owner, nextAt, detail],
    );
    return n === 1;
  }

  async finish(
    key: ClaimKey,
    owner: string,
    status: 'done' | 'failed',
    outcome: string,
    now: number,
    extra: { setState?: string; detail?: string } = {},
  ): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE freeze_claims SET status = $5, outcome = $6, set_state = $7, detail = $8, finished_at = $9
       WHERE ${KEY_WHERE} AND owner = $4 AND status = 'running'`,
      [...keyParams(key), owner, status, outcome, extra.setState ?? null, extra.detail ?? null, now],
    );
    return n === 1;
  }

  /** Forgets finished claims of occurrences that ended before `before`. */
  async prune(before: number): Promise<number> {
    return this.#db.execute(
      "DELETE FROM freeze_claims WHERE occurrence_end < $1 AND status IN ('done', 'failed')",
      [before],
    );
  }
}
