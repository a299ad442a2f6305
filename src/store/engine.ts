/** What migrate.ts needs from an engine beyond the portable `Db` seam. Internal to store/. */
import type { Db, DbExecutor } from './types.ts';

export interface MigrationSession extends DbExecutor {
  /** Runs a multi-statement script (a migration body). */
  script(sql: string): Promise<void>;
  /** Runs one migration step atomically (its own transaction on PostgreSQL; SQLite's session is one already). */
  step<T>(fn: (tx: MigrationSession) => Promise<T>): Promise<T>;
}

export interface EngineDb extends Db {
  /**
   * Runs fn while holding the engine's cross-process migration lock: a session-level advisory lock on one
   * PostgreSQL connection, or `BEGIN IMMEDIATE` (the write lock) on SQLite.
   */
  withMigrationLock<T>(fn: (session: MigrationSession) => Promise<T>): Promise<T>;
}

/** Serialises async work (one SQLite connection must not interleave a transaction with other statements). */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
