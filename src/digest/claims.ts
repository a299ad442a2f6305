/**
 * One row per (subscription, scheduled instant): the claim that makes each occurrence post once across
 * replicas, with a lease that the running replica keeps renewing. A replica that dies stops renewing;
 * once the lease has expired another replica takes the row over (compare-and-set on owner and lease)
 * and continues from what the row says was already posted.
 *
 * Every progress write is fenced by `owner = me AND status = 'running'`: a replica that lost its claim
 * (it stalled past its lease and was taken over) finds out at its next write and stops posting.
 */
import type { Db, Row } from '../store/types.ts';
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
  attempts: number;
  late: boolean;
  payload?: RunPayload;
  headerTs?: string;
  postedCount: number;
  detail?: string;
}

const COLUMNS =
  'subscription_id, scheduled_at, workspace_id, manual, status, outcome, owner, lease_until, attempts, late, payload, header_ts, posted_count, detail';

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
  if (typeof r['outcome'] === 'string') rec.outcome = r['outcome'];
  if (typeof r['payload'] === 'string' && r['payload']) rec.payload = JSON.parse(r['payload']) as RunPayload;
  if (typeof r['header_ts'] === 'string' && r['header_ts']) rec.headerTs = r['header_ts'];
  if (typeof r['detail'] === 'string') rec.detail = r['detail'];
  return rec;
}

export class ClaimRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** True when this replica now owns the occurrence; false when anyone already claimed it. */
  async claim(
    key: RunKey & { workspaceId: string; manual: boolean; late: boolean },
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const rows = await this.#db.query(
      `INSERT INTO digest_runs (subscription_id, scheduled_at, workspace_id, manual, status, owner, lease_until, late, claimed_at)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8)
       ON CONFLICT (subscription_id, scheduled_at) DO NOTHING RETURNING subscription_id`,
      [
        key.subscriptionId,
        key.scheduledAt,
        key.workspaceId,
        key.manual ? 1 : 0,
        owner,
        now + leaseMs,
        key.late ? 1 : 0,
        now,
      ],
    );
    return rows.length === 1;
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
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_runs WHERE subscription_id = $1 AND scheduled_at = $2`,
      [key.subscriptionId, key.scheduledAt],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async listFor(subscriptionId: string): Promise<RunRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_runs WHERE subscription_id = $1 ORDER BY scheduled_at`,
      [subscriptionId],
    );
    return rows.map(toRecord);
  }

  /** Extends the lease; false when the claim is no longer ours. */
  async heartbeat(key: RunKey, owner: string, leaseUntil: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_runs SET lease_until = $4
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND status = 'running'`,
      [key.subscriptionId, key.scheduledAt, owner, leaseUntil],
    );
    return n === 1;
  }

  async savePayload(key: RunKey, owner: string, payload: RunPayload, leaseUntil: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_runs SET payload = $4, lease_until = $5
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND status = 'running'`,
      [key.subscriptionId, key.scheduledAt, owner, JSON.stringify(payload), leaseUntil],
    );
    return n === 1;
  }

  /** After each message Slack accepted: the header's ts and how many messages are out. */
  async recordPosted(
    key: RunKey,
    owner: string,
    headerTs: string,
    postedCount: number,
    leaseUntil: number,
  ): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_runs SET header_ts = $4, posted_count = $5, lease_until = $6
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND status = 'running'`,
      [key.subscriptionId, key.scheduledAt, owner, headerTs, postedCount, leaseUntil],
    );
    return n === 1;
  }

  /**
   * Slack failed in passing: the lease is set to when the next attempt may start, so the scheduler takes
   * the row over then (from what it says was posted); `detail` says why for troubleshooting.
   */
  async deferRetry(key: RunKey, owner: string, retryAt: number, detail: string): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_runs SET lease_until = $4, detail = $5
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND status = 'running'`,
      [key.subscriptionId, key.scheduledAt, owner, retryAt, detail],
    );
    return n === 1;
  }

  async finish(
    key: RunKey,
    owner: string,
    status: 'done' | 'failed' | 'skipped',
    outcome: string,
    now: number,
    detail?: string,
  ): Promise<boolean> {
    const n = await this.#db.execute(
      // The rendered messages are only needed while the run may be taken over.
      `UPDATE digest_runs SET status = $4, outcome = $5, detail = $6, finished_at = $7, payload = NULL
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND status = 'running'`,
      [key.subscriptionId, key.scheduledAt, owner, status, outcome, detail ?? null, now],
    );
    return n === 1;
  }

  /**
   * Forgets finished occurrences older than `before`. Long after an occurrence nobody can claim it again
   * (the subscription's next_due_at moved past it within seconds), so the row has done its job.
   */
  async prune(before: number): Promise<number> {
    return this.#db.execute("DELETE FROM digest_runs WHERE scheduled_at < $1 AND status <> 'running'", [
      before,
    ]);
  }

  /** Claims whose owner stopped renewing the lease. */
  async expired(now: number, limit: number): Promise<RunRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_runs WHERE status = 'running' AND lease_until < $1 ORDER BY lease_until LIMIT $2`,
      [now, limit],
    );
    return rows.map(toRecord);
  }

  /** Compare-and-set on the owner and lease we saw: exactly one replica wins a takeover. */
  async takeOver(rec: RunRecord, owner: string, leaseUntil: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_runs SET owner = $5, lease_until = $6, attempts = attempts + 1
       WHERE subscription_id = $1 AND scheduled_at = $2 AND owner = $3 AND lease_until = $4 AND status = 'running'`,
      [rec.subscriptionId, rec.scheduledAt, rec.owner, rec.leaseUntil, owner, leaseUntil],
    );
    return n === 1;
  }
}
