/**
 * The one lease protocol (see Leases in types.ts and docs/adr/0003): claim, heartbeat, take over after
 * expiry, finish, release, prune, over one `leases` table (migration 009). Every user — digest runs and
 * shared collections, freeze starts and ends, watch polls and deliveries — names its work with a `kind`
 * and a `key` and keeps its own data in its own tables; the store gives neither a meaning.
 *
 * Every acquisition and every write is decided by one conditional statement, so two replicas racing
 * cannot both win, and each fenced write names the holder (and, when the caller kept it, the fence): a
 * holder that was taken over is refused.
 * Pass a transaction's `tx` to make a fenced check and the caller's own writes one atomic step.
 */
import type {
  Db,
  DbExecutor,
  Lease,
  LeaseClaim,
  LeaseClaimRequest,
  LeaseHold,
  LeaseId,
  Leases,
  Row,
  SqlValue,
} from './types.ts';

const COLUMNS =
  'kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, result, created_at, finished_at';

function toLease(r: Row): Lease {
  const lease: Lease = {
    kind: String(r['kind']),
    key: String(r['lease_key']),
    workspaceId: String(r['workspace_id']),
    holder: String(r['holder']),
    fence: Number(r['fence']),
    state: String(r['state']) as Lease['state'],
    expiresAt: Number(r['expires_at']),
    attempts: Number(r['attempts']),
    createdAt: Number(r['created_at']),
  };
  if (typeof r['result'] === 'string') lease.result = r['result'];
  if (r['finished_at'] !== null && r['finished_at'] !== undefined)
    lease.finishedAt = Number(r['finished_at']);
  return lease;
}

function checkId(id: LeaseId): void {
  if (!id.kind || !id.key) throw new Error('A lease needs a kind and a key.');
}

/** `holder = $3 AND state = 'held'` and, when the hold carries them, the fence and liveness: every fenced write's condition. */
function holdWhere(hold: LeaseHold, params: SqlValue[]): string {
  params.push(hold.kind, hold.key, hold.holder);
  let where = "kind = $1 AND lease_key = $2 AND holder = $3 AND state = 'held'";
  if (hold.fence !== undefined) {
    params.push(hold.fence);
    where += ` AND fence = $${params.length}`;
  }
  if (hold.liveAt !== undefined) {
    params.push(hold.liveAt);
    where += ` AND expires_at >= $${params.length}`;
  }
  return where;
}

/** Keys per `getMany` query: well under both engines' limit on bound parameters. */
const GET_MANY_CHUNK = 500;

/** Thrown inside `together` to undo a lease step whose record write changed nothing. */
class RecordRefused extends Error {}

export class SqlLeases implements Leases {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async claim(req: LeaseClaimRequest, tx: DbExecutor = this.#db): Promise<LeaseClaim> {
    checkId(req);
    if (!Number.isFinite(req.ttlMs) || req.ttlMs <= 0)
      throw new Error('A lease claim needs a positive ttlMs.');
    const until = req.now + Math.ceil(req.ttlMs);
    const inserted = await tx.query(
      `INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
       VALUES ($1, $2, $3, $4, 1, 'held', $5, 1, $6)
       ON CONFLICT (kind, lease_key) DO NOTHING RETURNING ${COLUMNS}`,
      [req.kind, req.key, req.workspaceId ?? '', req.holder, until, req.now],
    );
    if (inserted[0])
      return { acquired: true, fence: 1, attempts: 1, takenOver: false, lease: toLease(inserted[0]) };
    if (req.mode === 'renew') {
      // Ours already: renew it (same fence: the same holding goes on).
      const renewed = await tx.query(
        `UPDATE leases SET expires_at = $4 WHERE kind = $1 AND lease_key = $2 AND holder = $3 AND state = 'held'
         RETURNING ${COLUMNS}`,
        [req.kind, req.key, req.holder, until],
      );
      if (renewed[0]) {
        const lease = toLease(renewed[0]);
        return { acquired: true, fence: lease.fence, attempts: lease.attempts, takenOver: false, lease };
      }
    }
    if (req.mode !== 'new') {
      // Lapsed or released and due: a new holding, with a new fence.
      const taken = await tx.query(
        `UPDATE leases SET holder = $3, expires_at = $4, state = 'held', fence = fence + 1, attempts = attempts + 1
         WHERE kind = $1 AND lease_key = $2
           AND ((state = 'held' AND expires_at < $5) OR (state = 'released' AND expires_at <= $5))
         RETURNING ${COLUMNS}`,
        [req.kind, req.key, req.holder, until, req.now],
      );
      if (taken[0]) {
        const lease = toLease(taken[0]);
        return { acquired: true, fence: lease.fence, attempts: lease.attempts, takenOver: true, lease };
      }
    }
    const lease = await this.get(req, tx);
    return lease ? { acquired: false, lease } : { acquired: false };
  }

  async takeOver(
    req: LeaseId & { holder: string; expiresAt: number; seen: { fence: number; expiresAt: number } },
    tx: DbExecutor = this.#db,
  ): Promise<number | undefined> {
    checkId(req);
    const rows = await tx.query(
      `UPDATE leases SET holder = $3, expires_at = $4, state = 'held', fence = fence + 1, attempts = attempts + 1
       WHERE kind = $1 AND lease_key = $2 AND fence = $5 AND expires_at = $6 AND state IN ('held', 'released')
       RETURNING fence`,
      [req.kind, req.key, req.holder, req.expiresAt, req.seen.fence, req.seen.expiresAt],
    );
    return rows[0] ? Number(rows[0]['fence']) : undefined;
  }

