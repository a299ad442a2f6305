/**
 * The PostgreSQL engine (pg Pool) behind the async `Db` seam. BIGINT (int8) columns come back as JS
 * numbers through a type parser set on this pool only, so epoch milliseconds read the same as on SQLite.
 */
import pg from 'pg';
import type { Logger } from '../observability/log.ts';
import type { EngineDb, MigrationSession } from './engine.ts';
import { mappingTimeouts } from './not-answering.ts';
import type { DbExecutor, Row, SqlValue } from './types.ts';

const INT8_OID = 20;
/** pg_advisory_lock key for schema migrations ("mqmigrat" as an int64). */
const MIGRATION_LOCK_KEY = '7885124563765862772';

const poolTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') {
      return (value: string) => {
        const n = Number(value);
        if (!Number.isSafeInteger(n))
          throw new RangeError(`BIGINT value ${value} exceeds JavaScript's safe range`);
        return n;
      };
    }
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads do not accept a union format
    return pg.types.getTypeParser(oid, format as any);
  },
};

function toPg(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((p) => {
    if (typeof p === 'boolean') return p ? 1 : 0;
    if (typeof p === 'bigint') return p.toString();
    if (p instanceof Uint8Array && !Buffer.isBuffer(p)) return Buffer.from(p);
    if (p === undefined) return null;
    return p;
  });
}

function executor(client: pg.Pool | pg.PoolClient): MigrationSession {
  const session: MigrationSession = {
    async query<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      const res = await client.query(sql, toPg(params));
      return res.rows as T[];
    },
    async execute(sql, params) {
      const res = await client.query(sql, toPg(params));
      return res.rowCount ?? 0;
    },
    async script(sql) {
      // No parameters: the simple query protocol, which runs several statements.
      await client.query(sql);
    },
    step: (fn) => runInTransaction(client as pg.PoolClient, fn),
  };
  return session;
}

/** Connections whose ROLLBACK failed: released as broken so the pool discards them. */
const brokenClients = new WeakSet<pg.PoolClient>();

async function runInTransaction<T>(
  client: pg.PoolClient,
  fn: (tx: MigrationSession) => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn(executor(client));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is in an unknown state: the caller discards it.
    await client.query('ROLLBACK').catch(() => brokenClients.add(client));
    throw err;
  }
}

export interface PostgresOptions {
  logger?: Logger;
  max?: number;
  timeouts?: { connectMs: number; queryMs: number };
}

/**
 * A stalled server or network must end in an error the person sees, not a request that hangs: a bound on
 * connecting, on each query (client side, which also covers a dead network) and each statement (server
 * side), sessions idle inside a transaction are cut, and TCP keepalive notices a silently dropped peer.
 */
function timeoutOptions(t: { connectMs: number; queryMs: number }): pg.PoolConfig {
  return {
    connectionTimeoutMillis: t.connectMs,
    query_timeout: t.queryMs,
    statement_timeout: t.queryMs,
    idle_in_transaction_session_timeout: 2 * t.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

export class PostgresDb implements EngineDb {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  readonly #exec: MigrationSession;

  constructor(url: string, opts: PostgresOptions = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: opts.max ?? 10,
      types: poolTypes,
      ...timeoutOptions(opts.timeouts ?? { connectMs: 5_000, queryMs: 5_000 }),
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', (err) =>
      opts.logger?.warn({ err: { message: err.message } }, 'postgres idle client error'),
    );
    this.#exec = executor(this.pool);
  }

  query<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return mappingTimeouts(() => this.#exec.query<T>(sql, params));
  }

  execute(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return mappingTimeouts(() => this.#exec.execute(sql, params));
  }

  transaction<T>(fn: (tx: DbExecutor) => Promise<T>): Promise<T> {
    return mappingTimeouts(async () => {
      const client = await this.pool.connect();
      try {
        return await runInTransaction(client, fn);
      } finally {
        client.release(brokenClients.has(client) ? new Error('rollback failed') : undefined);
      }
    });
  }

  async withMigrationLock<T>(fn: (session: MigrationSession) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      // Session-level: held across the several transactions of the migration run, on this one connection;
      // released explicitly, or by PostgreSQL if the connection dies.
      await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
      try {
        return await fn(executor(client));
      } finally {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export function openPostgresDb(url: string, opts: PostgresOptions = {}): PostgresDb {
  return new PostgresDb(url, opts);
}
