/**
 * Claim rows on a lease: the one way a domain keeps a record of claimed work beside the lease that decides
 * who may do it (store/leases.ts). Digest runs (digest_runs), freeze starts and ends (freeze_claims), watch
 * deliveries (watch_deliveries) and shared digest collections (digest_collections) are each a table of
 * such rows; this module is their claim, takeover, fenced write, listing and pruning, written once.
 *
 * A row is named by its key columns; its lease by the row's `kind` and the key's values joined with `|`
 * (so the first key column may itself hold `|`; the others may not). The row keeps what was done (what was
 * posted, the state read, what was sent), `owner` and `attempts` as its record of who works on it; the
 * lease decides who may. Every lease step that goes with a row write commits in one transaction with it
 * (`Leases.together`): a holder that was taken over writes nothing.
 *
 * Reads come as `ClaimRow`: the row and its lease, when it has one (a finished row whose lease was pruned,
 * or one finished before migration 009, has none). The lease is read with one `getMany` beside the rows'
 * query: no SQL here, or anywhere but store/leases.ts, touches the `leases` table.
 */
import type {
  Db,
  DbExecutor,
  Lease,
  LeaseClaim,
  LeaseId,
  LeaseStore,
  Leases,
  Row,
  SqlValue,
} from './types.ts';

export interface ClaimRowsSpec {
  /** The lease kind of the rows: `digest.run`, `freeze.phase`, … (see migration 009). */
  kind: string;
  /** The table of the rows. */
  table: string;
  /** The key columns, in the order their values make the lease key. */
  key: readonly string[];
  /** The columns a read returns. */
  columns: readonly string[];
}

/** The values of a row's key columns, in the spec's order. */
export type ClaimKeyValues = readonly SqlValue[];

export interface ClaimRow {
  row: Row;
  /** The row's lease as read; absent when it has none (finished and pruned, or finished before 009). */
  lease?: Lease;
}

/** Who works on a claimed row, on which attempt, under which lease (expiry and fence) as read. */
export interface Holding {
  owner: string;
  attempts: number;
  /** Absent when the row has no lease. */
  leaseUntil?: number;
  fence?: number;
}

/** The holding of a row: its lease's holder and attempts, else the row's own record of them. */
export function holdingOf({ row, lease }: ClaimRow): Holding {
  if (!lease) return { owner: String(row['owner']), attempts: Number(row['attempts']) };
  return { owner: lease.holder, attempts: lease.attempts, leaseUntil: lease.expiresAt, fence: lease.fence };
}

/** What happens to the lease together with a row write. */
export type LeaseStep =
  /** Confirms the hold (and extends it to `expiresAt` when given). */
  | { step: 'renew'; expiresAt?: number }
  | { step: 'finish'; now: number; result?: string }
  /** Gives it up; anyone may take it from `availableAt` (default: at once). */
  | { step: 'release'; availableAt?: number };

/** Column values of a row write. */
export type RowValues = Readonly<Record<string, SqlValue>>;

export class ClaimRows {
  readonly #db: Db;
  readonly #leases: Leases;
  readonly #spec: ClaimRowsSpec;
  readonly #select: string;

  constructor(store: LeaseStore, spec: ClaimRowsSpec) {
    if (spec.key.length === 0) throw new Error('Claim rows need at least one key column.');
    this.#db = store.db;
    this.#leases = store.leases;
    this.#spec = spec;
    this.#select = `SELECT ${spec.columns.join(', ')} FROM ${spec.table}`;
  }

