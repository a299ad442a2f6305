/**
 * One row per (subscription, scheduled instant), claimed with a lease (store/leases.ts) that makes each
 * occurrence post once across replicas; the running replica keeps the lease renewed. A replica that dies
 * stops renewing; once the lease has expired another replica takes it over (compare-and-set on the lease
 * as seen) and continues from what the row says was already posted.
 *
 * Every progress write is fenced by the lease, in one transaction with it: a replica that lost its claim
 * (it stalled past its lease and was taken over) finds out at its next write and stops posting.
 */
import { type ClaimRow, ClaimRows, type ClaimRowsSpec, holdingOf } from '../store/claim-rows.ts';
import type { LeaseStore } from '../store/types.ts';
import type { Baseline, DigestMessage } from './types.ts';

export interface RunKey {
  subscriptionId: string;
  scheduledAt: number;
}

export interface RunPayload {
  messages: DigestMessage[];
  /** What the next scheduled digest compares with (absent for manual runs). */
  baseline?: Baseline;
  /** Nothing to report (with skip-empty on, nothing is posted). */
  empty: boolean;
  /** Set when the digest could not be made: messages then hold the one notice for the channel. */
  failure?: string;
}

export interface RunRecord extends RunKey {
  workspaceId: string;
  manual: boolean;
  status: 'running' | 'done' | 'skipped' | 'failed';
  outcome?: string;
  owner: string;
  /** The lease's expiry and fence as read (undefined for a row without a lease: skipped, or finished). */
  leaseUntil?: number;
  fence?: number;
  attempts: number;
  late: boolean;
  payload?: RunPayload;
  headerTs?: string;
  postedCount: number;
  detail?: string;
}

/** Each occurrence's lease, in the store's lease table, is named `digest.run` and the row's key. */
const RUN_LEASE = 'digest.run';
const keyValues = (k: RunKey) => [k.subscriptionId, k.scheduledAt];

function toRecord(claimed: ClaimRow): RunRecord {
  const r = claimed.row;
  const rec: RunRecord = {
    subscriptionId: String(r['subscription_id']),
    scheduledAt: Number(r['scheduled_at']),
    workspaceId: String(r['workspace_id']),
    manual: Number(r['manual']) === 1,
    status: String(r['status']) as RunRecord['status'],
    ...holdingOf(claimed),
    late: Number(r['late']) === 1,
    postedCount: Number(r['posted_count']),
  };
  if (typeof r['outcome'] === 'string') rec.outcome = r['outcome'];
  if (typeof r['payload'] === 'string' && r['payload']) rec.payload = JSON.parse(r['payload']) as RunPayload;
  if (typeof r['header_ts'] === 'string' && r['header_ts']) rec.headerTs = r['header_ts'];
  if (typeof r['detail'] === 'string') rec.detail = r['detail'];
  return rec;
}

/** One row per occurrence in `digest_runs`, its lease `digest.run`. */
const RUN_ROWS: ClaimRowsSpec = {
  kind: RUN_LEASE,
  table: 'digest_runs',
  key: ['subscription_id', 'scheduled_at'],
  columns: [
    'subscription_id',
    'scheduled_at',
    'workspace_id',
    'manual',
    'status',
    'outcome',
    'owner',
    'attempts',
    'late',
    'payload',
    'header_ts',
    'posted_count',
    'detail',
  ],
};

/** The occurrences' claim rows (`digest_runs`) on their leases (store/claim-rows.ts). */
export class ClaimRepository {
  readonly #rows: ClaimRows;
  constructor(store: LeaseStore) {
    this.#rows = new ClaimRows(store, RUN_ROWS);
  }

