/**
 * The SQLite engine (node:sqlite, synchronous) behind the async `Db` seam.
 *
 * Every statement of every connection to one file within this process goes through one mutex: a
 * transaction's callback is async, and a second connection blocking synchronously on the write lock would
 * stall the event loop that the first needs to finish. Other processes are kept apart by SQLite's own file
 * locks (WAL, busy_timeout, BEGIN IMMEDIATE).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type EngineDb, type MigrationSession, Mutex } from './engine.ts';
import { mappingTimeouts } from './not-answering.ts';
import type { DbExecutor, Row, SqlValue } from './types.ts';

/** How long a statement waits for another process's lock (DATABASE_QUERY_TIMEOUT_MS), default 5 s. */
const BUSY_TIMEOUT_MS = 5000;
const STATEMENT_CACHE = 256;

const fileLocks = new Map<string, { mutex: Mutex; users: number }>();
/** The file lock held by the transaction whose callback is running (to catch a self-deadlock). */
const inTransaction = new AsyncLocalStorage<Mutex>();

/** Rewrites `$1..$n` to SQLite's `?1..?n`, leaving string literals, quoted names and comments alone. */
export function rewritePlaceholders(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      out += `?${sql.slice(i + 1, j)}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function toSqlite(params: readonly SqlValue[] | undefined): SQLInputValue[] {
  if (!params) return [];
  return params.map((p) => {
    if (typeof p === 'boolean') return p ? 1 : 0;
    if (p === undefined) return null;
    return p;
  });
}

export class SqliteDb implements EngineDb {
  readonly dialect = 'sqlite' as const;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #lockKey: string;
  readonly #mutex: Mutex;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  constructor(path: string, busyTimeoutMs: number = BUSY_TIMEOUT_MS) {
    const memory = path === ':memory:';
    this.path = memory ? path : resolve(path);
    if (!memory) mkdirSync(dirname(this.path), { recursive: true });
    this.#db = new DatabaseSync(this.path);
    this.#db.exec(`PRAGMA busy_timeout = ${Math.round(busyTimeoutMs)}`);
    if (!memory) this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#lockKey = memory ? `:memory:${Math.random()}` : this.path;
    const entry = fileLocks.get(this.#lockKey) ?? { mutex: new Mutex(), users: 0 };
    entry.users++;
    fileLocks.set(this.#lockKey, entry);
    this.#mutex = entry.mutex;
  }

  #prepare(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      if (this.#statements.size >= STATEMENT_CACHE) this.#statements.clear();
      stmt = this.#db.prepare(rewritePlaceholders(sql));
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  #query<T extends Row>(sql: string, params?: readonly SqlValue[]): T[] {
    const rows = this.#prepare(sql).all(...toSqlite(params));
    return rows.map((r) => ({ ...r }) as T);
  }

  #execute(sql: string, params?: readonly SqlValue[]): number {
    return Number(this.#prepare(sql).run(...toSqlite(params)).changes);
  }

  #check(): void {
    if (this.#closed) throw new Error('The store is closed');
  }

  #enter<T>(fn: () => T | Promise<T>): Promise<T> {
    // Waiting for the lock that our own transaction holds would hang forever: fail clearly instead.
    if (inTransaction.getStore() === this.#mutex)
      return Promise.reject(
        new Error('Inside db.transaction(fn), run statements on the tx argument, not on the Db (SQLite)'),
      );
    // Another process holding the file past the busy timeout surfaces as SQLITE_BUSY: "not answering".
    return mappingTimeouts(() => this.#mutex.run(fn));
  }

  query<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.#enter(() => {
      this.#check();
      return this.#query<T>(sql, params);
    });
  }

  execute(sql: string, params?: readonly SqlValue[]): Promise<number> {
    return this.#enter(() => {
      this.#check();
      return this.#execute(sql, params);
    });
  }

  /** An executor valid only while its transaction is open. */
  #executor(isOpen: () => boolean): MigrationSession {
    const guard = () => {
      if (!isOpen()) throw new Error('Transaction already finished');
    };
    const session: MigrationSession = {
      query: async <T extends Row = Row>(sql: string, params?: readonly SqlValue[]) => {
        guard();
        return this.#query<T>(sql, params);
      },
      execute: async (sql, params) => {
        guard();
        return this.#execute(sql, params);
      },
      script: async (sql) => {
        guard();
        this.#db.exec(sql);
      },
      step: (fn) => fn(session),
    };
    return session;
  }

  #inTransaction<T>(fn: (tx: MigrationSession) => Promise<T>): Promise<T> {
    return this.#enter(async () => {
      this.#check();
      // IMMEDIATE takes the write lock up front, so two writers never deadlock upgrading a read lock.
      this.#db.exec('BEGIN IMMEDIATE');
      let open = true;
      try {
        const result = await inTransaction.run(this.#mutex, () => fn(this.#executor(() => open)));
        this.#db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
        throw err;
      } finally {
        open = false;
      }
    });
  }

  transaction<T>(fn: (tx: DbExecutor) => Promise<T>): Promise<T> {
    return this.#inTransaction(fn);
  }

  withMigrationLock<T>(fn: (session: MigrationSession) => Promise<T>): Promise<T> {
    return this.#inTransaction(fn);
  }

  close(): Promise<void> {
    return this.#mutex.run(() => {
      if (this.#closed) return;
      this.#closed = true;
      this.#statements.clear();
      this.#db.close();
      const entry = fileLocks.get(this.#lockKey);
      if (entry && --entry.users === 0) fileLocks.delete(this.#lockKey);
    });
  }
}

export function openSqliteDb(path: string, busyTimeoutMs?: number): SqliteDb {
  return new SqliteDb(path, busyTimeoutMs);
}
