/**
 * The Trunk budget (issue 19), three loads, each measured from the Trunk fake's recorded arrival times as
 * the most requests that arrived within any one second:
 * 1. Twenty people open the Home at once (ten watched queues, everyone linked to a GitHub login), the app
 *    in its own process at TRUNK_MAX_RPS=10.
 * 2. Three replicas, each its own process, on one PostgreSQL (the shared trunk_budget ledger), twenty Home
 *    openings and twelve statuses spread over them, TRUNK_MAX_RPS=10: the peak of the three together.
 * 3. The burst below.
 *
 * The burst: one app (in this process, the test harness, scheduler on) watches 30
 * queues every 5 s (WATCH_INTERVAL_SECONDS=5, the real clock) while 20 digests of 20 repositories fall due
 * in the same minute (its clock shifted so the minute comes at once), each paging through 600 failing tests.
 * From the Trunk fake's recorded arrival times: the most requests that arrived within any one second.
 * Baseline: the same burst with TRUNK_MAX_RPS=100 (Trunk's own limit), then the default, 10.
 * One process is measured for it.
 */

import { randomBytes } from 'node:crypto';
import { startSlackFake } from '../dev/fakes/slack/server.ts';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { WatchRepository } from '../src/watch/feeds.ts';
import { type Harness, startHarness, TEAM, TRUNK_TOKEN } from '../test/helpers/app-harness.ts';
import {
  busiestSecond,
  manyUsers,
  metricValue,
  PEOPLE,
  peopleAndQueues,
} from '../test/helpers/people-load.ts';
import { createPgTestDatabase, pgTestsEnabled } from '../test/helpers/pg.ts';
import { addDueDigests, nextMinute } from './due-digests.ts';
import type { BenchFigure, Benchmark } from './types.ts';
import { sleep } from './watch-figures.ts';

const QUEUES = 30;
const DIGESTS = 20;
const TESTS = 600;

interface Burst {
  peak: number;
  requests: number;
  seconds: number;
  posted: number;
}

