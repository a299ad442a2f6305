/**
 * Slow-queue alerts (issue 28) through the real wire, on two app replicas sharing one database (SQLite, and
 * PostgreSQL with CI=true): PR transitions arrive as Trunk's signed webhooks at both replicas' routes (each
 * message to both, as Svix retrying at another replica would), the queue history keeps them, and each
 * replica evaluates the queue on every merge it learns and on its periodic pass. The channel watching the
 * queue's `health` topic hears "slow" once when the median time in queue of the last 6 h (at least 3
 * merges) is over twice the 14 days' before and over 30 min, and "no longer slow" once when it is back under
 * 1.5 times; the Home marks the queue while it is slow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../dev/fakes/trunk/index.ts';
import { defaultUsers, type Harness, TEAM, USERS } from '../helpers/app-harness.ts';
import { assertValidMessage } from '../helpers/block-kit.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { startWorld, usePostgresWorld, type World } from '../helpers/world.ts';

const SECRET = newWebhookSecret();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const pg = await usePostgresWorld('slow alerts on two replicas (PostgreSQL)', {
  slackOptions: { users: defaultUsers() },
});

function suite(name: string, world: () => World) {
  describe(name, () => {
    const clock = { now: Date.now() };
    const channel = 'C0SLOWQ001';
    const repo = { host: 'github.com', owner: 'acme', name: 'slowq' };
    let a: Harness;
    let b: Harness;

    beforeAll(async () => {
      const opts = {
        env: { TRUNK_WEBHOOK_SECRET: SECRET, DEFAULT_REPO: undefined },
        app: { clock: () => clock.now },
      };
      a = await world().replica(opts);
      b = await world().replica(opts);
      world().trunk.addQueue('acme/slowq', 'main', { state: 'running' });
      for (const h of [a, b]) world().trunk.webhooks.subscribe(`${h.url}/trunk/webhooks/${TEAM}`, SECRET);
      const sent = await a.sendCommand('watch acme/slowq:main health', { channel, user: USERS.admin });
      expect(textOf(await a.reply(sent.responseUrl))).toContain('acme/slowq');
    }, 60_000);

    /** Sends one transition of a PR as Trunk's webhook, stamped `at`. */
    function send(action: 'submitted' | 'merged', pr: number, at: number) {
      world().trunk.webhooks.deliver(`pull_request.${action}`, {
        action,
        status: action,
        author: 'octocat',
        pr_number: pr,
        repository: repo,
        target_branch: 'main',
        timestamp: new Date(at).toISOString(),
      });
    }
    async function settle() {
      await world().trunk.webhooks.settled();
      for (const h of [a, b]) {
        await h.app!.webhooks.idle();
        await h.app!.slow.settled();
        await h.app!.events!.watch.watcher.settled();
      }
    }
    /** A PR that entered at `from` and merged `stayMs` later. */
    async function stay(pr: number, from: number, stayMs: number) {
      send('submitted', pr, from);
      await settle();
      send('merged', pr, from + stayMs);
      await settle();
    }
    const alerts = () =>
      world()
        .slack.channelMessages(channel)
        .map((m) => textOf(m))
        .filter((t) => /is (no longer )?slow/.test(t));

    it('enters once, with the figures, when the last 6 h are over twice the 14 days before and over 30 min', async () => {
      const t = clock.now;
      // The 14 days before: six PRs of 10 minutes each.
      for (let i = 1; i <= 6; i++) await stay(100 + i, t - (1 + i) * DAY, 10 * MIN);
      expect(alerts()).toEqual([]);
      // The last 6 h: two merges of two hours are not enough to judge…
      await stay(201, t - 3 * HOUR, 2 * HOUR);
      await stay(202, t - 3 * HOUR + MIN, 2 * HOUR);
      expect(alerts()).toEqual([]);
      // …the third is.
      await stay(203, t - 3 * HOUR + 2 * MIN, 2 * HOUR);
      const entered = await world().slack.waitFor(() => alerts()[0]);
      expect(entered).toContain('acme/slowq:main');
      expect(entered).toContain('is slow');
      expect(entered).toContain('2 h over the last 6 h (3 PRs merged)');
      expect(entered).toContain('10 min over the 14 days before (6 PRs)');
      for (const m of world().slack.channelMessages(channel)) assertValidMessage(m.blocks);

      // Both replicas' periodic passes, racing, and more merges of the same kind say nothing more.
      await Promise.all([a.app!.slow.tick(), b.app!.slow.tick(), a.app!.slow.tick(), b.app!.slow.tick()]);
      await stay(204, t - 2 * HOUR, 2 * HOUR);
      await settle();
      expect(alerts()).toHaveLength(1);
    });

    it('shows the slow queue on the Home', async () => {
      const home = await a.openHome(USERS.member);
      const text = textOf({ blocks: home.view['blocks'] as unknown[] });
      expect(text).toContain('acme/slowq:main');
      expect(text).toMatch(/Slow\* since .*median time in queue 2 h over the last 6 h, usually 10 min/);
    });

    it('leaves once when the last 6 h are back under 1.5 times the 14 days before', async () => {
      clock.now += 8 * HOUR;
      const t = clock.now;
      await stay(301, t - 30 * MIN, 5 * MIN);
      await stay(302, t - 29 * MIN, 5 * MIN);
      expect(alerts()).toHaveLength(1);
      await stay(303, t - 28 * MIN, 5 * MIN);
      const left = await world().slack.waitFor(() => alerts()[1]);
      expect(left).toContain('acme/slowq:main is no longer slow');
      expect(left).toContain('5 min over the last 6 h (3 PRs merged)');
      await Promise.all([a.app!.slow.tick(), b.app!.slow.tick()]);
      await settle();
      expect(alerts()).toHaveLength(2);
      const home = await a.openHome(USERS.member);
      expect(textOf({ blocks: home.view['blocks'] as unknown[] })).not.toContain('Slow*');
    });
  });
}

let sqlite: World;
beforeAll(async () => {
  sqlite = await startWorld({ slackOptions: { users: defaultUsers() } });
}, 60_000);
afterAll(async () => {
  await sqlite?.close();
}, 60_000);

suite('slow alerts on two replicas (SQLite)', () => sqlite);
describe.skipIf(!pg.enabled)('on PostgreSQL', () => {
  suite('slow alerts on two replicas (PostgreSQL)', () => pg.world);
});
