/**
 * Queue memory's numbers (issue 28), each with its baseline in the same run:
 * - `stats` (this window and the one before, as the command computes them) over 90 days of 50 busy queues,
 *   200 PRs a day each (about 4.5 million transitions, written by bulk SQL, bench/history-data.ts): p95 of
 *   40 asks on SQLite and on PostgreSQL, target ≤ 300 ms; and the peak RSS growth of this process while
 *   answering them on SQLite (the rows live in this process's memory map there), target < 50 MiB.
 * - Keeping history: a webhook delivery's apply time as the inbox applies it (kept, then drained: lease,
 *   merge-queue sink, done; SQLite) with history, beside the same deliveries with the history insert
 *   skipped (a trigger ignores it), target ≤ 1.05×.
 * - Reading back 30 days of a busy queue (200 PRs a day, v2 key, the fake Trunk): the wall time beside the
 *   floor the budget sets: its requests at TRUNK_MAX_RPS starts per window (1 s plus the budget's guard),
 *   and v2 PR lookups at Trunk's 5 a second per key, whichever is longer, each line less the slot of each
 *   window the budget leaves to people (trunk/budget.ts); target ≤ 1.1×, and no second with more requests
 *   than the budget allows. `wall_vs_rps_only` is the wall beside the bare rates (no guard, no slot kept).
 * HISTORY_BENCH_PRS_PER_DAY scales the stats data down (default 200) for a quick run; HISTORY_BENCH_PARTS
 * (comma-separated: apply, readback, stats; default all) runs only some.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { readBack } from '../src/history/readback.ts';
import { computeQueueStats, previousWindow, statsWindow } from '../src/history/stats.ts';
import { silentLogger } from '../src/observability/log.ts';
import { openStore } from '../src/store/open.ts';
import type { Store } from '../src/store/types.ts';
import { apiTokenAuth } from '../src/trunk/auth.ts';
import { createTrunkBudget, DEFAULT_GUARD_MS } from '../src/trunk/budget.ts';
import { createTrunkClient } from '../src/trunk/client.ts';
import { apiKeyAuth } from '../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../src/trunk/v2/client.ts';
import { createV2Ids } from '../src/trunk/v2/ids.ts';
import { createMergeQueueSink } from '../src/watch/webhook-sink.ts';
import { InboxDrainer, type InboxDrainerOptions } from '../src/webhooks/drainer.ts';
import { createPgTestDatabase, pgTestsEnabled } from '../test/helpers/pg.ts';
import { queueKeyOf, writeHistoryData } from './history-data.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const QUEUES = 50;
const DAYS = 90;
const PRS_PER_DAY = Number(process.env['HISTORY_BENCH_PRS_PER_DAY'] ?? 200);
const ASKS = 40;
const TZ = 'Europe/Berlin';
const MAX_RPS = 10;
const V2_PR_READS_PER_SECOND = 5;
const V2_GUARD_MS = 150;

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Asks `stats` of random queues with 7- and 30-day windows; each ask computes both windows. */
async function askStats(store: Store, watchRss: boolean): Promise<{ p95Ms: number; rssGrowthMiB: number }> {
  const times: number[] = [];
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = watchRss
    ? setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2)
    : undefined;
  for (let i = 0; i < ASKS; i++) {
    const days = i % 4 === 3 ? 30 : 7;
    const w = statsWindow(NOW - (i % 7) * 3_600_000, days, TZ);
    const q = {
      workspaceId: 'TBENCH',
      queueKey: queueKeyOf((i * 7) % QUEUES),
      tz: TZ,
      daysPerBucket: Math.ceil(days / 20),
    };
    const t0 = performance.now();
    await computeQueueStats(store.db, { ...q, ...w });
    await computeQueueStats(store.db, { ...q, ...previousWindow(w) });
    times.push(performance.now() - t0);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  if (sampler) clearInterval(sampler);
  return { p95Ms: p95(times), rssGrowthMiB: (peak - rss0) / 1024 / 1024 };
}

