/**
 * One row per (subscription, scheduled instant), claimed with a lease (store/leases.ts) that makes each
 * occurrence post once across replicas; the running replica keeps the lease renewed. A replica that dies
 * stops renewing; once the lease has expired another replica takes it over (compare-and-set on the lease
 * as seen) and continues from what the row says was already posted.
 *
 * Every progress write is fenced by the lease, in one transaction with it: a replica that lost its claim
 * (it stalled past its lease and was taken over) finds out at its next write and stops posting.
 */
import { LEGACY_LEASE_UNTIL, SqlLeases } from '../store/leases.ts';
import type { Db, DbExecutor, Row } from '../store/types.ts';
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
  leaseUntil: number;
  /** The lease's fence as read (undefined for a row without a lease: skipped, or finished before 009). */
  fence?: number;
  attempts: number;
  late: boolean;
  payload?: RunPayload;
  headerTs?: string;
  postedCount: number;
  detail?: string;
}

/** The lease of each occurrence, in the store's lease table (store/leases.ts). */
const RUN_LEASE = 'digest.run';
const runLease = (k: RunKey) => ({ kind: RUN_LEASE, key: `${k.subscriptionId}|${k.scheduledAt}` });
function keyOfLease(leaseKey: string): RunKey | undefined {
  const at = leaseKey.lastIndexOf('|');
  const scheduledAt = Number(leaseKey.slice(at + 1));
  return at > 0 && Number.isFinite(scheduledAt)
    ? { subscriptionId: leaseKey.slice(0, at), scheduledAt }
    : undefined;
}
// The row's `owner` and `attempts` stay its record of who works (or worked) on it and on which attempt;
// the lease decides who may. Its lease_until is LEGACY_LEASE_UNTIL (see store/leases.ts).

const SELECT = `SELECT r.subscription_id, r.scheduled_at, r.workspace_id, r.manual, r.status, r.outcome,
  COALESCE(l.holder, r.owner) AS owner, COALESCE(l.expires_at, r.lease_until) AS lease_until,
  COALESCE(l.attempts, r.attempts) AS attempts, l.fence, r.late, r.payload, r.header_ts, r.posted_count, r.detail
  FROM digest_runs r
  LEFT JOIN leases l ON l.kind = '${RUN_LEASE}' AND l.lease_key = r.subscription_id || '|' || r.scheduled_at`;

function toRecord(r: Row): RunRecord {
  const rec: RunRecord = {
    subscriptionId: String(r['subscription_id']),
    scheduledAt: Number(r['scheduled_at']),
    workspaceId: String(r['workspace_id']),
    manual: Number(r['manual']) === 1,
    status: String(r['status']) as RunRecord['status'],
    owner: String(r['owner']),
    leaseUntil: Number(r['lease_until']),
    attempts: Number(r['attempts']),
    late: Number(r['late']) === 1,
    postedCount: Number(r['posted_count']),
  };
  if (r['fence'] !== null && r['fence'] !== undefined) rec.fence = Number(r['fence']);
  if (typeof r['outcome'] === 'string') rec.outcome = r['outcome'];
  if (typeof r['payload'] === 'string' && r['payload']) rec.payload = JSON.parse(r['payload']) as RunPayload;
  if (typeof r['header_ts'] === 'string' && r['header_ts']) rec.headerTs = r['header_ts'];
  if (typeof r['detail'] === 'string') rec.detail = r['detail'];
  return rec;
}

export class ClaimRepository {
  readonly #db: Db;
  readonly #leases: SqlLeases;
  constructor(db: Db) {
    this.#db = db;
    this.#leases = new SqlLeases(db);
  }