  /** True when this replica now owns the occurrence; false when anyone already claimed it. */
  async claim(
    key: RunKey & { workspaceId: string; manual: boolean; late: boolean },
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const got = await this.#rows.claim(
      { key: keyValues(key), workspaceId: key.workspaceId, holder: owner, ttlMs: leaseMs, now, mode: 'new' },
      // Refused when the row exists without a lease: skipped, or claimed before migration 009.
      (tx) =>
        this.#rows.insert(
          {
            subscription_id: key.subscriptionId,
            scheduled_at: key.scheduledAt,
            workspace_id: key.workspaceId,
            manual: key.manual ? 1 : 0,
            status: 'running',
            owner,
            late: key.late ? 1 : 0,
            claimed_at: now,
          },
          { tx },
        ),
    );
    return got !== undefined;
  }

  /** Records an occurrence that will not be posted (missed beyond the grace period), once. */
  async recordSkipped(
    key: RunKey & { workspaceId: string },
    owner: string,
    now: number,
    detail: string,
  ): Promise<boolean> {
    const n = await this.#rows.insert({
      subscription_id: key.subscriptionId,
      scheduled_at: key.scheduledAt,
      workspace_id: key.workspaceId,
      status: 'skipped',
      outcome: 'skipped_late',
      owner,
      detail,
      claimed_at: now,
      finished_at: now,
    });
    return n === 1;
  }

  async get(key: RunKey): Promise<RunRecord | undefined> {
    const found = await this.#rows.get(keyValues(key));
    return found && toRecord(found);
  }

  async listFor(subscriptionId: string): Promise<RunRecord[]> {
    return (await this.#rows.select('subscription_id = $1', [subscriptionId], 'ORDER BY scheduled_at')).map(
      toRecord,
    );
  }

  /** Extends the lease; false when the claim is no longer ours. */
  heartbeat(key: RunKey, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#rows.heartbeat(keyValues(key), owner, leaseUntil);
  }

  savePayload(key: RunKey, owner: string, payload: RunPayload, leaseUntil: number): Promise<boolean> {
    return this.#fenced(key, owner, leaseUntil, { payload: JSON.stringify(payload) });
  }

  /** After each message Slack accepted: the header's ts and how many messages are out. */
  recordPosted(
    key: RunKey,
    owner: string,
    headerTs: string,
    postedCount: number,
    leaseUntil: number,
  ): Promise<boolean> {
    return this.#fenced(key, owner, leaseUntil, { header_ts: headerTs, posted_count: postedCount });
  }

  /**
   * Slack failed in passing: the lease is given up until the next attempt may start, so the scheduler
   * takes it over then (from what the row says was posted); `detail` says why for troubleshooting.
   */
  deferRetry(key: RunKey, owner: string, retryAt: number, detail: string): Promise<boolean> {
    return this.#rows.write(
      keyValues(key),
      owner,
      { step: 'release', availableAt: retryAt },
      { detail },
      RUNNING,
    );
  }

  finish(
    key: RunKey,
    owner: string,
    status: 'done' | 'failed' | 'skipped',
    outcome: string,
    now: number,
    detail?: string,
  ): Promise<boolean> {
    return this.#rows.write(
      keyValues(key),
      owner,
      { step: 'finish', now, result: status },
      // The rendered messages are only needed while the run may be taken over.
      { status, outcome, detail: detail ?? null, finished_at: now, payload: null },
      RUNNING,
    );
  }

  /**
   * Forgets finished occurrences older than `before`. Long after an occurrence nobody can claim it again
   * (the subscription's next_due_at moved past it within seconds), so the row has done its job.
   */
  prune(before: number): Promise<number> {
    return this.#rows.prune(before, "scheduled_at < $1 AND status <> 'running'", [before]);
  }

  /** Claims whose owner stopped renewing the lease, or gave it up until a retry that is now due. */
  async expired(now: number, limit: number): Promise<RunRecord[]> {
    // A lease whose run is gone (the bot's data was deleted) is closed so it is not listed again.
    const rows = await this.#rows.available(now, limit, (r) => r.row['status'] === 'running');
    return rows.map(toRecord);
  }

  /** Compare-and-set on the lease as `rec` saw it: exactly one replica wins a takeover. */
  takeOver(rec: RunRecord, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#rows.takeOver(keyValues(rec), rec, owner, leaseUntil);
  }

  /** A progress write fenced by the lease (renewed to `leaseUntil`), in one transaction with it. */
  #fenced(
    key: RunKey,
    owner: string,
    leaseUntil: number,
    values: Record<string, string | number>,
  ): Promise<boolean> {
    return this.#rows.write(keyValues(key), owner, { step: 'renew', expiresAt: leaseUntil }, values, RUNNING);
  }
}

const RUNNING = { whileStatus: ['running'] } as const;
