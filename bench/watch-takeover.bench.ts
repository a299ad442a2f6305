/**
 * 200 watched queues, 3 app processes (the test entry test/helpers/app-process.ts) on one fresh PostgreSQL
 * database, WATCH_INTERVAL_SECONDS=5 on the real clock. Each queue is watched (topic `state`) by two
 * channels of its own. The Trunk fake's queues change continuously: this process flips each queue between
 * running and paused "in Trunk's web app" (patchQueue, not through the app) every 20 s at a phase of its
 * own, and records each change with its time as the ground truth. Midway one process is SIGKILLed; the
 * others take its queues over when its leases expire (--watch-lease-ms, a createApp override).
 *
 * Counted from the fake Slack's recorded chat.postMessage calls against the ground truth, per channel:
 * duplicates, misses, and the time from each change to its post (p50, p95, against 2 watch intervals).
 */
import type { ChildProcess } from 'node:child_process';
import { startSlackFake } from '../dev/fakes/slack/server.ts';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { openStore } from '../src/store/open.ts';
import { WatchRepository } from '../src/watch/feeds.ts';
import { appProcess } from '../test/helpers/app-harness.ts';
import { createPgTestDatabase } from '../test/helpers/pg.ts';
import { startChild } from '../test/helpers/processes.ts';
import { benchAppEnv } from './app-env.ts';
import type { BenchFigure, Benchmark } from './types.ts';
import { percentile, sleep, stateChangesPerChannel, stopAll } from './watch-figures.ts';

const QUEUES = 200;
const CHANNELS_PER_QUEUE = 2;
const REPLICAS = 3;
const INTERVAL_S = 5;
/** Each queue changes once per this period: longer than an interval, so every change is observable. */
const CHANGE_EVERY_MS = 20_000;
const RUN_MS = 60_000;
const KILL_AT_MS = 25_000;
const LEASE_MS = 8_000;
const WORKSPACE = 'T0DEFAULT';

const repoOf = (i: number) => ({
  host: 'github.com',
  owner: 'acme',
  name: `svc-${String(i).padStart(3, '0')}`,
});
const channelOf = (i: number, c: number) => `CQ${String(i).padStart(3, '0')}${'AB'[c]}`;

