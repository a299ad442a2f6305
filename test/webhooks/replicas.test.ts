/**
 * Two app replicas on one database (SQLite file, and PostgreSQL in CI), each with its own route, inbox worker
 * and watcher, the fake Slack and the fake Trunk shared: Svix delivering the same message to both (a retry
 * that reached the other replica) and a second message carrying the same transition lead to one post.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signDelivery } from '../../dev/fakes/trunk/index.ts';
import { defaultUsers, type Harness, TEAM, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { startWorld, usePostgresWorld, type World } from '../helpers/world.ts';

const SECRET = newWebhookSecret();
const pg = await usePostgresWorld('webhook replicas (PostgreSQL)', {
  slackOptions: { users: defaultUsers() },
});

function suite(name: string, world: () => World) {
  describe(name, () => {
    let a: Harness;
    let b: Harness;
    beforeAll(async () => {
      const env = { TRUNK_WEBHOOK_SECRET: SECRET, DEFAULT_REPO: undefined };
      a = await world().replica({ env });
      b = await world().replica({ env });
    }, 60_000);

    it('applies one transition once, whichever replica gets which delivery', async () => {
      const channel = 'C0REPLICA1';
      world().trunk.addQueue('acme/replicas', 'main', { state: 'running' });
      world().trunk.enqueuePr('acme/replicas', 'main', {
        prNumber: 9,
        prAuthor: 'octocat',
        state: 'pending',
      });
      const sent = await a.sendCommand('watch acme/replicas:main submitted', { channel, user: USERS.admin });
      await a.reply(sent.responseUrl);
      const body = JSON.stringify({
        type: 'pull_request.submitted',
        action: 'submitted',
        author: 'octocat',
        pr_number: 9,
        repository: { host: 'github.com', owner: 'acme', name: 'replicas' },
        target_branch: 'main',
        timestamp: new Date().toISOString(),
      });
      const post = (h: Harness, id: string) =>
        fetch(`${h.url}/trunk/webhooks/${TEAM}`, {
          method: 'POST',
          headers: signDelivery(SECRET, id, Math.floor(Date.now() / 1000), body),
          body,
        }).then((r) => r.status);
      const id = newMessageId();
      expect(await Promise.all([post(a, id), post(b, id), post(b, newMessageId())])).toEqual([200, 200, 200]);
      const feed = () =>
        world()
          .slack.channelMessages(channel)
          .filter((m) => textOf(m).includes('#9'));
      await world().slack.waitFor(() => feed()[0]);
      // Both deliveries are applied (the replica that found the other draining looks again shortly).
      const outcomes = async () =>
        (
          await a.app!.store.db.query(
            "SELECT outcome FROM webhook_inbox WHERE payload LIKE '%replicas%' ORDER BY outcome",
          )
        ).map((r) => r['outcome']);
      for (let i = 0; i < 50 && (await outcomes()).includes(null); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await outcomes()).toEqual(['applied', 'ignored']);
      for (const h of [a, b]) {
        await h.app!.webhooks.idle();
        await h.app!.events!.watch.watcher.settled();
      }
      expect(feed()).toHaveLength(1);
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
suite('on SQLite', () => sqlite);
describe.runIf(pg.enabled)('PostgreSQL', () => suite('on PostgreSQL', () => pg.world));
