/**
 * The v2 client against the Trunk fake over real HTTP: id lookups, histories (one and batched), the dispatch
 * order, estimates (and a queue without them), errors with v2's envelope, the key as a bearer token only.
 * Every v2 request the tests make is checked against Trunk's v2 OpenAPI subset.
 */
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { TrunkAuthError, TrunkNotFoundError, TrunkUnavailableError } from '../../src/trunk/errors.ts';
import { apiKeyAuth, looksLikeV2Key } from '../../src/trunk/v2/auth.ts';
import { createTrunkV2Client, type TrunkV2Api } from '../../src/trunk/v2/client.ts';
import { createV2Ids } from '../../src/trunk/v2/ids.ts';
import { v2OperationOf, v2RequestErrors } from './openapi-v2.ts';

const V1_TOKEN = 'v1-token-for-v2-tests';
const KEY = 'trunk_v2_testkey_abc123';
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const repo = { host: 'github.com', owner: 'acme', name: 'web' };
const addr = { repo, targetBranch: 'main' };

let fake: TrunkFake;
let agent: Agent;
let client: TrunkV2Api;

function clientWith(key: string, extra: Partial<Parameters<typeof createTrunkV2Client>[0]> = {}) {
  return createTrunkV2Client({
    baseUrl: fake.url,
    auth: apiKeyAuth(key),
    dispatcher: agent,
    sleep: async () => {},
    ...extra,
  });
}

beforeAll(async () => {
  fake = await startTrunkFake({ tokens: [V1_TOKEN], now: () => NOW });
  agent = new Agent({ keepAliveTimeout: 1_000 });
  client = clientWith(KEY);
});
afterAll(async () => {
  await agent.close();
  await fake.close();
});
afterEach(() => {
  const v2 = fake.requests.filter((r) => r.path.startsWith('/v2/'));
  const violations = v2.flatMap((r) => v2RequestErrors(r.method, r.path));
  expect(violations).toEqual([]);
  for (const r of v2) expect(v2OperationOf(r.method, r.path), r.path).toBe(r.operation);
  fake.reset();
  fake.v2.setKeys({ [KEY]: [] });
});

function seed() {
  fake.v2.setKeys({ [KEY]: [] });
  fake.addQueue('acme/web', 'main', {}, [
    { prNumber: 11, prTitle: 'Testing one', prAuthor: 'dev1', state: 'testing' },
    { prNumber: 12, prTitle: 'Pending one', prAuthor: 'dev2', state: 'pending' },
  ]);
  fake.addSubmittedPr('acme/web', 'main', {
    prNumber: 13,
    prTitle: 'Kicked',
    prAuthor: 'dev3',
    state: 'failed',
    isCurrentlySubmittedToQueue: false,
  });
}

