/**
 * Health digests (issue 28) through the real wire, on three app replicas sharing one database (SQLite, and
 * PostgreSQL with CI=true): `/mergequeue digest add health …` as a signed command, the queue's history made
 * from Trunk's signed webhooks, and every replica's digest scheduler ticking at the occurrence on one moved
 * clock. The digest posts once, with the figures of its window beside the window before (nearest-rank
 * percentiles of the PRs whose whole stay is known); a private channel's digest is not listed to others.
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
/** Monday 23 November 2026, 09:00 in Paris. */
const DUE = Date.parse('2026-11-23T08:00:00Z');
const SECRET_CHANNEL = 'C0HSECRET1';
const pg = await usePostgresWorld('health digests on three replicas (PostgreSQL)', {
  slackOptions: {
    users: defaultUsers(),
    channels: [{ id: SECRET_CHANNEL, name: 'secret', isPrivate: true, members: [USERS.admin] }],
  },
});

function suite(name: string, world: () => World) {
  describe(name, () => {
    const clock = { now: DUE - 20 * HOUR };
    const channel = 'C0HEALTH01';
    let apps: Harness[];

    beforeAll(async () => {
      const opts = { env: { TRUNK_WEBHOOK_SECRET: SECRET }, app: { clock: () => clock.now } };
      apps = [await world().replica(opts), await world().replica(opts), await world().replica(opts)];
      world().trunk.addQueue('acme/web', 'main', { state: 'running' });
      world().trunk.webhooks.subscribe(`${apps[0]!.url}/trunk/webhooks/${TEAM}`, SECRET);
      // The app keeps the history of the queues it follows: this one is followed by a channel's feed.
      const sent = await apps[0]!.sendCommand('watch acme/web:main health', {
        user: USERS.admin,
        channel: 'C0FEED0001',
      });
      await apps[0]!.reply(sent.responseUrl);
    }, 60_000);

    async function command(text: string, user: string, where: string) {
      const sent = await apps[1]!.sendCommand(text, { user, channel: where });
      expect(sent.status).toBe(200);
      return textOf(await apps[1]!.reply(sent.responseUrl));
    }
    function send(action: 'submitted' | 'merged' | 'failed', pr: number, at: number) {
      world().trunk.webhooks.deliver(`pull_request.${action}`, {
        action,
        status: action,
        author: 'octocat',
        pr_number: pr,
        repository: { host: 'github.com', owner: 'acme', name: 'web' },
        target_branch: 'main',
        timestamp: new Date(at).toISOString(),
      });
    }
    async function settle() {
      await world().trunk.webhooks.settled();
      await apps[0]!.app!.webhooks.idle();
    }
    async function stay(pr: number, from: number, ms: number, end: 'merged' | 'failed' = 'merged') {
      send('submitted', pr, from);
      await settle();
      send(end, pr, from + ms);
      await settle();
    }
    const digests = () =>
      world()
        .slack.channelMessages(channel)
        .filter((m) => textOf(m).includes('Queue health'));

    it('posts once across three replicas, with the week beside the week before', async () => {
      const added = await command(
        'digest add health acme/web:main 09:00 Europe/Paris weekly',
        USERS.admin,
        channel,
      );
      expect(added).toMatch(
        /Added digest `d[a-z0-9]{5}`: the health of queue `acme\/web:main` \(the last 7 days/,
      );
      expect(added).toContain('on Mondays at 09:00 Europe/Paris');

      // The week before the occurrence: four merged (10, 20, 30, 40 min in the queue) and one kicked.
      const week = DUE - 7 * DAY;
      for (const [i, minutes] of [10, 20, 30, 40].entries())
        await stay(10 + i, week + (i + 1) * DAY, minutes * MIN);
      await stay(20, week + 5 * DAY, 15 * MIN, 'failed');
      // The week before that: two merged (1 h and 2 h).
      await stay(30, week - 5 * DAY, HOUR);
      await stay(31, week - 4 * DAY, 2 * HOUR);

      // Not due yet: nothing.
      clock.now = DUE - MIN;
      await Promise.all(apps.map((h) => h.app!.digests!.tick()));
      expect(digests()).toHaveLength(0);

      clock.now = DUE + 20_000;
      await Promise.all(apps.map((h) => h.app!.digests!.tick()));
      await Promise.all(apps.map((h) => h.app!.digests!.idle()));
      await Promise.all(apps.map((h) => h.app!.digests!.tick()));
      await Promise.all(apps.map((h) => h.app!.digests!.idle()));
      const posted = digests();
      expect(posted).toHaveLength(1);
      assertValidMessage(posted[0]!.blocks);
      const text = textOf(posted[0]!);
      expect(text).toContain('Queue health · acme/web:main');
      expect(text).toContain('over the last 7 days');
      expect(text).toContain('*Merged:* 4 (+100%) · before: 2');
      expect(text).toContain('*Kicked:* 1 · kick rate 20% · before: 0');
      expect(text).toContain('*Time in queue:* p50 20 min · p90 40 min · before: p50 1 h, p90 2 h');
      // The two charts, as stats draws them.
      const charts = (posted[0]!.blocks as Array<{ type: string }>).filter(
        (b) => b.type === 'data_visualization',
      );
      expect(charts).toHaveLength(2);
    });

    it('posts the same digest without its charts when Slack refuses them', async () => {
      const added = await command(
        'digest add health acme/web:main 09:00 Europe/Paris weekly',
        USERS.admin,
        'C0HEALTH02',
      );
      const id = /`(d[a-z0-9]{5})`/.exec(added)![1]!;
      world().slack.refuseBlocks('data_visualization', 1);
      expect(await apps[2]!.app!.digests!.runNow(TEAM, id)).toMatchObject({ outcome: 'posted' });
      const posted = world()
        .slack.channelMessages('C0HEALTH02')
        .filter((m) => textOf(m).includes('Queue health'));
      expect(posted).toHaveLength(1);
      expect(
        (posted[0]!.blocks as Array<{ type: string }>).some((b) => b.type === 'data_visualization'),
      ).toBe(false);
      expect(textOf(posted[0]!)).toContain('*Merged:*');
    });

    it("hides a private channel's health digest from people who cannot see the channel", async () => {
      const added = await command(
        'digest add health acme/web:main 10:00 UTC daily',
        USERS.admin,
        SECRET_CHANNEL,
      );
      const id = /`(d[a-z0-9]{5})`/.exec(added)![1]!;
      expect(await command('digest list', USERS.admin, channel)).toContain(id);
      expect(await command('digest list', USERS.member, channel)).not.toContain(id);
      expect(await command(`digest remove ${id}`, USERS.member, channel)).toContain('There is no digest');
    });
  });
}

let sqlite: World;
beforeAll(async () => {
  sqlite = await startWorld({
    slackOptions: {
      users: defaultUsers(),
      channels: [{ id: SECRET_CHANNEL, name: 'secret', isPrivate: true, members: [USERS.admin] }],
    },
  });
}, 60_000);
afterAll(async () => {
  await sqlite?.close();
}, 60_000);

suite('health digests on three replicas (SQLite)', () => sqlite);
describe.skipIf(!pg.enabled)('on PostgreSQL', () => {
  suite('health digests on three replicas (PostgreSQL)', () => pg.world);
});
