/**
 * Which v2 key a workspace uses, and the per-key limit on PR reads (5 a second at Trunk), over HTTP against
 * the Trunk fake: a stored key wins over TRUNK_API_KEY, a removed one stops counting within seconds, and
 * many `why`s at once from workspaces sharing a key never send more than 5 PR reads in any second.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { createV2Access, V2_KEY_TTL_MS } from '../../src/queue/trunk-v2-access.ts';
import { createTrunkBudget } from '../../src/trunk/budget.ts';

const STORED = 'trunk_v2_stored_key';
const ENV = 'trunk_v2_environment_key';
const addr = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
let fake: TrunkFake;
let agent: Agent;

beforeAll(async () => {
  fake = await startTrunkFake();
  fake.v2.setKeys({ [STORED]: [], [ENV]: [] });
  fake.addQueue(
    'acme/web',
    'main',
    {},
    Array.from({ length: 12 }, (_, i) => ({
      prNumber: 1 + i,
      state: i < 2 ? ('testing' as const) : ('pending' as const),
    })),
  );
  agent = new Agent();
});
afterAll(async () => {
  await agent.close();
  await fake.close();
});

function access(keys: Map<string, string>, environmentKey?: string, now = Date.now) {
  return createV2Access({
    store: { getTrunkV2Key: async (ws) => keys.get(ws) },
    apiUrl: fake.url,
    environmentKey,
    budget: createTrunkBudget({ maxPerSecond: 100 }),
    dispatcher: agent,
    now,
  });
}

describe('v2 access', () => {
  it('a key stored with connect wins over TRUNK_API_KEY; a removed one stops counting', async () => {
    const keys = new Map([['T1', STORED]]);
    let t = 1_000;
    const a = access(keys, ENV, () => t);
    expect((await a.forWorkspace('T1', 'acme', 'interactive'))?.source).toBe('connect');
    expect((await a.forWorkspace('T2', 'acme', 'interactive'))?.source).toBe('environment');
    fake.clearRequests();
    await (await a.forWorkspace('T1', 'acme', 'interactive'))!.reader.order(addr);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${STORED}`);
    keys.delete('T1');
    t += V2_KEY_TTL_MS;
    expect((await a.forWorkspace('T1', 'acme', 'interactive'))?.source).toBe('environment');
    expect(await access(new Map()).forWorkspace('T1', 'acme', 'interactive')).toBeUndefined();
  });

  it('ten stories at once from two workspaces sharing a key: at most 5 PR reads in any second', async () => {
    const a = access(new Map(), ENV);
    // Warm connections, as a running app has: opening five at once skews arrivals by more than the guard.
    const warm = await a.forWorkspace('T1', 'acme', 'interactive');
    await Promise.all(Array.from({ length: 5 }, () => warm!.reader.order(addr)));
    fake.clearRequests();
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const v2 = await a.forWorkspace(i % 2 ? 'T1' : 'T2', 'acme', 'interactive');
        return v2!.reader.story(addr, 1 + i);
      }),
    );
    const prReads = fake.requests.filter((r) => r.path.startsWith('/v2/pull-requests')).map((r) => r.at);
    // One PR lookup per story: the history comes from the batch form, which is not a PR read.
    expect(prReads.length).toBe(10);
    let peak = 0;
    for (const start of prReads)
      peak = Math.max(peak, prReads.filter((at) => at >= start && at < start + 1_000).length);
    expect(peak).toBeLessThanOrEqual(5);
  }, 20_000);
});