  /** The lease of the row with `key`. */
  leaseId(key: ClaimKeyValues): LeaseId {
    return { kind: this.#spec.kind, key: key.join('|') };
  }

  /** The rows matching `where` (over the table's columns; parameters from $1), each with its lease. */
  async select(where: string, params: readonly SqlValue[], tail = ''): Promise<ClaimRow[]> {
    const rows = await this.#db.query(`${this.#select} WHERE ${where} ${tail}`, [...params]);
    const leases = await this.#leases.getMany(
      this.#spec.kind,
      rows.map((r) => this.#keyOfRow(r)),
    );
    return rows.map((row) => {
      const lease = leases.get(this.#keyOfRow(row));
      return lease ? { row, lease } : { row };
    });
  }

  async get(key: ClaimKeyValues): Promise<ClaimRow | undefined> {
    return (await this.select(this.#keyWhere(), key))[0];
  }

  /**
   * Acquires the row's lease (`mode` as in `Leases.claim`) and writes the row (`record`, which must change
   * exactly one row) in one transaction. Undefined when the lease is not free or the write was refused.
   */
  async claim(
    req: {
      key: ClaimKeyValues;
      workspaceId: string;
      holder: string;
      now: number;
      ttlMs: number;
      mode?: 'new';
    },
    record: (tx: DbExecutor, got: Extract<LeaseClaim, { acquired: true }>) => Promise<number>,
  ): Promise<Extract<LeaseClaim, { acquired: true }> | undefined> {
    const { key, ...rest } = req;
    return this.#leases.together(async (tx) => {
      const c = await this.#leases.claim({ ...this.leaseId(key), ...rest }, tx);
      return c.acquired ? c : undefined;
    }, record);
  }

  /**
   * Inserts a row; on a key already present, nothing (or, with `conflict`, sets its `update` columns to
   * the values given, only while its status is one of `whileStatus`). Returns how many rows changed.
   */
  insert(
    values: RowValues,
    opts: { tx?: DbExecutor; conflict?: { update: readonly string[]; whileStatus: readonly string[] } } = {},
  ): Promise<number> {
    const { tx = this.#db, conflict } = opts;
    const cols = Object.keys(values);
    const params = Object.values(values);
    const { table, key } = this.#spec;
    let onConflict = 'DO NOTHING';
    if (conflict) {
      const statuses = conflict.whileStatus.map((s) => {
        params.push(s);
        return `$${params.length}`;
      });
      onConflict = `DO UPDATE SET ${conflict.update.map((c) => `${c} = excluded.${c}`).join(', ')}
        WHERE ${table}.status IN (${statuses.join(', ')})`;
    }
    return tx.execute(
      `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
       ON CONFLICT (${key.join(', ')}) ${onConflict}`,
      params,
    );
  }

  /**
   * Sets `values` on the row with `key` (only while its status is one of `whileStatus`, when given), and
   * `attempts = attempts + 1` with `bumpAttempts`. Returns how many rows changed.
   */
  update(
    tx: DbExecutor,
    key: ClaimKeyValues,
    values: RowValues,
    opts: { whileStatus?: readonly string[]; bumpAttempts?: boolean } = {},
  ): Promise<number> {
    const params: SqlValue[] = [...key];
    const set = Object.entries(values).map(([c, v]) => {
      params.push(v);
      return `${c} = $${params.length}`;
    });
    if (opts.bumpAttempts) set.push('attempts = attempts + 1');
    let where = this.#keyWhere();
    if (opts.whileStatus) {
      const statuses = opts.whileStatus.map((s) => {
        params.push(s);
        return `$${params.length}`;
      });
      where += ` AND status IN (${statuses.join(', ')})`;
    }
    return tx.execute(`UPDATE ${this.#spec.table} SET ${set.join(', ')} WHERE ${where}`, params);
  }

  /**
   * A lease step by `holder` (at `fence`, when given) and the row's update commit together, or neither
   * does: false when the lease is no longer the holder's or the row was not in `whileStatus`.
   */
  async write(
    key: ClaimKeyValues,
    holder: string,
    step: LeaseStep,
    values: RowValues,
    opts: { whileStatus?: readonly string[]; fence?: number } = {},
  ): Promise<boolean> {
    const hold = { ...this.leaseId(key), holder, ...(opts.fence !== undefined ? { fence: opts.fence } : {}) };
    const done = await this.#leases.together(
      (tx) => {
        if (step.step === 'finish')
          return this.#leases.finish(
            { ...hold, now: step.now, ...(step.result !== undefined ? { result: step.result } : {}) },
            tx,
          );
        if (step.step === 'release')
          return this.#leases.release(
            { ...hold, ...(step.availableAt !== undefined ? { availableAt: step.availableAt } : {}) },
            tx,
          );
        return this.#leases.heartbeat(
          { ...hold, ...(step.expiresAt !== undefined ? { expiresAt: step.expiresAt } : {}) },
          tx,
        );
      },
      (tx) => this.update(tx, key, values, opts.whileStatus ? { whileStatus: opts.whileStatus } : {}),
    );
    return done === true;
  }

  /** Extends the row's lease (at `fence`, when given); false when it is no longer the holder's. */
  heartbeat(key: ClaimKeyValues, holder: string, expiresAt: number, fence?: number): Promise<boolean> {
    return this.#leases.heartbeat({
      ...this.leaseId(key),
      holder,
      expiresAt,
      ...(fence !== undefined ? { fence } : {}),
    });
  }

  /** Gives the row's lease up without a row write. */
  release(key: ClaimKeyValues, holder: string, fence?: number): Promise<boolean> {
    return this.#leases.release({ ...this.leaseId(key), holder, ...(fence !== undefined ? { fence } : {}) });
  }

  /**
   * Compare-and-set on the lease as a read saw it (its fence and expiry): exactly one replica wins. The
   * winner's row becomes its own (`owner`, one more attempt, and `values`), only while its status is one
   * of `whileStatus` when given.
   */
  async takeOver(
    key: ClaimKeyValues,
    seen: { fence?: number; leaseUntil?: number },
    holder: string,
    expiresAt: number,
    values: RowValues = {},
    whileStatus?: readonly string[],
  ): Promise<boolean> {
    const { fence: seenFence, leaseUntil: seenUntil } = seen;
    // A row read without a lease: nothing to take over.
    if (seenFence === undefined || seenUntil === undefined) return false;
    const fence = await this.#leases.together(
      (tx) =>
        this.#leases.takeOver(
          {
            ...this.leaseId(key),
            holder,
            expiresAt,
            seen: { fence: seenFence, expiresAt: seenUntil },
          },
          tx,
        ),
      (tx) =>
        this.update(
          tx,
          key,
          { owner: holder, ...values },
          { bumpAttempts: true, ...(whileStatus ? { whileStatus } : {}) },
        ),
    );
    return fence !== undefined;
  }

  /**
   * Rows whose lease a claim could take now (its holder let it expire, or released it and it is due) and
   * that `live` says still need work. A lease whose row is gone or needs nothing more is closed, so it
   * is not listed again.
   */
  async available(now: number, limit: number, live: (r: ClaimRow) => boolean): Promise<ClaimRow[]> {
    const out: ClaimRow[] = [];
    for (const lease of await this.#leases.available({ kind: this.#spec.kind, now, limit })) {
      const key = this.#keyOfLease(lease.key);
      const found = key && (await this.get(key));
      if (found && live(found)) out.push(found);
      else await this.#leases.abandon(lease, now);
    }
    return out;
  }

  /** Deletes the rows matching `where` (parameters from $1) and the kind's leases no longer needed before `before`. */
  async prune(before: number, where: string, params: readonly SqlValue[]): Promise<number> {
    const n = await this.#db.execute(`DELETE FROM ${this.#spec.table} WHERE ${where}`, [...params]);
    await this.#leases.prune({ kind: this.#spec.kind, before });
    return n;
  }

  /**
   * Prunes the kind's leases no longer needed before `before`, then deletes the rows matching `where` that
   * have no lease left (a row goes only once its lease has). Returns how many rows went.
   */
  async pruneUnleased(before: number, where: string, params: readonly SqlValue[]): Promise<number> {
    await this.#leases.prune({ kind: this.#spec.kind, before });
    let n = 0;
    for (const { row, lease } of await this.select(where, params))
      if (!lease)
        n += await this.#db.execute(
          `DELETE FROM ${this.#spec.table} WHERE ${this.#keyWhere()}`,
          this.#spec.key.map((c) => row[c] as SqlValue),
        );
    return n;
  }

  #keyWhere(): string {
    return this.#spec.key.map((c, i) => `${c} = $${i + 1}`).join(' AND ');
  }

  #keyOfRow(r: Row): string {
    return this.#spec.key.map((c) => String(r[c])).join('|');
  }

  /** The key values a lease key was made of; the first column takes what is left after the others. */
  #keyOfLease(leaseKey: string): string[] | undefined {
    const parts = leaseKey.split('|');
    const rest = this.#spec.key.length - 1;
    if (parts.length <= rest) return undefined;
    return [parts.slice(0, parts.length - rest).join('|'), ...parts.slice(parts.length - rest)];
  }
}
