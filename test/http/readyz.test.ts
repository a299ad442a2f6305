/**
 * /readyz is usually reachable from outside: when the store fails it answers a fixed body, and the
 * database's own words (host, port, user name, driver message) go to the log only.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/log.ts';
import { type Harness, startHarness } from '../helpers/app-harness.ts';
import { createPgTestDatabase, PG_ADMIN_URL, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';

const enabled = await pgTestsEnabled('readyz with PostgreSQL');
const ROLE = `mq_ready_${randomBytes(4).toString('hex')}`;
let db: PgTestDatabase;
let h: Harness;
const logged: string[] = [];

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  if (!enabled) return;
  db = await createPgTestDatabase();
  await admin(`CREATE ROLE ${ROLE} LOGIN`);
  await admin(`ALTER DATABASE ${db.name} OWNER TO ${ROLE}`);
  const url = new URL(db.url);
  url.username = ROLE;
  url.hostname = 'localhost';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logged.push(chunk.toString());
      cb();
    },
  });
  h = await startHarness({
    env: { DATABASE_URL: url.toString() },
    app: { logger: createLogger('info', stream) },
  });
});

afterAll(async () => {
  await h?.close();
  if (!enabled) return;
  await db?.drop();
  await admin(`DROP ROLE IF EXISTS ${ROLE}`);
});

describe.runIf(enabled)('/readyz', () => {
  it('answers a fixed body while the database refuses us; the reason goes to the log only', async () => {
    const ok = await fetch(`${h.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'ready' });

    // The database now refuses this user, and its open connections are cut.
    await admin(`ALTER ROLE ${ROLE} NOLOGIN`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${ROLE}'`);

    await expect
      .poll(async () => (await fetch(`${h.url}/readyz`)).status, { interval: 100, timeout: 10_000 })
      .toBe(503);
    const res = await fetch(`${h.url}/readyz`);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'not_ready' });
    for (const internal of [ROLE, 'localhost', '5432', db.name, 'not permitted', 'ECONN'])
      expect(text).not.toContain(internal);

    // The operator still learns why, from the log.
    await expect.poll(() => logged.join('').includes(ROLE), { timeout: 5_000 }).toBe(true);
    expect(logged.join('')).toMatch(/"msg":"not ready"/);
  }, 30_000);
});