describe('Trunk v2 client', () => {
  it('sends the key as a bearer token and never the v1 header', async () => {
    seed();
    await client.findRepository('https://github.com/acme/web');
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['x-api-token']).toBeUndefined();
  });

  it('finds the repository, the queue and PR ids once, then answers from what it kept', async () => {
    seed();
    const ids = createV2Ids(client);
    const q = await ids.queue(addr);
    expect(q?.repositoryId).toBe(fake.v2.repositoryId('acme/web'));
    expect(q?.queueId).toBe(fake.v2.queueId('acme/web', 'main'));
    const prIds = await ids.pullRequests(q!.repositoryId, [11, 12, 999]);
    expect(prIds.get(11)).toBe(fake.v2.pullRequestId('acme/web', 11));
    expect(prIds.has(999)).toBe(false);
    const before = fake.requests.length;
    await ids.queue(addr);
    await ids.pullRequests(q!.repositoryId, [11, 12]);
    expect(fake.requests.length).toBe(before);
  });

  it('a repository Trunk does not know is undefined, not an error', async () => {
    seed();
    expect(await client.findRepository('https://github.com/acme/unknown')).toBeUndefined();
  });

  it('reads a failed PR history with its reason, checks and conflict culprit', async () => {
    seed();
    fake.v2.setHistory('acme/web', 11, [
      {
        state: 'pending',
        changedAt: '2026-11-20T10:00:00Z',
        reason: 'MERGE_ITEM_NOW_READY',
        actor: { gitHubLogin: 'dev1' },
      },
      { state: 'testing', changedAt: '2026-11-20T10:01:00Z', reason: null },
      {
        state: 'failed',
        changedAt: '2026-11-20T10:20:00Z',
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        failed: {
          failureCausingChecks: [{ name: 'ci/test', url: 'https://ci.example/1', conclusion: 'failure' }],
          conflictCulprit: { kind: 'pullRequest', sha: 'abc', number: 9 },
        },
      },
    ]);
    const id = fake.v2.pullRequestId('acme/web', 11);
    const history = await client.queueEntryHistory(id);
    expect(history.map((t) => t.state)).toEqual(['pending', 'testing', 'failed']);
    expect(history[0]!.actor?.gitHubLogin).toBe('dev1');
    expect(history[2]!.reason).toBe('START_TEST_RUN_MERGE_CONFLICT');
    expect(history[2]!.failed?.failureCausingChecks[0]).toMatchObject({
      name: 'ci/test',
      conclusion: 'failure',
    });
    expect(history[2]!.failed?.conflictCulprit?.number).toBe(9);
  });

  it('keeps reading pages until hasMore is false', async () => {
    seed();
    const many = Array.from({ length: 130 }, (_, i) => ({
      state: i % 2 ? 'testing' : 'pending',
      changedAt: new Date(NOW - (200 - i) * 60_000).toISOString(),
      reason: null,
    }));
    fake.v2.setHistory('acme/web', 12, many);
    const history = await client.queueEntryHistory(fake.v2.pullRequestId('acme/web', 12));
    expect(history).toHaveLength(130);
    expect(fake.requestsTo('pullRequests.queueEntryHistory')).toHaveLength(2);
  });

  it('reads up to 50 histories in one request, under the ids it was given', async () => {
    seed();
    const a = fake.v2.pullRequestId('acme/web', 11);
    const b = fake.v2.pullRequestId('acme/web', 12);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const out = await client.queueEntryHistoryBatch([a.toUpperCase(), b, unknown]);
    expect(out.get(a.toUpperCase())?.at(-1)?.state).toBe('testing');
    expect(out.get(b)?.at(-1)?.state).toBe('pending');
    expect(out.get(unknown)).toEqual([]);
    expect(fake.requestsTo('pullRequests.queueEntryHistoryBatch')).toHaveLength(1);
    await expect(client.queueEntryHistoryBatch(Array.from({ length: 51 }, () => a))).rejects.toMatchObject({
      rule: 'takes at most 50 ids',
      local: true,
    });
  });

  it('reads the dispatch order with what each pending PR waits behind', async () => {
    seed();
    const order = await client.mergeQueueOrder(fake.v2.queueId('acme/web', 'main')!);
    expect(order.batches[0]!.pullRequests[0]!.number).toBe(11);
    expect(order.pending[0]!.pullRequest.number).toBe(12);
    expect(order.pending[0]!.directlyAhead.map((p) => p.number)).toEqual([11]);
  });

  it('an estimate, and a queue without estimates, which is not an error', async () => {
    seed();
    fake.v2.setEstimate('acme/web', 12, {
      status: 'available',
      kind: 'merge',
      estimatedAt: '2026-11-20T13:00:00Z',
    });
    const id = fake.v2.pullRequestId('acme/web', 12);
    const got = await client.queueEntryEstimate(id);
    expect(got).toMatchObject({
      kind: 'estimate',
      estimate: { status: 'available', estimatedAt: '2026-11-20T13:00:00Z' },
    });
    fake.v2.disableEstimates('acme/web', 'main');
    expect(await client.queueEntryEstimate(id)).toEqual({ kind: 'not_enabled' });
  });

  it('an unknown reason, state and conclusion are kept as sent', async () => {
    seed();
    fake.v2.setHistory('acme/web', 11, [
      {
        state: 'quarantinedForever',
        changedAt: '2026-11-20T10:00:00Z',
        reason: 'SOMETHING_NEW',
        failed: { failureCausingChecks: [{ name: 'x', conclusion: 'exploded' }] },
      },
    ]);
    const [t] = await client.queueEntryHistory(fake.v2.pullRequestId('acme/web', 11));
    expect(t).toMatchObject({ state: 'quarantinedForever', reason: 'SOMETHING_NEW' });
    expect(t?.failed?.failureCausingChecks[0]?.conclusion).toBe('exploded');
  });

  it('403 INSUFFICIENT_PERMISSIONS keeps the code and the permission Trunk names', async () => {
    seed();
    fake.v2.failNext(
      'pullRequests.get',
      403,
      'INSUFFICIENT_PERMISSIONS',
      'This API key requires the "Merge and cancel PRs" permission',
    );
    const err = await client.getPullRequest(fake.v2.pullRequestId('acme/web', 11)).catch((e) => e);
    expect(err).toBeInstanceOf(TrunkAuthError);
    expect(err.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(err.userMessage).toContain('Merge and cancel PRs');
  });

  it('the v1 token is refused by v2 (401) and never appears in the error', async () => {
    seed();
    const wrong = clientWith(V1_TOKEN);
    const err = await wrong.findRepository('https://github.com/acme/web').catch((e) => e);
    expect(err).toBeInstanceOf(TrunkAuthError);
    expect(err.userMessage).toMatch(/v2 API key/);
    expect(`${err.message} ${err.detail ?? ''}`).not.toContain(V1_TOKEN);
  });

  it('404 with a code is not found; 5xx is retried then unavailable', async () => {
    seed();
    const missing = await client.getPullRequest('00000000-0000-4000-8000-000000000001').catch((e) => e);
    expect(missing).toBeInstanceOf(TrunkNotFoundError);
    expect(missing.code).toBe('PR_NOT_FOUND');
    for (let i = 0; i < 4; i++) fake.v2.failNext('mergeQueues.order', 503, 'INTERNAL_ERROR', 'try later');
    const down = await client.mergeQueueOrder(fake.v2.queueId('acme/web', 'main')!).catch((e) => e);
    expect(down).toBeInstanceOf(TrunkUnavailableError);
    expect(fake.requestsTo('mergeQueues.order')).toHaveLength(4);
  });

  it('PR reads wait on the key’s own bucket, other reads on the organization’s', async () => {
    seed();
    const waited: string[] = [];
    const c = clientWith(KEY, {
      budget: { acquire: async () => void waited.push('org') },
      pullRequestReads: { acquire: async () => void waited.push('pr') },
    });
    await c.mergeQueueOrder(fake.v2.queueId('acme/web', 'main')!);
    await c.getPullRequest(fake.v2.pullRequestId('acme/web', 11));
    await c.queueEntryEstimate(fake.v2.pullRequestId('acme/web', 11));
    expect(waited).toEqual(['org', 'pr', 'pr']);
  });

  it('recognises the shape of a v2 key', () => {
    expect(looksLikeV2Key(KEY)).toBe(true);
    expect(looksLikeV2Key('abc')).toBe(false);
    expect(looksLikeV2Key('trunk_v2_')).toBe(false);
  });
});
