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
import { type ClaimRow, ClaimRows, type ClaimRowsSpec, holdingOf } from '../store/claim-rows.ts';
import type { LeaseStore } from '../store/types.ts';
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
  /** The lease's expiry and fence as read (undefined for a finished claim whose lease is gone). */
  leaseUntil?: number;
  fence?: number;
  attempts: number;
  beforeState?: string;
  setState?: string;
  detail?: string;
  claimedAt: number;
  finishedAt?: number;
}

/** The lease of each (window, occurrence, phase), in the store's lease table, is named `freeze.phase`. */
const PHASE_LEASE = 'freeze.phase';
const keyValues = (k: ClaimKey) => [k.windowId, k.occurrenceStart, k.phase];
const RUNNING = { whileStatus: ['running'] } as const;

function toRecord(claimed: ClaimRow): ClaimRecord {
  const r = claimed.row;
  const rec: ClaimRecord = {
    windowId: String(r['window_id']),
    occurrenceStart: Number(r['occurrence_start']),
    phase: String(r['phase']) as Phase,
    workspaceId: String(r['workspace_id']),
    target: String(r['target']),
    occurrenceEnd: Number(r['occurrence_end']),
    window: JSON.parse(String(r['window_json'])) as FreezeWindow,
    status: String(r['status']) as ClaimRecord['status'],
    ...holdingOf(claimed),
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

/** One row per phase in `freeze_claims`, its lease `freeze.phase`. */
const PHASE_ROWS: ClaimRowsSpec = {
  kind: PHASE_LEASE,
  table: 'freeze_claims',
  key: ['window_id', 'occurrence_start', 'phase'],
  columns: [
    'window_id',
    'occurrence_start',
    'phase',
    'workspace_id',
    'target',
    'occurrence_end',
    'window_json',
    'status',
    'outcome',
    'owner',
    'attempts',
    'before_state',
    'set_state',
    'detail',
    'claimed_at',
    'finished_at',
  ],
};

/** The phases' claim rows (`freeze_claims`) on their leases (store/claim-rows.ts). */
export class FreezeClaims {
  readonly #rows: ClaimRows;
  constructor(store: LeaseStore) {
    this.#rows = new ClaimRows(store, PHASE_ROWS);
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
    const made = await this.#rows.claim(
      {
        key: keyValues(key),
        workspaceId: window.workspaceId,
        holder: owner,
        ttlMs: leaseMs,
        now,
        mode: 'new',
      },
      // Refused when the row exists without a lease: claimed before migration 009.
      (tx) =>
        this.#rows.insert(
          {
            window_id: window.id,
            occurrence_start: occurrence.start,
            phase,
            workspace_id: window.workspaceId,
            target: targetKey(window.target),
            occurrence_end: occurrence.end,
            window_json: JSON.stringify(window),
            status: 'running',
            owner,
            attempts: 1,
            claimed_at: now,
          },
          { tx },
        ),
    );
    return made ? this.get(key) : undefined;
  }

  async get(key: ClaimKey): Promise<ClaimRecord | undefined> {
    const found = await this.#rows.get(keyValues(key));
    return found && toRecord(found);
  }

  /** Claims of the occurrences open at or after `since` (and any still in progress): what a tick compares with. */
  async recent(since: number): Promise<ClaimRecord[]> {
    const rows = await this.#rows.select("occurrence_end >= $1 OR status IN ('running', 'retrying')", [
      since,
    ]);
    return rows.map(toRecord);
  }

  /** Start claims of one queue whose occurrence had not ended by `since`, oldest finished first. */
  async startsOnTarget(workspaceId: string, target: string, since: number): Promise<ClaimRecord[]> {
    const rows = await this.#rows.select(
      "workspace_id = $1 AND target = $2 AND phase = 'start' AND occurrence_end >= $3",
      [workspaceId, target, since],
      'ORDER BY finished_at, claimed_at',
    );
    return rows.map(toRecord);
  }

  /** Finished starts whose occurrence is over and whose end nobody has claimed (missed ends included). */
  async endsDue(now: number, limit: number): Promise<ClaimRecord[]> {
    const rows = await this.#rows.select(
      `phase = 'start' AND status IN ('done', 'failed') AND occurrence_end <= $1
         AND NOT EXISTS (SELECT 1 FROM freeze_claims e WHERE e.window_id = freeze_claims.window_id
                           AND e.occurrence_start = freeze_claims.occurrence_start AND e.phase = 'end')`,
      [now, limit],
      'ORDER BY occurrence_end LIMIT $2',
    );
    return rows.map(toRecord);
  }

  /** Running claims whose owner stopped renewing, and retrying claims whose next attempt is due. */
  async available(now: number, limit: number): Promise<ClaimRecord[]> {
    // A lease whose claim row is gone (deleted with its workspace's data) is closed so it is not listed again.
    const rows = await this.#rows.available(now, limit, ({ row }) =>
      ['running', 'retrying'].includes(String(row['status'])),
    );
    return rows.map(toRecord);
  }

  /** Compare-and-set on the lease as `rec` saw it: exactly one replica wins. */
  takeOver(rec: ClaimRecord, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#rows.takeOver(keyValues(rec), rec, owner, leaseUntil, { status: 'running' }, [rec.status]);
  }

  /** Extends the lease; false when the claim is no longer ours. */
  heartbeat(key: ClaimKey, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#rows.heartbeat(keyValues(key), owner, leaseUntil);
  }

  /** The queue's state before this attempt changes it; kept for a takeover to recognise its own change. */
  recordBefore(key: ClaimKey, owner: string, beforeState: string): Promise<boolean> {
    return this.#rows.write(keyValues(key), owner, { step: 'renew' }, { before_state: beforeState }, RUNNING);
  }

  /** Leaves the claim for whichever replica comes at `nextAt`. */
  retryLater(key: ClaimKey, owner: string, nextAt: number, detail: string): Promise<boolean> {
    return this.#rows.write(
      keyValues(key),
      owner,
      { step: 'release', availableAt: nextAt },
      { status: 'retrying', detail },
      RUNNING,
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
    return this.#rows.write(
      keyValues(key),
      owner,
      { step: 'finish', now, result: status },
      { status, outcome, set_state: extra.setState ?? null, detail: extra.detail ?? null, finished_at: now },
      RUNNING,
    );
  }

  /** Forgets finished claims of occurrences that ended before `before` (and old leases nobody holds). */
  prune(before: number): Promise<number> {
    return this.#rows.prune(before, "occurrence_end < $1 AND status IN ('done', 'failed')", [before]);
  }
}
