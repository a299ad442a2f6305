/**
 * Exactly once across processes: real app processes (`node src/main.ts`, via the app harness) sharing one
 * PostgreSQL database, the Trunk and Slack fakes on loopback, and a shifted clock (handed to createApp by
 * the test entry test/helpers/app-process.ts) so an occurrence falls due seconds after start.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, SlackFake } from '../../dev/fakes/slack/server.ts';
import type { TrunkFake, WireFailingTest } from '../../dev/fakes/trunk/index.ts';
import { ClaimRepository } from '../../src/digest/claims.ts';
import { SubscriptionRepository } from '../../src/digest/repository.ts';
import type { Store } from '../../src/store/types.ts';
import { defaultUsers, type Harness, TEAM, TRUNK_TOKEN, USERS } from '../helpers/app-harness.ts';
import type { AppProcessSeams } from '../helpers/app-process.ts';
import { botPosts } from '../helpers/slack-posts.ts';
import { usePostgresWorld } from '../helpers/world.ts';

const pg = await usePostgresWorld('digest replicas (PostgreSQL)', {
  slackOptions: { users: defaultUsers() },
  trunkTokens: [TRUNK_TOKEN],
});
const enabled = pg.enabled;
const MINUTE = 60_000;

let store: Store;
let slack: SlackFake;
let trunk: TrunkFake;

beforeAll(() => {
  if (!enabled) return;
  ({ store, slack, trunk } = pg.world);
});

function failingTests(n: number, due: number, prefix: string): Partial<WireFailingTest>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    name: `${prefix} ${i}`,
    pull_requests_impacted_last_7d: n - i,
    status: { reason: 'failed', timestamp: new Date(due - (i + 1) * MINUTE).toISOString() },
  }));
}

/** A whole minute at least `leadMs` ahead, and the clock offset that makes it `inMs` away for the children. */
function dueSoon(leadMs: number, inMs: number) {
  const due = Math.ceil((Date.now() + leadMs) / MINUTE) * MINUTE;
  return { due, offset: due - Date.now() - inMs };
}

function app(offset: number, seams: AppProcessSeams = {}): Promise<Harness> {
  return pg.world.replica({
    process: true,
    seams: { clockOffsetMs: offset, digestTickCron: '* * * * * *', digestLeaseMs: 3000, ...seams },
    env: { SCHEDULER_ENABLED: 'true', LOG_LEVEL: 'info', DEFAULT_REPO: 'acme/web:main' },
  });
}

function byChannel(prefix: string): Map<string, FakeMessage[]> {
  const out = new Map<string, FakeMessage[]>();
  for (const m of slack.messages) {
    if (m.via !== 'api' || !m.channel.startsWith(prefix)) continue;
    out.set(m.channel, [...(out.get(m.channel) ?? []), m]);
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!enabled)('digests across replicas on one PostgreSQL', () => {
  it('three app processes, 40 digests due at once: each posted exactly once', async () => {
    const { due, offset } = dueSoon(2 * MINUTE, 12_000);
    const minuteOfDay = new Date(due).getUTCHours() * 60 + new Date(due).getUTCMinutes();
    const hhmm = `${String(Math.floor(minuteOfDay / 60)).padStart(2, '0')}:${String(minuteOfDay % 60).padStart(2, '0')}`;
    trunk.setFailingTests('acme/web', failingTests(15, due, 'fan'));
    const apps = await Promise.all([app(offset), app(offset), app(offset)]);

    // One through the real slash command…
    const sent = await apps[0]!.sendCommand(`digest add failing acme/web ${hhmm} UTC daily`, {
      user: USERS.admin,
      channel: 'CFAN000',
    });
    expect(sent.status).toBe(200);
    const answer = await apps[0]!.reply(sent.responseUrl);
    expect(String(answer['text'])).toMatch(/^Added digest `d[a-z0-9]{5}`/);
    // …and the rest straight into the database.
    const subs = new SubscriptionRepository(store.db);
    for (let i = 1; i < 40; i++) {
      await subs.insert({
        workspaceId: TEAM,
        channelId: `CFAN${String(i).padStart(3, '0')}`,
        kind: 'failing',
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        minuteOfDay,
        tz: 'UTC',
        days: 'daily',
        skipEmpty: true,
        topN: 10,
        createdBy: USERS.admin,
        createdAt: due - 60 * MINUTE,
        nextDueAt: due,
      });
    }
    await slack.waitFor(() => [...byChannel('CFAN').values()].flat().length >= 80, 60_000);
    await sleep(3_000); // any duplicate would arrive meanwhile
    const channels = byChannel('CFAN');
    expect(channels.size).toBe(40);
    for (const [channel, msgs] of channels) {
      expect(msgs, channel).toHaveLength(2);
      expect(msgs[1]!.threadTs, channel).toBe(msgs[0]!.ts);
    }
    const claims = new ClaimRepository(store);
    const owners = new Set<string>();
    for (const sub of await subs.list(TEAM)) {
      const runs = await claims.listFor(sub.id);
      expect(runs.map((r) => [r.scheduledAt, r.outcome, r.postedCount])).toEqual([[due, 'posted', 2]]);
      owners.add(runs[0]!.owner);
      await subs.remove(TEAM, sub.id);
    }
    console.log(`fan-out: 40 digests claimed by ${owners.size} of 3 replicas`);
    for (const h of apps) await h.close();
  }, 120_000);

  it('a process killed with SIGKILL mid-digest: another finishes it, nothing posted twice', async () => {
    const { due, offset } = dueSoon(2 * MINUTE, 4_000);
    // A repository of its own: digests of one repository due in the same minute share one collection
    // (issue 12), and the first test's minute may be this one.
    trunk.setFailingTests('acme/kill', failingTests(60, due, 'kill'));
    const subs = new SubscriptionRepository(store.db);
    const sub = await subs.insert({
      workspaceId: TEAM,
      channelId: 'CKILL01',
      kind: 'failing',
      repo: { host: 'github.com', owner: 'acme', name: 'kill' },
      minuteOfDay: new Date(due).getUTCHours() * 60 + new Date(due).getUTCMinutes(),
      tz: 'UTC',
      days: 'daily',
      skipEmpty: true,
      topN: 50,
      createdBy: USERS.admin,
      createdAt: due - 60 * MINUTE,
      nextDueAt: due,
    });
    const victim = await app(offset, { digestPaceMs: 1500 });
    const channel = () => botPosts(slack, 'CKILL01');
    await slack.waitFor(() => channel().length >= 2, 30_000);
    await sleep(500); // between two paced messages: the record of the second is written
    victim.child!.child.kill('SIGKILL');
    await victim.child!.exited;
    const before = channel().length;
    expect(before).toBeGreaterThanOrEqual(2);
    expect(before).toBeLessThan(6);
    const claims = new ClaimRepository(store);
    expect((await claims.get({ subscriptionId: sub.id, scheduledAt: due }))?.status).toBe('running');

    await app(offset);
    await slack.waitFor(() => channel().length >= 6, 30_000);
    await sleep(3_000);
    const posted = channel();
    expect(posted).toHaveLength(6);
    expect(new Set(posted.map((m) => m.text)).size).toBe(6);
    expect(posted.filter((m) => !m.threadTs)).toHaveLength(1);
    for (const m of posted.slice(1)) expect(m.threadTs).toBe(posted[0]!.ts);
    expect(await claims.get({ subscriptionId: sub.id, scheduledAt: due })).toMatchObject({
      status: 'done',
      outcome: 'posted',
      postedCount: 6,
      attempts: 2,
    });
  }, 120_000);
});
