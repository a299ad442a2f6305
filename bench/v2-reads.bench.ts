/**
 * What explaining PRs costs at Trunk (issue 20): Trunk requests for 50 PRs that failed in one poll, once the
 * queue's ids are known (target: one PR lookup and one history batch, not 50 reads), against the naive way
 * (one history read per PR) measured in the same run; and the peak of v2 PR reads in any second when 20
 * people ask `why` and `eta` at once from two workspaces sharing one key (Trunk allows 5 a second per key).
 */
import { Agent } from 'undici';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { createStoryReader } from '../src/queue/story-reader.ts';
import { createV2Access } from '../src/queue/trunk-v2-access.ts';
import { createTrunkBudget } from '../src/trunk/budget.ts';
import { apiKeyAuth } from '../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../src/trunk/v2/client.ts';
import { createV2Ids } from '../src/trunk/v2/ids.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const KEY = 'trunk_v2_bench_key';
const addr = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };

async function run(): Promise<BenchFigure[]> {
  const fake = await startTrunkFake();
  const agent = new Agent();
  try {
    fake.v2.setKeys({ [KEY]: [] });
    const numbers = Array.from({ length: 50 }, (_, i) => 1000 + i);
    fake.addQueue('acme/web', 'main', {}, []);
    for (const n of numbers)
      fake.addSubmittedPr('acme/web', 'main', {
        prNumber: n,
        state: 'failed',
        isCurrentlySubmittedToQueue: false,
      });

    const api = createTrunkV2Client({ baseUrl: fake.url, auth: apiKeyAuth(KEY), dispatcher: agent });
    const reader = createStoryReader(api, createV2Ids(api));
    await reader.order(addr); // the watcher knows the queue's ids after its first poll
    fake.clearRequests();
    const stories = await reader.stories(addr, numbers);
    const batched = fake.requests.length;

    // The naive way, for comparison: one history read per PR (ids already known).
    const ids = createV2Ids(api);
    const q = await ids.queue(addr);
    const prIds = await ids.pullRequests(q!.repositoryId, numbers);
    fake.clearRequests();
    await Promise.all([...prIds.values()].map((id) => api.queueEntryHistory(id)));
    const naive = fake.requests.length;

    // 20 people at once: 10 why and 10 eta, from two workspaces that share the key.
    fake.addQueue(
      'acme/web',
      'main',
      {},
      numbers.slice(0, 20).map((n) => ({ prNumber: n, state: 'pending' as const })),
    );
    const access = createV2Access({
      store: { getTrunkV2Key: async () => undefined },
      apiUrl: fake.url,
      environmentKey: KEY,
      budget: createTrunkBudget({ maxPerSecond: 100 }),
      dispatcher: agent,
    });
    // Warm connections, as a running app has: opening many at once skews arrivals by more than the guard.
    const warm = await access.forWorkspace('T1', 'acme', 'interactive');
    await Promise.all(Array.from({ length: 10 }, () => warm!.reader.order(addr)));
    fake.clearRequests();
    const started = performance.now();
    await Promise.all(
      numbers.slice(0, 20).map(async (n, i) => {
        const v2 = await access.forWorkspace(i % 2 ? 'T1' : 'T2', 'acme', 'interactive');
        return i < 10 ? v2!.reader.story(addr, n) : v2!.reader.eta(addr, n);
      }),
    );
    const wall = performance.now() - started;
    const at = fake.requests.filter((r) => r.path.startsWith('/v2/pull-requests')).map((r) => r.at);
    let peak = 0;
    for (const s of at) peak = Math.max(peak, at.filter((t) => t >= s && t < s + 1_000).length);

    return [
      {
        id: 'v2.failures_50.stories',
        value: stories.size,
        unit: 'count',
        target: '= 50',
        ok: stories.size === 50,
      },
      {
        id: 'v2.failures_50.trunk_requests',
        value: batched,
        unit: 'req',
        target: '<= 2 (ids known)',
        ok: batched <= 2,
      },
      { id: 'v2.failures_50.naive_requests', value: naive, unit: 'req', target: 'baseline', ok: true },
      { id: 'v2.failures_50.batched_vs_naive', value: batched / naive, unit: 'x', target: '', ok: true },
      { id: 'v2.why_eta_20.pr_reads', value: at.length, unit: 'req', target: '', ok: at.length > 0 },
      {
        id: 'v2.why_eta_20.peak_pr_reads_per_second',
        value: peak,
        unit: 'req',
        target: '<= 5 (per key)',
        ok: peak <= 5,
      },
      { id: 'v2.why_eta_20.wall', value: wall, unit: 'ms', target: '', ok: true },
    ];
  } finally {
    await agent.close();
    await fake.close();
  }
}

export const benchmark: Benchmark = {
  name: 'v2-reads',
  description: 'Trunk requests to explain 50 failed PRs, and v2 PR reads per second under 20 why/eta at once',
  run,
};
