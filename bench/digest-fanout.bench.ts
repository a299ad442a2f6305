/**
 * 500 digests due in the same minute, shared by 3 replicas: three real app processes (the app as
 * `node src/main.ts` runs it, started through the test entry test/helpers/app-process.ts)
 * on one PostgreSQL database, against the Trunk and Slack fakes in this process. Trunk answers each page
 * after 100 ms and every digest reads 5 pages; Slack is paced at one message per second per channel.
 * Prints the time from the due instant until the last digest is posted, duplicates and misses.
 * The replicas' clock is shifted (the test entry's --clock-offset-ms, a createApp override) so the minute
 * comes a few seconds after they start.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startSlackFake } from '../dev/fakes/slack/server.ts';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { SubscriptionRepository } from '../src/digest/repository.ts';
import { openStore } from '../src/store/open.ts';
import { appProcess } from '../test/helpers/app-harness.ts';
import { createPgTestDatabase } from '../test/helpers/pg.ts';
import { startChild, stopChild } from '../test/helpers/processes.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const SUBSCRIPTIONS = 500;
const REPLICAS = 3;
const MINUTE = 60_000;
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const WORKSPACE = 'T0DEFAULT';

export const benchmark: Benchmark = {
  name: 'digest-fanout',
  description: `${SUBSCRIPTIONS} digests due in one minute across ${REPLICAS} app processes on PostgreSQL, Trunk 100 ms/page x 5 pages`,
  async run(): Promise<BenchFigure[]> {
    const db = await createPgTestDatabase();
    const trunk = await startTrunkFake({ tokens: ['bench-token'] });
    const slack = await startSlackFake();
    const store = await openStore({ database: { kind: 'postgres', url: db.url }, encryptionKeys: [] });
    const children: ChildProcess[] = [];
    try {
      const due = Math.ceil((Date.now() + 2 * MINUTE) / MINUTE) * MINUTE;
      trunk.generateFailingTests(REPO, 500, { seed: 5, lazy: true, start: due - 20 * 3_600_000, end: due });
      trunk.setLatency({ listFailingTests: 100 });
      const subs = new SubscriptionRepository(store.db);
      const minuteOfDay = new Date(due).getUTCHours() * 60 + new Date(due).getUTCMinutes();
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        await subs.insert({
          workspaceId: WORKSPACE,
          channelId: `CB${String(i).padStart(4, '0')}`,
          kind: 'failing',
          repo: REPO,
          minuteOfDay,
          tz: 'UTC',
          days: 'daily',
          skipEmpty: true,
          topN: 10,
          createdBy: 'UBENCH',
          createdAt: due - 60 * MINUTE,
          nextDueAt: due,
        });
      }
      // The replicas' clock reads `due` about 8 s from now (they start meanwhile).
      const offset = due - Date.now() - 8_000;
      const env = {
        SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
        SLACK_BOT_TOKEN: 'xoxb-bench',
        SLACK_API_URL: slack.url,
        TRUNK_API_URL: trunk.url,
        TRUNK_API_TOKEN: 'bench-token',
        TRUNK_ORG_SLUG: 'acme',
        DATABASE_URL: db.url,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        PORT: '0',
        LOG_LEVEL: 'info',
        SCHEDULER_ENABLED: 'true',
      };
      const seams = appProcess({ clockOffsetMs: offset, digestTickCron: '* * * * * *' });
      const started = await Promise.all(
        Array.from({ length: REPLICAS }, () => startChild(env, { timeoutMs: 30_000, ...seams })),
      );
      for (const c of started) {
        children.push(c.child);
        c.child.stdout?.resume();
        c.child.stderr?.resume();
      }
      const dueReal = due - offset;
      const expected = SUBSCRIPTIONS * 2; // a header and one reply each
      const posts = () => slack.messages.filter((m) => m.via === 'api');
      await slack.waitFor(() => posts().length >= expected, 180_000).catch(() => undefined);
      const lastAt = Math.max(...slack.callsTo('chat.postMessage').map((c) => c.at));
      await new Promise((r) => setTimeout(r, 3_000)); // room for any duplicate to show up
      const perChannel = new Map<string, number>();
      for (const m of posts())
        if (!m.threadTs) perChannel.set(m.channel, (perChannel.get(m.channel) ?? 0) + 1);
      const duplicates =
        [...perChannel.values()].reduce((n, c) => n + Math.max(0, c - 1), 0) +
        Math.max(0, posts().length - expected);
      const misses = SUBSCRIPTIONS - perChannel.size;
      const owners = await store.db.query<{ owner: string; n: unknown }>(
        'SELECT owner, COUNT(*) AS n FROM digest_runs GROUP BY owner ORDER BY owner',
      );
      console.log(`  digests per replica: ${owners.map((o) => Number(o.n)).join(', ')}`);
      return [
        {
          id: 'digest.fanout.500x3.last_posted_after_due',
          value: (lastAt - dueReal) / 1000,
          unit: 's',
          target: '',
          ok: true,
        },
        {
          id: 'digest.fanout.500x3.duplicates',
          value: duplicates,
          unit: 'count',
          target: '= 0',
          ok: duplicates === 0,
        },
        { id: 'digest.fanout.500x3.misses', value: misses, unit: 'count', target: '= 0', ok: misses === 0 },
      ];
    } finally {
      for (const c of children) await stopChild(c);
      await store.close();
      await trunk.close();
      await slack.close();
      await db.drop();
    }
  },
};
