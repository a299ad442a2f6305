/**
 * A fresh PostgreSQL database per test file (other helpers' suites run at the same time on the same
 * server). With CI=true PostgreSQL is required; elsewhere suites may skip with a visible notice.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface PgTestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createPgTestDatabase(): Promise<PgTestDatabase> {
  const name = `mq_${randomBytes(6).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Whether PostgreSQL tests should run. Under CI they always run (and fail loudly if the server is down);
 * elsewhere an unreachable server skips them with a console notice.
 */
export async function pgTestsEnabled(suite: string): Promise<boolean> {
  if (process.env.CI === 'true' || process.env.CI === '1') return true;
  try {
    await withAdmin((c) => c.query('SELECT 1'));
    return true;
  } catch (err) {
    console.warn(
      `\n*** SKIPPING ${suite}: PostgreSQL is unreachable at ${new URL(PG_ADMIN_URL).host} (${(err as Error).message}). Set CI=true to make this a failure.\n`,
    );
    return false;
  }
}
