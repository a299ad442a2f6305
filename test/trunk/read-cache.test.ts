/**
 * The process's Trunk read cache on its own, over the real client and the Trunk fake: identical reads in
 * flight cost one request, a fresh entry answers, a change forgets its queue, failures are not kept, and one
 * connection's reads never answer another's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { createTrunkReadCache } from '../../src/trunk/read-cache.ts';

const WEB = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
let fake: TrunkFake;
let raw: TrunkApi;

beforeAll(async () => {
  fake = await startTrunkFake({ tokens: ['t1', 't2'] });
  raw = createTrunkClient({ baseUrl: fake.url, auth: apiTokenAuth('t1'), retry: { maxAttempts: 1 } });
});
afterAll(async () => fake?.close());

describe('Trunk read cache', () => {
  it('joins identical reads in flight, answers from a fresh entry, and forgets a queue a change touched', async () => {
    fake.addQueue('acme/web', 'main', { state: 'running' });
    fake.clearRequests();
    let t = 0;
    const cache = createTrunkReadCache({ ttlMs: 5_000, now: () => t });
    const view = cache.wrap(raw, 'acme:t1', { prefer: true });
    const command = cache.wrap(raw, 'acme:t1');
    const all = await Promise.all(Array.from({ length: 20 }, () => view.getQueue(WEB)));
    expect(all.every((q) => q.state === 'running')).toBe(true);
    expect(fake.requestsTo('getQueue')).toHaveLength(1);
    t = 4_000;
    await view.getQueue(WEB);
    expect(fake.requestsTo('getQueue')).toHaveLength(1);
    // A command reads fresh, and what it read answers the next view.
    fake.patchQueue('acme/web', 'main', { state: 'draining' });
    expect((await command.getQueue(WEB)).state).toBe('draining');
    expect((await view.getQueue(WEB)).state).toBe('draining');
    expect(fake.requestsTo('getQueue')).toHaveLength(2);
    // A change forgets the queue: the next view reads again and sees it.
    await command.updateQueue({ ...WEB, state: 'paused' });
    expect((await view.getQueue(WEB)).state).toBe('paused');
    expect(fake.requestsTo('getQueue')).toHaveLength(3);
    // Past the TTL, asked again.
    t = 20_000;
    await view.getQueue(WEB);
    expect(fake.requestsTo('getQueue')).toHaveLength(4);
  });

  it('keeps no failure, and never answers one connection with what another read', async () => {
    fake.addQueue('acme/api', 'main', { state: 'running' });
    const API = { ...WEB, repo: { ...WEB.repo, name: 'api' } };
    fake.clearRequests();
    const cache = createTrunkReadCache();
    const mine = cache.wrap(raw, 'acme:t1', { prefer: true });
    const theirs = cache.wrap(
      createTrunkClient({ baseUrl: fake.url, auth: apiTokenAuth('t2'), retry: { maxAttempts: 1 } }),
      'acme:t2',
      { prefer: true },
    );
    fake.failNext(1, { status: 500 }, 'getQueue');
    await expect(mine.getQueue(API)).rejects.toThrow();
    expect((await mine.getQueue(API)).state).toBe('running');
    await theirs.getQueue(API);
    expect(fake.requestsTo('getQueue')).toHaveLength(3);
    // Listings page through the cache too.
    fake.enqueuePr('acme/api', 'main', { prNumber: 5, state: 'pending' });
    for (let i = 0; i < 2; i++) for await (const _ of mine.pullRequestPages(API, { pageSize: 100 })) void _;
    expect(fake.requestsTo('listPullRequests')).toHaveLength(1);
  });
});