async function statsFigures(): Promise<BenchFigure[]> {
  const out: BenchFigure[] = [];
  const shape = { workspaceId: 'TBENCH', queues: QUEUES, days: DAYS, prsPerDay: PRS_PER_DAY, now: NOW };
  const dir = mkdtempSync(join(tmpdir(), 'mq-bench-history-'));
  const sqlite = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'mq.db') },
    encryptionKeys: [],
  });
  try {
    const rows = await writeHistoryData(sqlite.db, shape);
    out.push({
      id: 'history.stats.rows',
      value: rows,
      unit: 'rows',
      target: '≈ 4.5M at 200 PRs/day',
      ok: true,
    });
    const s = await askStats(sqlite, true);
    out.push(
      { id: 'history.stats.sqlite.p95', value: s.p95Ms, unit: 'ms', target: '<= 300 ms', ok: s.p95Ms <= 300 },
      {
        id: 'history.stats.sqlite.rss_growth',
        value: s.rssGrowthMiB,
        unit: 'MiB',
        target: '< 50 MiB',
        ok: s.rssGrowthMiB < 50,
      },
    );
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (!(await pgTestsEnabled('history bench (PostgreSQL)'))) {
    out.push({
      id: 'history.stats.postgres.p95',
      value: Number.NaN,
      unit: 'ms',
      target: 'PostgreSQL not reachable',
      ok: false,
    });
    return out;
  }
  const pgDb = await createPgTestDatabase();
  const pgStore = await openStore({ database: { kind: 'postgres', url: pgDb.url }, encryptionKeys: [] });
  try {
    await writeHistoryData(pgStore.db, shape, pgDb.url);
    const s = await askStats(pgStore, false);
    out.push({
      id: 'history.stats.postgres.p95',
      value: s.p95Ms,
      unit: 'ms',
      target: '<= 300 ms',
      ok: s.p95Ms <= 300,
    });
  } finally {
    await pgStore.close();
    await pgDb.drop();
  }
  return out;
}

