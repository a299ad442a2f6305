/**
 * Issue 29: the autopilot over 200 kicks, 3 app processes (test/helpers/app-process.ts) on one fresh
 * PostgreSQL database, the real clock, Trunk's signed webhooks delivered to every process (as if behind a load
 * balancer that retries elsewhere: each process receives each message; the inbox keeps it once), v2 histories
 * in the fake. The workspace's autopilot is on, re-submitting `flaky infra`. Midway one process is SIGKILLed.
 *
 * The 200 kicks, at random moments over two and a half minutes (about 1.3 a second: far more than a busy
 * organization sees; Trunk's 5 PR reads a second per v2 key, which classing needs, set the pace):
 * - 100 `infra` kicks (TEST_RUN_TIMEOUT) on running queues: each must be re-submitted exactly once;
 * - 40 real failures (a required check failed): never re-submitted;
 * - 20 `infra` kicks on paused queues: never re-submitted;
 * - 40 second kicks of an already re-submitted PR on the same head commit (Trunk's `submitted` webhook, then
 *   `failed` again): never re-submitted a second time.
 * Figures: webhook → re-submission p95 (target ≤ 10 s), re-submissions of chosen kicks counted once each
 * (= 100), and the re-submissions that must not happen (= 0).
 */
import type { ChildProcess } from 'node:child_process';
import { startSlackFake } from '../dev/fakes/slack/server.ts';
import { newWebhookSecret, startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { AutopilotRepository, WORKSPACE_WIDE } from '../src/kicks/repository.ts';
import { openStore } from '../src/store/open.ts';
import { WatchRepository } from '../src/watch/feeds.ts';
import { appProcess } from '../test/helpers/app-harness.ts';
import { createPgTestDatabase } from '../test/helpers/pg.ts';
import { startChild } from '../test/helpers/processes.ts';
import { benchAppEnv } from './app-env.ts';
import type { BenchFigure, Benchmark } from './types.ts';
import { percentile, sleep, stopAll } from './watch-figures.ts';

const REPLICAS = 3;
const QUEUES = 10;
const PAUSED = new Set([8, 9]);
const INTERVAL_S = 5;
const WINDOW_MS = 150_000;
const KILL_AT_MS = 60_000;
const LEASE_MS = 8_000;
const WORKSPACE = 'T0DEFAULT';
const KEY = 'trunk_v2_benchautopilot001';

const repoOf = (i: number) => ({ host: 'github.com', owner: 'acme', name: `auto-${i}` });
const repoName = (i: number) => `acme/auto-${i}`;

type Kind = 'chosen' | 'real' | 'paused' | 'again';

const iso = (ms: number) => new Date(ms).toISOString();

export const benchmark: Benchmark = {
  name: 'autopilot',
  description: `200 kicks over ${WINDOW_MS / 1000} s, ${REPLICAS} app processes on PostgreSQL, webhooks to each, one process SIGKILLed at ${KILL_AT_MS / 1000} s`,
  async run(): Promise<BenchFigure[]> {
    const db = await createPgTestDatabase();
    const trunk = await startTrunkFake({ tokens: ['bench-token'] });
    const slack = await startSlackFake();
    const store = await openStore({ database: { kind: 'postgres', url: db.url }, encryptionKeys: [] });
    const children: ChildProcess[] = [];
    try {
      trunk.v2.setKeys({ [KEY]: [] });
      const secret = newWebhookSecret();
      const watches = new WatchRepository(store.db);
      for (let i = 0; i < QUEUES; i++) {
        trunk.addQueue(repoOf(i), 'main', { state: PAUSED.has(i) ? 'paused' : 'running' });
        await watches.upsert({
          workspaceId: WORKSPACE,
          channelId: `CAUTO${String(i).padStart(4, '0')}`,
          target: { repo: repoOf(i), branch: 'main' },
          topics: ['failed'],
          createdBy: 'UBENCH',
          createdAt: Date.now(),
        });
      }
      await new AutopilotRepository(store.db).set(
        WORKSPACE,
        WORKSPACE_WIDE,
        { enabled: true },
        'UBENCH',
        Date.now(),
      );

      // The kicks: which PR, which queue, which kind. `again` kicks reuse a `chosen` PR kicked earlier.
      const kicks: Array<{ pr: number; queue: number; kind: Kind; at: number }> = [];
      const running = [...Array(QUEUES).keys()].filter((i) => !PAUSED.has(i));
      for (let k = 0; k < 100; k++)
        kicks.push({
          pr: 1000 + k,
          queue: running[k % running.length]!,
          kind: 'chosen',
          at: Math.random() * WINDOW_MS * 0.6,
        });
      for (let k = 0; k < 40; k++)
        kicks.push({
          pr: 2000 + k,
          queue: running[k % running.length]!,
          kind: 'real',
          at: Math.random() * WINDOW_MS,
        });
      for (let k = 0; k < 20; k++)
        kicks.push({
          pr: 3000 + k,
          queue: [...PAUSED][k % PAUSED.size]!,
          kind: 'paused',
          at: Math.random() * WINDOW_MS,
        });
      for (let k = 0; k < 40; k++) {
        const first = kicks[k]!;
        kicks.push({
          pr: first.pr,
          queue: first.queue,
          kind: 'again',
          at: first.at + 15_000 + Math.random() * 10_000,
        });
      }
      for (const k of kicks)
        if (k.kind !== 'again')
          trunk.enqueuePr(repoOf(k.queue), 'main', {
            prNumber: k.pr,
            prAuthor: 'octocat',
            prSha: `sha-${k.pr}`,
            state: 'testing',
            priorityValue: 100,
            priorityName: 'medium',
          });

      const env = benchAppEnv(
        { slackUrl: slack.url, trunkUrl: trunk.url, databaseUrl: db.url },
        {
          WATCH_INTERVAL_SECONDS: String(INTERVAL_S),
          TRUNK_MAX_RPS: '30',
          TRUNK_API_KEY: KEY,
          TRUNK_WEBHOOK_SECRET: secret,
        },
      );
      const seams = appProcess({ watchLeaseMs: LEASE_MS });
      const started = await Promise.all(
        Array.from({ length: REPLICAS }, () => startChild(env, { timeoutMs: 30_000, ...seams })),
      );
      for (const c of started) {
        children.push(c.child);
        trunk.webhooks.subscribe(`${c.url}/trunk/webhooks/${WORKSPACE}`, secret);
      }
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
      trunk.clearRequests();

      const sentAt = new Map<string, number>();
      const kick = (k: (typeof kicks)[number]) => {
        const repo = repoOf(k.queue);
        const sha = `sha-${k.pr}`;
        const failedAt = Date.now();
        if (k.kind === 'again') {
          // Trunk took the re-submission (its `submitted` webhook), then the same commit failed again.
          trunk.webhooks.deliver('pull_request.submitted', {
            action: 'submitted',
            status: 'submitted',
            author: 'octocat',
            pr_number: k.pr,
            repository: { host: 'github.com', owner: 'acme', name: repo.name },
            target_branch: 'main',
            timestamp: iso(failedAt - 1_000),
          });
        }
        trunk.dequeuePr(repo, 'main', k.pr);
        trunk.addSubmittedPr(repo, 'main', {
          prNumber: k.pr,
          prAuthor: 'octocat',
          prSha: sha,
          state: 'failed',
          isCurrentlySubmittedToQueue: false,
          priorityValue: 100,
          priorityName: 'medium',
        });
        const real = k.kind === 'real';
        trunk.v2.setHistory(repoName(k.queue), k.pr, [
          {
            state: 'pending',
            changedAt: iso(failedAt - 600_000),
            reason: 'MERGE_ITEM_NOW_READY',
            pending: { prerequisitePullRequests: [], priorityValue: 100, allowBatching: true },
          },
          { state: 'testing', changedAt: iso(failedAt - 300_000), reason: null },
          {
            state: 'failed',
            changedAt: iso(failedAt),
            reason: real ? 'TEST_RUN_REQUIRED_STATUS_FAILED' : 'TEST_RUN_TIMEOUT',
            failed: {
              failureCausingChecks: real ? [{ name: 'unit', conclusion: 'failure' }] : [],
              blockReasons: [],
            },
          },
        ] as never);
        trunk.webhooks.deliver('pull_request.failed', {
          action: 'failed',
          status: 'failed',
          author: 'octocat',
          pr_number: k.pr,
          repository: { host: 'github.com', owner: 'acme', name: repo.name },
          target_branch: 'main',
          failure_reason: real ? 'TEST_RUN_REQUIRED_STATUS_FAILED' : 'TEST_RUN_TIMEOUT',
          timestamp: iso(failedAt),
        });
        sentAt.set(`${k.kind}|${k.pr}`, failedAt);
      };
      const timers = kicks.map((k) => setTimeout(() => kick(k), k.at));
      const begin = Date.now();
      await sleep(KILL_AT_MS);
      const victim = children[0]!;
      victim.kill('SIGKILL');
      console.log(`  SIGKILLed one app process (pid ${victim.pid}) at ${KILL_AT_MS / 1000} s`);
      await sleep(Math.max(0, Math.max(...kicks.map((k) => k.at)) - (Date.now() - begin)) + 1_000);
      // Room for a claim the victim held to lapse and be taken over, and for a duplicate to show up.
      await sleep(75_000);
      for (const t of timers) clearTimeout(t);

      const submits = trunk.requestsTo('submitPullRequest').filter((r) => r.status === 200);
      const per = new Map<number, number[]>();
      for (const r of submits) {
        const n = (r.body as { pr?: { number?: number } })?.pr?.number ?? 0;
        per.set(n, [...(per.get(n) ?? []), r.at]);
      }
      const chosen = kicks.filter((k) => k.kind === 'chosen');
      const latencies: number[] = [];
      let missing = 0;
      for (const k of chosen) {
        const at = per.get(k.pr)?.[0];
        if (at === undefined) missing++;
        else latencies.push(at - (sentAt.get(`chosen|${k.pr}`) ?? at));
      }
      // Where the time goes: the kick's own post in its feed (the webhook path up to Slack), for comparison.
      const feedLat: number[] = [];
      const posts = slack.callsTo('chat.postMessage');
      for (const k of chosen) {
        const at = sentAt.get(`chosen|${k.pr}`);
        const post = posts.find((c) => JSON.stringify(c.args).includes(`#${k.pr}`));
        if (at !== undefined && post) feedLat.push(post.at - at);
      }
      feedLat.sort((a, b) => a - b);
      const twice = [...per.entries()].filter(([n, l]) => n < 2000 && l.length > 1).length;
      const notChosen = [...per.keys()].filter((n) => n >= 2000).length;
      latencies.sort((a, b) => a - b);
      const p95 = percentile(latencies, 0.95) / 1000;
      const p50 = percentile(latencies, 0.5) / 1000;
      console.log(
        `  ${kicks.length} kicks; ${submits.length} re-submissions; chosen re-submitted ${chosen.length - missing}/${chosen.length}; p50 ${p50.toFixed(1)} s, max ${((latencies.at(-1) ?? 0) / 1000).toFixed(1)} s`,
      );
      return [
        { id: 'autopilot.kicks', value: kicks.length, unit: 'count', target: '', ok: true },
        { id: 'autopilot.webhook_to_resubmit_p50', value: p50, unit: 's', target: '', ok: true },
        {
          id: 'autopilot.webhook_to_feed_post_p50',
          value: percentile(feedLat, 0.5) / 1000,
          unit: 's',
          target: '',
          ok: true,
        },
        {
          id: 'autopilot.webhook_to_resubmit_p95',
          value: p95,
          unit: 's',
          target: '<= 10 s',
          ok: latencies.length > 0 && p95 <= 10,
        },
        {
          id: 'autopilot.chosen_resubmitted_once',
          value: chosen.length - missing,
          unit: 'count',
          target: `= ${chosen.length}`,
          ok: missing === 0,
        },
        {
          id: 'autopilot.twice_per_head_commit',
          value: twice,
          unit: 'count',
          target: '= 0',
          ok: twice === 0,
        },
        {
          id: 'autopilot.not_chosen_or_paused_resubmitted',
          value: notChosen,
          unit: 'count',
          target: '= 0',
          ok: notChosen === 0,
        },
      ];
    } finally {
      await stopAll(children);
      await store.close();
      await trunk.close();
      await slack.close();
      await db.drop();
    }
  },
};
