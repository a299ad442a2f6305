/**
 * Reading stories, estimates and the order from the Trunk fake over HTTP, and what it costs: ids once, one
 * history batch for many PRs, an estimate at most once per PR per 30 s, a queue without estimates remembered.
 */
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { createStoryReader, ESTIMATE_REUSE_MS } from '../../src/queue/story-reader.ts';
import { apiKeyAuth } from '../../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../../src/trunk/v2/client.ts';
import { createV2Ids } from '../../src/trunk/v2/ids.ts';
import { v2RequestErrors } from '../trunk/openapi-v2.ts';

const KEY = 'trunk_v2_story_reader';
const addr = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
let fake: TrunkFake;
let agent: Agent;
let clock = Date.UTC(2026, 10, 20, 12);

function reader() {
  const api = createTrunkV2Client({
    baseUrl: fake.url,
    auth: apiKeyAuth(KEY),
    dispatcher: agent,
    sleep: async () => {},
  });
  return createStoryReader(api, createV2Ids(api), () => clock);
}

beforeAll(async () => {
  fake = await startTrunkFake({ now: () => clock });
  agent = new Agent();
});
afterAll(async () => {
  await agent.close();
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  fake.v2.setKeys({ [KEY]: [] });
});
afterEach(() => {
  const bad = fake.requests
    .filter((r) => r.path.startsWith('/v2/'))
    .flatMap((r) => v2RequestErrors(r.method, r.path));
  expect(bad).toEqual([]);
});

describe('story reader', () => {
  it('50 PRs failing in one poll cost one PR lookup and one history batch once the queue is known', async () => {
    const prs = Array.from({ length: 50 }, (_, i) => ({
      prNumber: 100 + i,
      prTitle: `PR ${i}`,
      prAuthor: 'dev',
      state: 'testing' as const,
    }));
    fake.addQueue('acme/web', 'main', {}, prs);
    const r = reader();
    await r.order(addr); // the queue's ids, once (a watcher knows them from its first poll)
    fake.clearRequests();
    const stories = await r.stories(
      addr,
      prs.map((p) => p.prNumber),
    );
    expect(stories.size).toBe(50);
    expect(fake.requests.map((q) => q.operation)).toEqual([
      'pullRequests.resolveByCoordinates',
      'pullRequests.queueEntryHistoryBatch',
    ]);
    fake.clearRequests();
    await r.stories(
      addr,
      prs.map((p) => p.prNumber),
    );
    expect(fake.requests.map((q) => q.operation)).toEqual(['pullRequests.queueEntryHistoryBatch']);
  });

  it('a PR Trunk does not know, and a repository it does not know', async () => {
    fake.addQueue('acme/web', 'main', {}, [{ prNumber: 1, state: 'testing' }]);
    const r = reader();
    expect(await r.story(addr, 999)).toEqual({ kind: 'unknown', what: 'pr' });
    expect(await r.story({ ...addr, repo: { ...addr.repo, name: 'nope' } }, 1)).toEqual({
      kind: 'unknown',
      what: 'repository',
    });
    expect(await r.story({ ...addr, targetBranch: 'release' }, 1)).toEqual({
      kind: 'unknown',
      what: 'queue',
    });
  });

  it('an estimate is asked for at most once per PR per 30 s', async () => {
    fake.addQueue('acme/web', 'main', {}, [
      { prNumber: 1, state: 'testing' },
      { prNumber: 2, state: 'pending' },
    ]);
    fake.v2.setEstimate('acme/web', 2, {
      status: 'available',
      kind: 'merge',
      estimatedAt: '2026-11-20T13:00:00Z',
    });
    const r = reader();
    const first = await r.eta(addr, 2);
    expect(first).toMatchObject({
      kind: 'eta',
      position: 'pending',
      estimate: { estimatedAt: '2026-11-20T13:00:00Z' },
    });
    if (first.kind === 'eta') expect(first.ahead.map((p) => p.number)).toEqual([1]);
    await r.eta(addr, 2);
    expect(fake.requestsTo('pullRequests.queueEntryEstimate')).toHaveLength(1);
    clock += ESTIMATE_REUSE_MS;
    await r.eta(addr, 2);
    expect(fake.requestsTo('pullRequests.queueEntryEstimate')).toHaveLength(2);
  });

  it('a queue without estimates is remembered and not asked again', async () => {
    fake.addQueue('acme/web', 'main', {}, [
      { prNumber: 1, state: 'testing' },
      { prNumber: 2, state: 'pending' },
    ]);
    fake.v2.disableEstimates('acme/web', 'main');
    const r = reader();
    expect(await r.eta(addr, 2)).toMatchObject({ kind: 'eta', estimatesOff: true, estimate: undefined });
    clock += ESTIMATE_REUSE_MS * 3;
    expect(await r.eta(addr, 1)).toMatchObject({ kind: 'eta', estimatesOff: true, position: 'testing' });
    expect(fake.requestsTo('pullRequests.queueEntryEstimate')).toHaveLength(1);
  });

  it('a PR that left the queue has no ETA', async () => {
    fake.addQueue('acme/web', 'main', {}, []);
    fake.addSubmittedPr('acme/web', 'main', {
      prNumber: 7,
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
    });
    expect(await reader().eta(addr, 7)).toMatchObject({ kind: 'not_in_queue' });
  });
});
