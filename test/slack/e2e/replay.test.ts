/**
 * A signed request captured on the way (a proxy's body log, say) and sent again within its five minutes
 * does nothing: 401, counted, no Trunk call; also when the copy reaches another replica sharing the
 * PostgreSQL database.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackFake } from '../../../dev/fakes/slack/server.ts';
import { signedHeaders, slashCommandBody } from '../../../dev/fakes/slack/signing.ts';
import { startTrunkFake } from '../../../dev/fakes/trunk/index.ts';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  startHarness,
  TEAM,
  TRUNK_TOKEN,
  USERS,
} from '../../helpers/app-harness.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../../helpers/pg.ts';

/** One signed `/mergequeue pause` exactly as Slack sent it: body and headers, ready to be sent again. */
function capturedPause(h: Harness, signingSecret: string) {
  const body = slashCommandBody({
    teamId: TEAM,
    userId: USERS.admin,
    channelId: CHANNEL,
    text: 'pause acme/web:main captured',
    responseUrl: h.slack.responseUrl({ channel: CHANNEL, user: USERS.admin }),
  });
  return { body, headers: signedHeaders(signingSecret, body) };
}

async function send(url: string, req: { body: string; headers: Record<string, string> }) {
  const res = await fetch(`${url}/slack/events`, { method: 'POST', headers: req.headers, body: req.body });
  return { status: res.status, text: await res.text() };
}

async function replayCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^mergequeue_replayed_requests_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

describe('one app (SQLite)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  });
  afterAll(async () => h?.close());

  it('the same signed command sent twice: the second is refused with 401 and changes nothing', async () => {
    const captured = capturedPause(h, h.signingSecret);
    const first = await send(h.url, captured);
    expect(first.status).toBe(200);
    await h.slack.waitFor(() => (h.trunk.queue('acme/web', 'main')!.state === 'paused' ? true : undefined));
    await h.idle();
    // Someone resumes; the captured pause must not pause the queue again.
    h.trunk.patchQueue('acme/web', 'main', { state: 'running' });

    const replay = await send(h.url, captured);
    expect(replay.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(await replayCount(h.url)).toBe(1);

    // A new request for the same thing (a new signature) is served as usual.
    const again = await h.sendCommand('pause acme/web:main again', { user: USERS.admin });
    expect(again.status).toBe(200);
    await h.slack.waitFor(() => (h.trunk.queue('acme/web', 'main')!.state === 'paused' ? true : undefined));
  });

  it('a forged copy is refused by the signature check and does not use up the real one', async () => {
    const real = capturedPause(h, h.signingSecret);
    const forged = { body: real.body, headers: signedHeaders('not-the-secret', real.body) };
    expect((await send(h.url, forged)).status).toBe(401);
    h.trunk.patchQueue('acme/web', 'main', { state: 'running' });
    h.trunk.clearRequests();
    expect((await send(h.url, real)).status).toBe(200);
    await h.slack.waitFor(() => h.trunkCalls('updateQueue')[0]);
  });
});

/** POST with the path sent exactly as written (fetch would resolve `./` and drop a fragment first). */
function sendRaw(url: string, path: string, req: { body: string; headers: Record<string, string> }) {
  return new Promise<number>((resolve, reject) => {
    const r = request(`${url}${path}`, { method: 'POST', path, headers: req.headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

describe('paths Bolt reads as /slack/events', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  });
  afterAll(async () => h?.close());

  it('a replay sent to /slack/./events or /slack/events#x is refused like one to /slack/events', async () => {
    const captured = capturedPause(h, h.signingSecret);
    expect(await sendRaw(h.url, '/slack/events', captured)).toBe(200);
    await h.slack.waitFor(() => (h.trunk.queue('acme/web', 'main')!.state === 'paused' ? true : undefined));
    await h.idle();
    h.trunk.patchQueue('acme/web', 'main', { state: 'running' });

    expect(await sendRaw(h.url, '/slack/./events', captured)).toBe(401);
    expect(await sendRaw(h.url, '/slack/events#again', captured)).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(await replayCount(h.url)).toBe(2);
  });
});

const pgEnabled = await pgTestsEnabled('replay across replicas');

describe.runIf(pgEnabled)('two replicas sharing PostgreSQL', () => {
  let db: PgTestDatabase;
  const apps: Harness[] = [];
  beforeAll(async () => {
    db = await createPgTestDatabase();
    const slack = await startSlackFake({ users: defaultUsers() });
    const trunk = await startTrunkFake({ tokens: [TRUNK_TOKEN] });
    trunk.addQueue('acme/web', 'main', { state: 'running' });
    const env = { DATABASE_URL: db.url, SLACK_SIGNING_SECRET: randomBytes(16).toString('hex') };
    // One after the other: the first applies the migrations.
    apps.push(await startHarness({ slack, trunk, env }));
    apps.push(await startHarness({ slack, trunk, env }));
  }, 30_000);
  afterAll(async () => {
    for (const a of apps) await a.close();
    await apps[0]?.slack.close();
    await apps[0]?.trunk.close();
    await db?.drop();
  });

  it('a request accepted by one replica is refused by the other', async () => {
    const [a, b] = apps as [Harness, Harness];
    const captured = capturedPause(a, a.env['SLACK_SIGNING_SECRET']!);
    expect((await send(a.url, captured)).status).toBe(200);
    await a.slack.waitFor(() => (a.trunk.queue('acme/web', 'main')!.state === 'paused' ? true : undefined));
    a.trunk.patchQueue('acme/web', 'main', { state: 'running' });

    expect((await send(b.url, captured)).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    await a.idle();
    await b.idle();
    expect(a.trunkCalls('updateQueue')).toHaveLength(1);
    expect(a.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(await replayCount(b.url)).toBe(1);
    expect(await replayCount(a.url)).toBe(0);
  });
});