  async heartbeat(hold: LeaseHold & { expiresAt?: number }, tx: DbExecutor = this.#db): Promise<boolean> {
    const params: SqlValue[] = [];
    const where = holdWhere(hold, params);
    let set = 'fence = fence';
    if (hold.expiresAt !== undefined) {
      params.push(hold.expiresAt);
      set = `expires_at = $${params.length}`;
    }
    return (await tx.execute(`UPDATE leases SET ${set} WHERE ${where}`, params)) === 1;
  }

  async finish(
    hold: LeaseHold & { now: number; result?: string },
    tx: DbExecutor = this.#db,
  ): Promise<boolean> {
    const params: SqlValue[] = [];
    const where = holdWhere(hold, params);
    params.push(hold.result ?? null, hold.now);
    const n = await tx.execute(
      `UPDATE leases SET state = 'finished', result = $${params.length - 1}, finished_at = $${params.length}
       WHERE ${where}`,
      params,
    );
    return n === 1;
  }

  async release(hold: LeaseHold & { availableAt?: number }, tx: DbExecutor = this.#db): Promise<boolean> {
    const params: SqlValue[] = [];
    const where = holdWhere(hold, params);
    params.push(hold.availableAt ?? 0);
    const n = await tx.execute(
      `UPDATE leases SET state = 'released', expires_at = $${params.length} WHERE ${where}`,
      params,
    );
    return n === 1;
  }

  async abandon(lease: Lease, now: number): Promise<boolean> {
    const holder = 'abandoned';
    const fence = await this.takeOver({
      kind: lease.kind,
      key: lease.key,
      holder,
      expiresAt: now,
      seen: { fence: lease.fence, expiresAt: lease.expiresAt },
    });
    if (fence === undefined) return false;
    return this.finish({ kind: lease.kind, key: lease.key, holder, fence, now, result: 'abandoned' });
  }

  async together<T>(
    lease: (tx: DbExecutor) => Promise<T | undefined | false>,
    record: (tx: DbExecutor, got: T) => Promise<number>,
  ): Promise<T | undefined> {
    try {
      return await this.#db.transaction(async (tx) => {
        const got = await lease(tx);
        if (got === undefined || got === false) return undefined;
        if ((await record(tx, got)) !== 1) throw new RecordRefused();
        return got;
      });
    } catch (err) {
      if (err instanceof RecordRefused) return undefined;
      throw err;
    }
  }

  async get(id: LeaseId, tx: DbExecutor = this.#db): Promise<Lease | undefined> {
    const rows = await tx.query(`SELECT ${COLUMNS} FROM leases WHERE kind = $1 AND lease_key = $2`, [
      id.kind,
      id.key,
    ]);
    return rows[0] ? toLease(rows[0]) : undefined;
  }

  /** The leases of `kind` among `keys` (one query), by key: what a user's list of records is joined with. */
  async getMany(kind: string, keys: readonly string[]): Promise<Map<string, Lease>> {
    const out = new Map<string, Lease>();
    for (let i = 0; i < keys.length; i += GET_MANY_CHUNK) {
      const chunk = keys.slice(i, i + GET_MANY_CHUNK);
      const rows = await this.#db.query(
        `SELECT ${COLUMNS} FROM leases WHERE kind = $1 AND lease_key IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})`,
        [kind, ...chunk],
      );
      for (const r of rows) out.set(String(r['lease_key']), toLease(r));
    }
    return out;
  }

  async available(q: { kind: string; now: number; limit: number }): Promise<Lease[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM leases
       WHERE kind = $1 AND ((state = 'held' AND expires_at < $2) OR (state = 'released' AND expires_at <= $2))
       ORDER BY expires_at, lease_key LIMIT $3`,
      [q.kind, q.now, q.limit],
    );
    return rows.map(toLease);
  }

  prune(q: { kind: string; before: number }): Promise<number> {
    return this.#db.execute(
      `DELETE FROM leases WHERE kind = $1 AND created_at < $2 AND (state = 'finished' OR expires_at < $2)`,
      [q.kind, q.before],
    );
  }
}

/** A lease kept alive while its holder works (see `keepRenewed`). */
export interface Heartbeat {
  /** True once a renewal was refused: another holder has the lease, so the work must stop. */
  readonly lost: boolean;
  /** Stops renewing and waits for a renewal in flight, so none lands after what the holder does next. */
  stop(): Promise<void>;
}

/**
 * The one heartbeat: calls `renew` (a fenced `Leases.heartbeat` extending the lease) every `everyMs`
 * (a third of the lease is the usual choice) until stopped or refused. A renewal that throws (the store
 * in passing) is reported to `onError` and tried again at the next beat; the lease's own expiry settles
 * a store that stays down. The timer never keeps the process alive.
 */
export function keepRenewed(
  renew: () => Promise<boolean>,
  everyMs: number,
  onError: (err: unknown) => void = () => undefined,
): Heartbeat {
  let lost = false;
  let beat: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      beat = renew().then((ok) => {
        if (!ok) {
          lost = true;
          clearInterval(timer);
        }
      }, onError);
    },
    Math.max(50, Math.floor(everyMs)),
  );
  timer.unref();
  return {
    get lost() {
      return lost;
    },
    async stop() {
      clearInterval(timer);
      await beat;
    },
  };
}
