/**
 * Opens the store: picks the engine from `database`, applies migrations (under the engine's migration
 * lock), then checks that every stored secret's key id is configured; on any failure the connection is
 * closed and the error thrown, with nothing changed but the schema.
 */
import { SecretBox, SecretError } from './crypto.ts';
import { openPostgresDb } from './db-postgres.ts';
import { openSqliteDb } from './db-sqlite.ts';
import type { EngineDb } from './engine.ts';
import { migrate } from './migrate.ts';
import { migrations as appMigrations } from './migrations/index.ts';
import { checkKeys, syncKeyTable } from './secrets.ts';
import { SqlStore } from './sql-store.ts';
import type { OpenStoreOptions, Store } from './types.ts';

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  const logger = opts.logger;
  const now = opts.now ?? Date.now;
  const list = [...appMigrations, ...(opts.extraMigrations ?? [])];
  const box = new SecretBox(opts.encryptionKeys);
  const db: EngineDb =
    opts.database.kind === 'sqlite'
      ? openSqliteDb(opts.database.path, opts.timeouts?.queryMs)
      : openPostgresDb(opts.database.url, {
          ...(logger ? { logger } : {}),
          ...(opts.poolSize ? { max: opts.poolSize } : {}),
          ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
        });
  try {
    const { applied, schemaVersion } = await migrate(db, list, logger);
    const inUse = await checkKeys(db, box);
    await syncKeyTable(db, inUse, now());
    const store = new SqlStore({ db, box, migrations: list, now, ...(logger ? { logger } : {}) });
    logger?.info(
      {
        dialect: db.dialect,
        ...(opts.database.kind === 'sqlite' ? { path: opts.database.path } : {}),
        schemaVersion,
        migrationsApplied: applied,
        currentKeyId: box.currentKeyId ?? null,
        keyIdsInUse: Object.fromEntries(inUse),
      },
      'store opened',
    );
    return store;
  } catch (err) {
    await db.close().catch(() => undefined);
    throw explain(err, opts.database);
  }
}

/** Thrown when the database cannot be reached or opened; says where (never credentials) and why. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

function explain(err: unknown, database: OpenStoreOptions['database']): unknown {
  // Our own errors (keys, migration list) already say what to do.
  if (err instanceof SecretError || !(err instanceof Error) || !('code' in err)) return err;
  if (database.kind === 'postgres') {
    const u = new URL(database.url);
    return new StoreUnavailableError(
      `Cannot open the PostgreSQL database ${u.host}${u.pathname} (DATABASE_URL): ${err.message}`,
      { cause: err },
    );
  }
  return new StoreUnavailableError(
    `Cannot open the SQLite database ${database.path} (DATABASE_URL): ${err.message}`,
    { cause: err },
  );
}
