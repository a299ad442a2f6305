/**
 * Forward-only schema migrations, applied at start-up under the engine's migration lock, so replicas
 * starting together against one PostgreSQL apply each migration exactly once (the others wait, then find
 * nothing left to do).
 */
import type { Logger } from '../observability/log.ts';
import type { EngineDb } from './engine.ts';
import type { Migration } from './types.ts';

export interface MigrateResult {
  applied: number[];
  /** Highest migration id recorded in the database. */
  schemaVersion: number;
}

/** Throws unless ids are positive integers in strictly increasing order with non-empty names. */
export function checkMigrationList(list: readonly Migration[]): void {
  let last = 0;
  for (const m of list) {
    if (!Number.isInteger(m.id) || m.id <= last)
      throw new Error(
        `Migration ${m.id} (${m.name}) is out of order: ids must increase (previous ${last}). Append new migrations at the end of migrations/index.ts.`,
      );
    if (!m.name) throw new Error(`Migration ${m.id} has no name`);
    last = m.id;
  }
}

export async function migrate(
  db: EngineDb,
  list: readonly Migration[],
  logger?: Logger,
): Promise<MigrateResult> {
  checkMigrationList(list);
  return db.withMigrationLock(async (session) => {
    await session.script(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const rows = await session.query<{ id: number }>('SELECT id FROM schema_migrations');
    const done = new Set(rows.map((r) => Number(r.id)));
    const applied: number[] = [];
    for (const m of list) {
      if (done.has(m.id)) continue;
      await session.step(async (tx) => {
        await tx.script(db.dialect === 'postgres' ? m.postgres : m.sqlite);
        await tx.execute('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
          m.id,
          m.name,
          Date.now(),
        ]);
      });
      applied.push(m.id);
      logger?.info({ migration: m.id, name: m.name, dialect: db.dialect }, 'store migration applied');
    }
    const known = new Set(list.map((m) => m.id));
    const unknown = [...done].filter((id) => !known.has(id));
    if (unknown.length > 0)
      // A newer release already migrated this database (rolling deploy): its steps are additive, carry on.
      logger?.warn({ unknownMigrations: unknown }, 'database has migrations this version does not know');
    const max = await session.query<{ v: number | null }>('SELECT MAX(id) AS v FROM schema_migrations');
    return { applied, schemaVersion: Number(max[0]?.v ?? 0) };
  });
}