/** The most arrivals within any window of one second (sorted times). */
export function peakPerSecond(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

async function burst(maxRps: number): Promise<Burst> {
  const due = nextMinute(Date.now(), 5 * 60_000);
  const offset = due - Date.now() - 3_000;
  const h = await startHarness({
    env: { SCHEDULER_ENABLED: 'true', TRUNK_MAX_RPS: String(maxRps), WATCH_INTERVAL_SECONDS: '5' },
    app: { clock: () => Date.now() + offset, digest: { tickCron: '* * * * * *', paceMs: 0 } },
  });
  try {
    const watches = new WatchRepository(h.app!.store.db);
    for (let i = 0; i < QUEUES; i++) {
      const repo = { host: 'github.com', owner: 'acme', name: `q${i}` };
      h.trunk.addQueue(repo, 'main', { state: 'running' });
      await watches.upsert({
        workspaceId: TEAM,
        channelId: `C0WATCH${String(i).padStart(3, '0')}`,
        target: { repo, branch: 'main' },
        topics: ['state'],
        createdBy: 'UBENCH',
        createdAt: Date.now() + offset,
      });
    }
    for (let i = 0; i < DIGESTS; i++) {
      const repo = { host: 'github.com', owner: 'acme', name: `d${i}` };
      h.trunk.generateFailingTests(repo, TESTS, {
        seed: i,
        lazy: true,
        start: due - 20 * 3_600_000,
        end: due,
      });
      await addDueDigests(h.app!.store.db, {
        workspaceId: TEAM,
        repo,
        channels: [`C0DIG${String(i).padStart(4, '0')}`],
        due,
      });
    }
    h.trunk.clearRequests();
    const started = Date.now();
    const headers = () =>
      h.slack.messages.filter((m) => m.via === 'api' && m.channel.startsWith('C0DIG') && !m.threadTs);
    await h.slack.waitFor(() => headers().length >= DIGESTS || undefined, 120_000).catch(() => undefined);
    await sleep(2_000); // the watchers keep polling meanwhile
    const times = h.trunk.requests.map((r) => r.at);
    return {
      peak: peakPerSecond(times),
      requests: times.length,
      seconds: (Date.now() - started) / 1000,
      posted: headers().length,
    };
  } finally {
    await h.close();
  }
}

interface Load {
  peak: number;
  requests: number;
  overdrafts: number;
}

/** Twenty Home openings at once against one app process. */
async function homes(): Promise<Load> {
  const h = await startHarness({
    process: true,
    env: { TRUNK_MAX_RPS: '10' },
    slackOptions: { users: manyUsers() },
  });
  try {
    await peopleAndQueues(h, PEOPLE);
    await Promise.all(PEOPLE.map((u) => h.openHome(u)));
    await sleep(1_500);
    const times = h.trunkCalls().map((r) => r.at);
    return {
      peak: busiestSecond(times),
      requests: times.length,
      overdrafts: await metricValue(h, 'mergequeue_trunk_budget_overdrafts_total'),
    };
  } finally {
    await h.close();
  }
}

/** Three replicas on PostgreSQL, Homes and statuses spread over them; undefined without PostgreSQL. */
async function replicas(): Promise<Load | undefined> {
  if (!(await pgTestsEnabled('trunk-budget bench: three replicas'))) return undefined;
  const db = await createPgTestDatabase();
  const slack = await startSlackFake({ users: manyUsers() });
  const trunk = await startTrunkFake({ tokens: [TRUNK_TOKEN] });
  const apps: Harness[] = [];
  try {
    const env = {
      DATABASE_URL: db.url,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TRUNK_MAX_RPS: '10',
    };
    for (let i = 0; i < 3; i++) apps.push(await startHarness({ slack, trunk, env, process: true }));
    await peopleAndQueues(apps[0]!, PEOPLE);
    for (let i = 0; i < 12; i++) trunk.addQueue(`acme/s${i}`, 'main', { state: 'running' });
    const statuses = Array.from({ length: 12 }, (_, i) =>
      apps[i % 3]!.sendCommand(`status acme/s${i}:main`, { channel: 'C0BENCHST1' }),
    );
    await Promise.all([...PEOPLE.map((u, i) => apps[i % 3]!.openHome(u)), ...statuses]);
    await sleep(4_000);
    const times = trunk.requests.map((r) => r.at);
    let overdrafts = 0;
    for (const a of apps) overdrafts += await metricValue(a, 'mergequeue_trunk_budget_overdrafts_total');
    return { peak: busiestSecond(times), requests: times.length, overdrafts };
  } finally {
    for (const a of apps) await a.close();
    await slack.close();
    await trunk.close();
    await db.drop();
  }
}

export const benchmark: Benchmark = {
  name: 'trunk-budget',
  description: `${DIGESTS} digests (${TESTS} tests each) due at once while ${QUEUES} queues are watched every 5 s: Trunk requests in any one second`,
  async run(): Promise<BenchFigure[]> {
    const home = await homes();
    console.log(
      `  20 Homes at once, TRUNK_MAX_RPS=10: ${home.requests} requests, peak ${home.peak} in one second, overdrafts ${home.overdrafts}`,
    );
    const three = await replicas();
    if (three)
      console.log(
        `  3 replicas on PostgreSQL, TRUNK_MAX_RPS=10: ${three.requests} requests, peak ${three.peak} in one second together, overdrafts ${three.overdrafts}`,
      );
    const open = await burst(100);
    const kept = await burst(10);
    for (const [name, b] of [
      ['TRUNK_MAX_RPS=100', open],
      ['TRUNK_MAX_RPS=10', kept],
    ] as const)
      console.log(
        `  ${name}: ${b.requests} requests in ${b.seconds.toFixed(1)} s, peak ${b.peak} in one second, ${b.posted}/${DIGESTS} digests posted`,
      );
    return [
      {
        id: 'trunk.budget.homes20.peak_per_second',
        value: home.peak,
        unit: 'req',
        target: '<= 10 (TRUNK_MAX_RPS)',
        ok: home.peak <= 10 && home.overdrafts === 0,
      },
      ...(three
        ? [
            {
              id: 'trunk.budget.replicas3.peak_per_second',
              value: three.peak,
              unit: 'req',
              target: '<= 10 (TRUNK_MAX_RPS, all replicas together)',
              ok: three.peak <= 10 && three.overdrafts === 0,
            },
          ]
        : []),
      {
        id: 'trunk.budget.rps100.peak_per_second',
        value: open.peak,
        unit: 'req',
        target: '<= 100',
        ok: open.peak <= 100,
      },
      {
        id: 'trunk.budget.rps10.peak_per_second',
        value: kept.peak,
        unit: 'req',
        target: '<= 10 (TRUNK_MAX_RPS)',
        ok: kept.peak <= 10 && kept.posted === DIGESTS,
      },
      {
        id: 'trunk.budget.rps10_vs_rps100.peak',
        value: kept.peak / open.peak,
        unit: 'x',
        target: '',
        ok: true,
      },
    ];
  },
};