  /** True when this replica now owns the occurrence; false when anyone already claimed it. */
  async claim(
    key: RunKey & { workspaceId: string; manual: boolean; late: boolean },
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const got = await this.#leases.together(
      async (tx) => {
        const c = await this.#leases.claim(
          { ...runLease(key), workspaceId: key.workspaceId, holder: owner, ttlMs: leaseMs, now, mode: 'new' },
          tx,
        );
        return c.acquired;
      },
      // Refused when the row exists without a lease: skipped, or claimed before migration 009.
      (tx) =>
        tx.execute(
          `INSERT INTO digest_runs (subscription_id, scheduled_at, workspace_id, manual, status, owner, lease_until, late, claimed_at)
           VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8)
           ON CONFLICT (subscription_id, scheduled_at) DO NOTHING`,
          [
            key.subscriptionId,
            key.scheduledAt,
            key.workspaceId,
            key.manual ? 1 : 0,
            owner,
            LEGACY_LEASE_UNTIL,
            key.late ? 1 : 0,
            now,
          ],
        ),
    );
    return got === true;
  }

  /** Records an occurrence that will not be posted (missed beyond the grace period), once. */
  async recordSkipped(
    key: RunKey & { workspaceId: string },
    owner: string,
    now: number,
    detail: string,
  ): Promise<boolean> {
    const rows = await this.#db.query(
      `INSERT INTO digest_runs (subscription_id, scheduled_at, workspace_id, status, outcome, owner, lease_until, detail, claimed_at, finished_at)
       VALUES ($1, $2, $3, 'skipped', 'skipped_late', $4, $5, $6, $5, $5)
       ON CONFLICT (subscription_id, scheduled_at) DO NOTHING RETURNING subscription_id`,
      [key.subscriptionId, key.scheduledAt, key.workspaceId, owner, now, detail],
    );
    return rows.length === 1;
  }

  async get(key: RunKey): Promise<RunRecord | undefined> {
    const rows = await this.#db.query(`${SELECT} WHERE r.subscription_id = $1 AND r.scheduled_at = $2`, [
      key.subscriptionId,
      key.scheduledAt,
    ]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async listFor(subscriptionId: string): Promise<RunRecord[]> {
    const rows = await this.#db.query(`${SELECT} WHERE r.subscription_id = $1 ORDER BY r.scheduled_at`, [
      subscriptionId,
    ]);
    return rows.map(toRecord);
  }

  /** Extends the lease; false when the claim is no longer ours. */
  heartbeat(key: RunKey, owner: string, leaseUntil: number): Promise<boolean> {
    return this.#leases.heartbeat({ ...runLease(key), holder: owner, expiresAt: leaseUntil });
  }

  savePayload(key: RunKey, owner: string, payload: RunPayload, leaseUntil: number): Promise<boolean> {
    return this.#fenced(key, owner, leaseUntil, 'payload = $3', [JSON.stringify(payload)]);
  }

  /** After each message Slack accepted: the header's ts and how many messages are out. */
  recordPosted(
    key: RunKey,
    owner: string,
    headerTs: string,
    postedCount: number,
    leaseUntil: number,
  ): Promise<boolean> {
    return this.#fenced(key, owner, leaseUntil, 'header_ts = $3, posted_count = $4', [headerTs, postedCount]);
  }

  /**
   * Slack failed in passing: the lease is given up until the next attempt may start, so the scheduler
   * takes it over then (from what the row says was posted); `detail` says why for troubleshooting.
   */
  deferRetry(key: RunKey, owner: string, retryAt: number, detail: string): Promise<boolean> {
    return this.#write(
      key,
      (tx) => this.#leases.release({ ...runLease(key), holder: owner, availableAt: retryAt }, tx),
      'detail = $3',
      [detail],
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
    return this.#write(
      key,
      (tx) => this.#leases.finish({ ...runLease(key), holder: owner, now, result: status }, tx),
      // The rendered messages are only needed while the run may be taken over.
      'status = $3, outcome = $4, detail = $5, finished_at = $6, payload = NULL',
      [status, outcome, detail ?? null, now],
    );
  }

  /**
   * Forgets finished occurrences older than `before`. Long after an occurrence nobody can claim it again
   * (the subscription's next_due_at moved past it within seconds), so the row has done its job.
   */
  async prune(before: number): Promise<number> {
    const n = await this.#db.execute(
      "DELETE FROM digest_runs WHERE scheduled_at < $1 AND status <> 'running'",
      [before],
    );
    await this.#leases.prune({ kind: RUN_LEASE, before });
    return n;
  }

  /** Claims whose owner stopped renewing the lease, or gave it up until a retry that is now due. */
  async expired(now: number, limit: number): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    for (const lease of await this.#leases.available({ kind: RUN_LEASE, now, limit })) {
      const key = keyOfLease(lease.key);
      const rec = key && (await this.get(key));
      if (rec?.status === 'running') out.push(rec);
      else {
        // Its run is gone (the bot's data was deleted): close the lease so it is not listed again.
        await this.#leases.abandon(lease, now);
      }
    }
    return out;
  }

  /** Compare-and-set on the lease as `rec` saw it: exactly one replica wins a takeover. */
  async takeOver(rec: RunRecord, owner: string, leaseUntil: number): Promise<boolean> {
    if (rec.fence === undefined) return false; // a row without a lease: nothing to take over
    const seen = { fence: rec.fence, expiresAt: rec.leaseUntil };
    const fence = await this.#leases.together(
      (tx) => this.#leases.takeOver({ ...runLease(rec), holder: owner, expiresAt: leaseUntil, seen }, tx),
      (tx) =>
        tx.execute(
          'UPDATE digest_runs SET owner = $3, attempts = attempts + 1 WHERE subscription_id = $1 AND scheduled_at = $2',
          [rec.subscriptionId, rec.scheduledAt, owner],
        ),
    );
    return fence !== undefined;
  }

  /** A progress write fenced by the lease (renewed to `leaseUntil`), in one transaction with it. */
  #fenced(
    key: RunKey,
    owner: string,
    leaseUntil: number,
    set: string,
    values: Array<string | number>,
  ): Promise<boolean> {
    return this.#write(
      key,
      (tx) => this.#leases.heartbeat({ ...runLease(key), holder: owner, expiresAt: leaseUntil }, tx),
      set,
      values,
    );
  }

  /** `lease` (a fenced lease write) and the running row's update commit together, or neither does. */
  async #write(
    key: RunKey,
    lease: (tx: DbExecutor) => Promise<boolean>,
    set: string,
    values: Array<string | number | null>,
  ): Promise<boolean> {
    const done = await this.#leases.together(lease, (tx) =>
      tx.execute(
        `UPDATE digest_runs SET ${set} WHERE subscription_id = $1 AND scheduled_at = $2 AND status = 'running'`,
        [key.subscriptionId, key.scheduledAt, ...values],
      ),
    );
    return done === true;
  }
}