export const benchmark: Benchmark = {
  name: 'watch-takeover',
  description: `${QUEUES} watched queues x ${CHANNELS_PER_QUEUE} channels, ${REPLICAS} app processes on PostgreSQL, queues changing for ${RUN_MS / 1000} s, one process SIGKILLed at ${KILL_AT_MS / 1000} s`,
  async run(): Promise<BenchFigure[]> {
    const db = await createPgTestDatabase();
    const trunk = await startTrunkFake({ tokens: ['bench-token'] });
    const slack = await startSlackFake();
    const store = await openStore({ database: { kind: 'postgres', url: db.url }, encryptionKeys: [] });
    const children: ChildProcess[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      const watches = new WatchRepository(store.db);
      for (let i = 0; i < QUEUES; i++) {
        trunk.addQueue(repoOf(i), 'main', { state: 'running' });
        for (let c = 0; c < CHANNELS_PER_QUEUE; c++)
          await watches.upsert({
            workspaceId: WORKSPACE,
            channelId: channelOf(i, c),
            target: { repo: repoOf(i), branch: 'main' },
            topics: ['state'],
            createdBy: 'UBENCH',
            createdAt: Date.now(),
          });
      }
      const env = benchAppEnv(
        { slackUrl: slack.url, trunkUrl: trunk.url, databaseUrl: db.url },
        {
          WATCH_INTERVAL_SECONDS: String(INTERVAL_S),
          // The budget is counted per process: 200 queues every 5 s are 40 polls a second in all, about 13 per
          // process (20 after the kill); 40 keeps each process well inside its budget and the three under Trunk's 100.
          TRUNK_MAX_RPS: '40',
        },
      );
      const seams = appProcess({ watchLeaseMs: LEASE_MS });
      const started = await Promise.all(
        Array.from({ length: REPLICAS }, () => startChild(env, { timeoutMs: 30_000, ...seams })),
      );
      for (const c of started) children.push(c.child);
      // The first look at each queue is the baseline (announces nothing); changes start after it.
      const baselined = async () =>
        Number(
          (await store.db.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM watch_snapshots'))[0]?.n ?? 0,
        ) >= QUEUES;
      const t0 = Date.now();
      while (!(await baselined())) {
        if (Date.now() - t0 > 60_000)
          throw new Error('the watchers did not take a first look at every queue');
        await sleep(250);
      }
      console.log(`  baseline of ${QUEUES} queues after ${((Date.now() - t0) / 1000).toFixed(1)} s`);

      // Ground truth: every change made, in order, per queue.
      const truth = new Map<number, Array<{ to: string; at: number }>>();
      const begin = Date.now();
      for (let i = 0; i < QUEUES; i++) {
        const phase = Math.floor((i * CHANGE_EVERY_MS) / QUEUES);
        const change = () => {
          const to = trunk.queue(repoOf(i), 'main')?.state === 'running' ? 'paused' : 'running';
          trunk.patchQueue(repoOf(i), 'main', { state: to });
          truth.set(i, [...(truth.get(i) ?? []), { to, at: Date.now() }]);
        };
        timers.push(
          setTimeout(() => {
            change();
            const every = setInterval(() => {
              if (Date.now() - begin < RUN_MS - 1_000) change();
            }, CHANGE_EVERY_MS);
            timers.push(every);
          }, phase),
        );
      }
      await sleep(KILL_AT_MS);
      const victim = children[0]!;
      victim.kill('SIGKILL');
      console.log(`  SIGKILLed one app process (pid ${victim.pid}) at ${KILL_AT_MS / 1000} s`);
      await sleep(RUN_MS - KILL_AT_MS);
      for (const t of timers) clearTimeout(t);
      const changes = [...truth.values()].reduce((n, l) => n + l.length, 0);
      const expected = changes * CHANNELS_PER_QUEUE;
      const posts = () => slack.callsTo('chat.postMessage').filter((c) => c.response['ok'] === true);
      await slack.waitFor(() => posts().length >= expected || undefined, 30_000).catch(() => undefined);
      await sleep(3_000); // room for a duplicate to show up

      const byChannel = stateChangesPerChannel(posts());
      let duplicates = 0;
      let misses = 0;
      const latencies: number[] = [];
      for (let i = 0; i < QUEUES; i++) {
        const made = truth.get(i) ?? [];
        for (let c = 0; c < CHANNELS_PER_QUEUE; c++) {
          const got = byChannel.get(channelOf(i, c)) ?? [];
          // Changes alternate running/paused, so a repeated "→ state" is a duplicate; each distinct post
          // is matched, in order, with the change it reports.
          const distinct = got.filter((p, k) => k === 0 || p.to !== got[k - 1]!.to);
          duplicates += got.length - distinct.length;
          misses += Math.max(0, made.length - distinct.length);
          duplicates += Math.max(0, distinct.length - made.length);
          for (const [k, m] of made.entries()) {
            const p = distinct[k];
            if (p && p.to === m.to) latencies.push(p.at - m.at);
          }
        }
      }
      latencies.sort((a, b) => a - b);
      const p50 = percentile(latencies, 0.5) / 1000;
      const p95 = percentile(latencies, 0.95) / 1000;
      const max = (latencies.at(-1) ?? 0) / 1000;
      const owners = await store.db.query<{ owner: string; n: unknown }>(
        "SELECT owner, COUNT(*) AS n FROM watch_deliveries WHERE status = 'sent' GROUP BY owner ORDER BY owner",
      );
      console.log(
        `  ${changes} changes, ${expected} expected posts, ${posts().length} posted; deliveries per replica: ${owners.map((o) => `${o.owner.replace(/-.*/, '')}=${Number(o.n)}`).join(', ')}; max ${max.toFixed(1)} s`,
      );
      const limit = 2 * INTERVAL_S;
      return [
        { id: 'watch.takeover.200q.changes', value: changes, unit: 'count', target: '', ok: changes > 0 },
        {
          id: 'watch.takeover.200q.duplicates',
          value: duplicates,
          unit: 'count',
          target: '= 0',
          ok: duplicates === 0,
        },
        { id: 'watch.takeover.200q.misses', value: misses, unit: 'count', target: '= 0', ok: misses === 0 },
        { id: 'watch.takeover.200q.change_to_slack_p50', value: p50, unit: 's', target: '', ok: true },
        {
          id: 'watch.takeover.200q.change_to_slack_p95',
          value: p95,
          unit: 's',
          target: `<= ${limit} s (2 intervals)`,
          ok: latencies.length > 0 && p95 <= limit,
        },
        {
          id: 'watch.takeover.200q.p95_in_intervals',
          value: p95 / INTERVAL_S,
          unit: 'x',
          target: '<= 2x interval',
          ok: latencies.length > 0 && p95 <= limit,
        },
      ];
    } finally {
      for (const t of timers) clearTimeout(t);
      await stopAll(children);
      await store.close();
      await trunk.close();
      await slack.close();
      await db.drop();
    }
  },
};
