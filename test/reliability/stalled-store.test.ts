/**
 * A stalled database is a visible error, not a hang. PostgreSQL is reached through a TCP proxy written
 * here that can be frozen (it stops forwarding in both directions, as a dead network or a stuck server
 * looks to the app); SQLite is held by another connection past its busy timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';

interface FreezableProxy {
  port: number;
  frozen: boolean;
  close(): Promise<void>;
}

/** Forwards TCP to `target`; while `frozen` every byte either way is swallowed (nothing errors). */
async function freezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  const sockets = new Set<Socket>();
  const proxy = { frozen: false } as FreezableProxy;
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => {
      if (!proxy.frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!proxy.frozen) client.write(d);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.port = (server.address() as { port: number }).port;
  proxy.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return proxy;
}

const runPg = await pgTestsEnabled('stalled-store (PostgreSQL)');

describe.runIf(runPg)('PostgreSQL behind a proxy that stops forwarding', () => {
  let db: PgTestDatabase;
  let proxy: FreezableProxy;
  let h: Harness;

  beforeAll(async () => {
    db = await createPgTestDatabase();
    const url = new URL(db.url);
    proxy = await freezableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    h = await startHarness({
      env: {
        DATABASE_URL: url.toString(),
        DATABASE_QUERY_TIMEOUT_MS: '1000',
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        SHUTDOWN_TIMEOUT_MS: '5000',
      },
    });
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  });
  afterAll(async () => {
    if (proxy) proxy.frozen = false;
    await h?.close();
    await proxy?.close();
    await db?.drop();
  });

  it('a command is answered "the store is not answering" within a few seconds; shutdown abandons nothing', async () => {
    // Warm: the pool holds connections through the proxy.
    const ok = await h.sendCommand('pause acme/web:main', { user: USERS.admin });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0] ?? h.replies(ok.responseUrl)[0]);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');

    proxy.frozen = true;
    const t0 = Date.now();
    // `status` with no target reads the channel's default queue from the store first.
    const sent = await h.sendCommand('status', { user: USERS.admin });
    expect(sent.status).toBe(200);
    const reply = await h.reply(sent.responseUrl, 8_000);
    const took = Date.now() - t0;
    expect(textOf(reply)).toMatch(/store .*not answering/i);
    expect(textOf(reply)).toMatch(/try again in a minute/i);
    expect(took).toBeLessThan(5_000);

    // While still frozen, shutdown finds no work left behind.
    const shutdown = await h.app!.stop();
    expect(shutdown.abandoned).toBe(0);
  });
});

describe('SQLite locked by another process past its busy timeout', () => {
  let h: Harness;
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mq-busy-'));
    path = join(dir, 'mq.db');
    h = await startHarness({ env: { DATABASE_URL: `sqlite:${path}`, DATABASE_QUERY_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a write that cannot get the lock answers "the store is not answering"', async () => {
    const other = new DatabaseSync(path);
    other.exec('BEGIN EXCLUSIVE');
    try {
      const sent = await h.sendCommand('config channel acme/api:main', { user: USERS.admin });
      const reply = await h.reply(sent.responseUrl, 5_000);
      expect(textOf(reply)).toMatch(/store .*not answering/i);
      expect(textOf(reply)).not.toMatch(/went wrong/i);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    await h.idle();
    // With the lock gone the same command works.
    const again = await h.sendCommand('config channel acme/api:main', { user: USERS.admin });
    expect(textOf(await h.reply(again.responseUrl))).not.toMatch(/not answering/i);
  });
});