/** Apply time of webhook deliveries through the merge-queue sink, with history or with its insert ignored. */
async function applyTimes(withHistory: boolean, deliveries: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mq-bench-apply-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'mq.db') },
    encryptionKeys: [],
  });
  try {
    if (!withHistory)
      await store.db.execute(
        'CREATE TRIGGER bench_no_history BEFORE INSERT ON queue_history BEGIN SELECT RAISE(IGNORE); END',
      );
    const target = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
    const sink = createMergeQueueSink({
      db: store.db,
      leases: store.leases,
      followed: async () => [{ workspaceId: 'T1', target }],
      clock: Date.now,
      deliverNow: async () => {},
      logger: silentLogger(),
    });
    // As the inbox applies a delivery: kept (the receiver's write), then drained (lease, sink, done).
    const drainer = new InboxDrainer({
      db: store.db,
      leases: store.leases,
      sinks: [sink],
      replicaId: 'bench',
      clock: Date.now,
      logger: silentLogger(),
      metrics: { webhookDeliveries: { inc: () => {} } } as unknown as InboxDrainerOptions['metrics'],
    });
    const kinds = ['submitted', 'queued', 'testing', 'merged'];
    const times: number[] = [];
    for (let i = 0; i < deliveries; i++) {
      const pr = 1000 + Math.floor(i / kinds.length);
      const t0 = performance.now();
      await drainer.inbox.record({
        deliveryId: `d${i}`,
        workspaceId: 'T1',
        type: `pull_request.${kinds[i % kinds.length]}`,
        occurredAt: NOW + i * 1000,
        receivedAt: Date.now(),
        payload: {
          pr_number: pr,
          author: 'octocat',
          repository: { host: 'github.com', owner: 'acme', name: 'web' },
          target_branch: 'main',
        },
      });
      await drainer.pass();
      times.push(performance.now() - t0);
    }
    return times.slice(deliveries / 10);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function applyFigures(): Promise<BenchFigure[]> {
  // Interleaved rounds, so the machine's load falls on both alike; the medians of the rounds' medians.
  const base: number[] = [];
  const kept: number[] = [];
  for (let round = 0; round < 6; round++) {
    base.push(median(await applyTimes(false, 1_000)));
    kept.push(median(await applyTimes(true, 1_000)));
  }
  const b = median(base);
  const k = median(kept);
  return [
    {
      id: 'history.webhook_apply.baseline',
      value: b,
      unit: 'ms',
      target: 'history insert ignored',
      ok: true,
    },
    { id: 'history.webhook_apply.with_history', value: k, unit: 'ms', target: '', ok: true },
    {
      id: 'history.webhook_apply.ratio',
      value: k / b,
      unit: 'x',
      target: '<= 1.05x baseline',
      ok: k / b <= 1.05,
    },
  ];
}

async function readbackFigures(): Promise<BenchFigure[]> {
  // The fake's own clock: its requests are timed as they arrive.
  const fake = await startTrunkFake({ tokens: ['tok'] });
  const dir = mkdtempSync(join(tmpdir(), 'mq-bench-readback-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'mq.db') },
    encryptionKeys: [],
  });
  try {
    const key = 'trunk_v2_bench_history';
    fake.v2.setKeys({ [key]: [] });
    fake.addQueue('acme/web', 'main');
    const seeded = fake.seedHistory('acme/web', 'main', { days: 30, prsPerDay: 200, seed: 5 });
    // As slack/workspace.ts builds them: the organization's budget, and the key's own for PR reads.
    const org = createTrunkBudget({ maxPerSecond: MAX_RPS });
    const prReads = createTrunkBudget({
      maxPerSecond: V2_PR_READS_PER_SECOND,
      guardMs: V2_GUARD_MS,
      readMaxWaitMs: 60_000,
    });
    const v1 = createTrunkClient({
      baseUrl: fake.url,
      auth: apiTokenAuth('tok'),
      budget: org.gate('acme', 'history'),
    });
    const api = createTrunkV2Client({
      baseUrl: fake.url,
      auth: apiKeyAuth(key),
      budget: org.gate('acme', 'history'),
      pullRequestReads: prReads.gate('key', 'history'),
    });
    fake.clearRequests();
    const t0 = performance.now();
    const outcome = await readBack(
      store.db,
      store.leases,
      { v1, v2: { api, ids: createV2Ids(api) } },
      {
        workspaceId: 'T1',
        queueKey: 'github.com/acme/web:main',
        address: { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' },
        holder: 'bench',
        from: Date.now() - 30 * 86_400_000,
      },
    );
    const wallMs = performance.now() - t0;
    if (outcome.kind !== 'done') throw new Error(`read-back ended ${outcome.kind}`);
    const prRead = (r: { path: string }) => r.path.startsWith('/v2/pull-requests');
    const orgRequests = fake.requests.filter((r) => !prRead(r));
    const lookups = fake.requests.filter(prRead);
    // The background line leaves one start of each window to people (trunk/budget.ts).
    const orgFloor = (orgRequests.length * (1_000 + DEFAULT_GUARD_MS)) / (MAX_RPS - 1);
    // The same rule on the key's PR-read line: 4 of its 5 starts a window are the background's.
    const lookupFloor = (lookups.length * (1_000 + V2_GUARD_MS)) / (V2_PR_READS_PER_SECOND - 1);
    const floor = Math.max(orgFloor, lookupFloor);
    const pureFloor = Math.max(orgRequests.length / MAX_RPS, lookups.length / V2_PR_READS_PER_SECOND) * 1000;
    const busiest = (rs: ReadonlyArray<{ at: number }>) => {
      const at = rs.map((r) => r.at).sort((a, b) => a - b);
      return Math.max(0, ...at.map((t, i) => at.slice(i).filter((u) => u < t + 1_000).length));
    };
    return [
      { id: 'history.readback.prs', value: seeded.prs, unit: 'PRs', target: '30 days x 200 a day', ok: true },
      { id: 'history.readback.requests', value: fake.requests.length, unit: 'req', target: '', ok: true },
      { id: 'history.readback.wall', value: wallMs, unit: 'ms', target: '', ok: true },
      { id: 'history.readback.floor', value: floor, unit: 'ms', target: 'the budget’s pace', ok: true },
      {
        id: 'history.readback.wall_vs_floor',
        value: wallMs / floor,
        unit: 'x',
        target: '<= 1.1x floor',
        ok: wallMs / floor <= 1.1,
      },
      {
        id: 'history.readback.wall_vs_rps_only',
        value: wallMs / pureFloor,
        unit: 'x',
        target: 'info: requests / TRUNK_MAX_RPS',
        ok: true,
      },
      {
        id: 'history.readback.busiest_second',
        value: busiest(orgRequests),
        unit: 'req',
        target: `<= ${MAX_RPS} (TRUNK_MAX_RPS)`,
        ok: busiest(orgRequests) <= MAX_RPS,
      },
      {
        id: 'history.readback.busiest_second_pr_reads',
        value: busiest(lookups),
        unit: 'req',
        target: `<= ${V2_PR_READS_PER_SECOND} per key`,
        ok: busiest(lookups) <= V2_PR_READS_PER_SECOND,
      },
    ];
  } finally {
    await store.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmark: Benchmark = {
  name: 'history',
  description:
    'queue memory: stats p95 over ~4.5M transitions (SQLite, PostgreSQL), RSS growth, webhook apply with vs without history, 30-day read-back vs the budget floor',
  async run() {
    const parts = (process.env['HISTORY_BENCH_PARTS'] ?? 'apply,readback,stats').split(',');
    const out: BenchFigure[] = [];
    if (parts.includes('apply')) out.push(...(await applyFigures()));
    if (parts.includes('readback')) out.push(...(await readbackFigures()));
    if (parts.includes('stats')) out.push(...(await statsFigures()));
    return out;
  },
};
