/**
 * All six operations (and both page iterators) against the shared stateful Trunk fake
 * (dev/fakes/trunk) over real HTTP on 127.0.0.1. Every body the client sends is also checked against
 * Trunk's OpenAPI document.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import {
  TrunkAuthError,
  TrunkInvalidRequestError,
  TrunkInvalidResponseError,
  TrunkNotFoundError,
  TrunkRateLimitedError,
  TrunkUnavailableError,
} from '../../src/trunk/errors.ts';
import { rejectionOf, testClient } from './helpers.ts';
import { requestBodyErrors } from './openapi.ts';

const FAKE_TOKEN = 'fake-token-7f3a9c';
const repo = { host: 'github.com', owner: 'acme', name: 'web' };
const addr = { repo, targetBranch: 'main' };
const DAY = 24 * 60 * 60 * 1000;

let fake: TrunkFake;
let t: ReturnType<typeof testClient>;
let client: TrunkApi;

beforeAll(async () => {
  fake = await startTrunkFake({ tokens: [FAKE_TOKEN] });
  t = testClient(fake.url, { auth: apiTokenAuth(FAKE_TOKEN) });
  client = t.client;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
afterEach(() => {
  const violations = fake.requests.flatMap((r) => requestBodyErrors(r.path, r.body));
  expect(violations).toEqual([]);
  for (const r of fake.requests) {
    expect(r.method).toBe('POST');
    expect(r.headers['x-api-token']).toBe(FAKE_TOKEN);
    expect(r.headers['content-type']).toBe('application/json');
  }
  fake.clearRequests();
  fake.resetFaults();
});

describe('merge queue operations', () => {
  it('getQueue returns the queue settings and enqueued PRs', async () => {
    fake.addQueue(repo, 'main', { concurrency: 4, mode: 'parallel', requiredStatuses: ['ci/build'] }, [
      { prNumber: 11, prTitle: 'First' },
      { prNumber: 12, prTitle: 'Second', priorityValue: 0, priorityName: 'urgent' },
    ]);
    const q = await client.getQueue(addr);
    expect(q).toMatchObject({ state: 'running', branch: 'main', concurrency: 4, mode: 'parallel' });
    expect(q.requiredStatuses).toEqual(['ci/build']);
    expect(q.enqueuedPullRequests?.map((p) => [p.prNumber, p.prTitle, p.priorityName])).toEqual([
      [11, 'First', 'medium'],
      [12, 'Second', 'urgent'],
    ]);
    expect(fake.requests.map((r) => [r.path, r.body])).toEqual([['/v1/getQueue', addr]]);
  });

  it('updateQueue sends only the given settings and returns (and stores) the result', async () => {
    fake.addQueue(repo, 'main');
    const q = await client.updateQueue({
      ...addr,
      state: 'paused',
      concurrency: 5,
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'rebase',
      requiredStatuses: ['ci/build', 'ci/test'],
    });
    expect(q).toMatchObject({
      state: 'paused',
      concurrency: 5,
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'rebase',
    });
    expect(q.requiredStatuses).toEqual(['ci/build', 'ci/test']);
    expect(fake.queue(repo, 'main')).toMatchObject({ state: 'paused', concurrency: 5 });
    expect(fake.requests[0]?.body).toEqual({
      ...addr,
      state: 'paused',
      concurrency: 5,
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'rebase',
      requiredStatuses: ['ci/build', 'ci/test'],
    });

    const drained = await client.updateQueue({ ...addr, state: 'draining', deleteRequiredStatuses: true });
    expect(drained.state).toBe('draining');
    expect(fake.queue(repo, 'main')?.state).toBe('draining');
  });

  it('getSubmittedPullRequest returns the PR with its readiness', async () => {
    fake.addQueue(repo, 'main');
    fake.addSubmittedPr(repo, 'main', {
      prNumber: 77,
      prTitle: 'Add feature',
      state: 'not_ready',
      readiness: { doesBaseBranchMatch: false, gitHubMergeability: 'not_mergeable' },
    });
    const pr = await client.getSubmittedPullRequest({ ...addr, pr: { number: 77 } });
    expect(pr).toMatchObject({ prNumber: 77, prTitle: 'Add feature', state: 'not_ready' });
    expect(pr.readiness).toMatchObject({ doesBaseBranchMatch: false, gitHubMergeability: 'not_mergeable' });
    expect(fake.requests[0]?.body).toEqual({ ...addr, pr: { number: 77 } });
  });

  it('getMergeQueueTestingDetails returns the run', async () => {
    fake.addQueue(repo, 'main');
    fake.addTestRun(repo, 'main', 'run-42', {
      status: 'failed',
      testedPullRequests: [
        { prNumber: 77, prUrl: 'https://github.com/acme/web/pull/77', title: 'Add feature' },
      ],
      statusChecks: [{ context: 'ci/test', url: 'https://ci.example/77' }],
    });
    const run = await client.getMergeQueueTestingDetails({ ...addr, testRunId: 'run-42' });
    expect(run.status).toBe('failed');
    expect(run.testedPullRequests.map((p) => p.prNumber)).toEqual([77]);
    expect(run.statusChecks[0]).toMatchObject({ context: 'ci/test', url: 'https://ci.example/77' });
    expect(fake.requests[0]?.body).toEqual({ ...addr, testRunId: 'run-42' });
  });

  it("an unknown queue, PR or run is TrunkNotFoundError with Trunk's text", async () => {
    const err = (await rejectionOf(client.getQueue({ ...addr, targetBranch: 'nope' }))) as TrunkNotFoundError;
    expect(err).toBeInstanceOf(TrunkNotFoundError);
    expect(err.detail).toBeTruthy();
    expect(fake.requests).toHaveLength(1);
    fake.addQueue(repo, 'main');
    expect(
      await rejectionOf(client.getSubmittedPullRequest({ ...addr, pr: { number: 99999 } })),
    ).toBeInstanceOf(TrunkNotFoundError);
    expect(
      await rejectionOf(client.getMergeQueueTestingDetails({ ...addr, testRunId: 'missing' })),
    ).toBeInstanceOf(TrunkNotFoundError);
  });

  it('a token the service does not accept is TrunkAuthError, tried once', async () => {
    const other = testClient(fake.url, { auth: apiTokenAuth('wrong-token') });
    try {
      const err = await rejectionOf(other.client.getQueue(addr));
      expect(err).toBeInstanceOf(TrunkAuthError);
      expect(String((err as Error).message)).not.toContain('wrong-token');
      expect(fake.requests).toHaveLength(1);
    } finally {
      await other.close();
      fake.clearRequests(); // recorded with another token; the afterEach checks ours
    }
  });
});

describe('flaky-test operations', () => {
  const now = Date.now();
  const window = { start_time: new Date(now - DAY).toISOString(), end_time: new Date(now).toISOString() };
  const flaky = { repo, org_url_slug: 'acme' };

  it('listFailingTests returns one page of tests in the window', async () => {
    fake.setFailingTests(repo, [
      { name: 'inside', status: { reason: 'flaky', timestamp: new Date(now - 2 * 3600_000).toISOString() } },
      { name: 'too old', status: { reason: 'flaky', timestamp: new Date(now - 3 * DAY).toISOString() } },
    ]);
    const got = await client.listFailingTests({
      ...flaky,
      ...window,
      page_query: { page_size: 10, page_token: '' },
    });
    expect(got.tests.map((x) => x.name)).toEqual(['inside']);
    expect(got.page.next_page_token).toBe('');
    expect(fake.requests[0]?.body).toEqual({
      ...flaky,
      ...window,
      page_query: { page_size: 10, page_token: '' },
    });
  });

  it('listQuarantinedTests returns one page', async () => {
    fake.setQuarantinedTests(repo, [{ name: 'q1' }, { name: 'q2' }]);
    const got = await client.listQuarantinedTests({
      ...flaky,
      page_query: { page_size: 100, page_token: '' },
    });
    expect(got.quarantined_tests.map((x) => x.name).sort()).toEqual(['q1', 'q2']);
  });

  it('failingTestPages walks 5 pages of 100 by default, following the tokens', async () => {
    fake.generateFailingTests(repo, 450, { seed: 7, start: now - DAY + 60_000, end: now - 60_000 });
    const pages = [];
    for await (const p of client.failingTestPages({ ...flaky, ...window })) pages.push(p);
    expect(pages.map((p) => p.tests.length)).toEqual([100, 100, 100, 100, 50]);
    const names = pages.flatMap((p) => p.tests.map((x) => x.id));
    expect(new Set(names).size).toBe(450);
    const sent = fake.requests.map(
      (r) => (r.body as { page_query: { page_size: number; page_token: string } }).page_query,
    );
    expect(sent[0]).toEqual({ page_size: 100, page_token: '' });
    expect(sent.slice(1).map((q) => q.page_token)).toEqual(
      pages.slice(0, 4).map((p) => p.page.next_page_token),
    );
    expect(pages.at(-1)?.page.next_page_token).toBe('');
  });

  it('quarantinedTestPages with a small page size', async () => {
    fake.generateQuarantinedTests(repo, 7, { seed: 3 });
    const sizes = [];
    for await (const p of client.quarantinedTestPages(flaky, { pageSize: 3 }))
      sizes.push(p.quarantined_tests.length);
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('an empty list is one page with no rows', async () => {
    fake.setQuarantinedTests(repo, []);
    const pages = [];
    for await (const p of client.quarantinedTestPages(flaky)) pages.push(p);
    expect(pages).toHaveLength(1);
    expect(pages[0]?.quarantined_tests).toEqual([]);
  });

  it('maxPages stops a long list with an error after that many pages', async () => {
    fake.generateQuarantinedTests(repo, 10, { seed: 4 });
    const seen: number[] = [];
    const err = await rejectionOf(
      (async () => {
        for await (const p of client.quarantinedTestPages(flaky, { pageSize: 2, maxPages: 3 })) {
          seen.push(p.quarantined_tests.length);
        }
      })(),
    );
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as Error).message).toContain('more than 3 pages');
    expect(seen).toEqual([2, 2, 2]);
    expect(fake.requests).toHaveLength(3);
  });
});

describe('faults injected by the fake', () => {
  it('a 503 then success', async () => {
    fake.addQueue(repo, 'main');
    fake.failNext(1, { status: 503, body: 'upstream unavailable' }, 'getQueue');
    const q = await client.getQueue(addr);
    expect(q.branch).toBe('main');
    expect(fake.requests.map((r) => r.status)).toEqual([503, 200]);
  });

  it('a 429 with Retry-After waits that long, then succeeds', async () => {
    fake.addQueue(repo, 'main');
    t.sleeps.length = 0;
    fake.failNext(1, { status: 429, retryAfter: 3 });
    await client.updateQueue({ ...addr, state: 'running' });
    expect(t.sleeps).toEqual([3000]);
  });

  it('a 400 from the service is TrunkInvalidRequestError, tried once', async () => {
    fake.failNext(1, { status: 400, body: 'requiredStatuses: too many entries' });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkInvalidRequestError;
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    expect(err.local).toBe(false);
    expect(err.detail).toBe('requiredStatuses: too many entries');
    expect(fake.requests).toHaveLength(1);
  });

  it('dropped connections are retried', async () => {
    fake.addQueue(repo, 'main');
    fake.dropNext(2);
    await client.getQueue(addr);
    expect(fake.requests).toHaveLength(3);
  });

  it('persistent 5xx ends as TrunkUnavailableError after the attempts', async () => {
    fake.failNext(10, { status: 500 });
    const err = await rejectionOf(client.getQueue(addr));
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(fake.requests).toHaveLength(4);
  });

  it('persistent 429 ends as TrunkRateLimitedError', async () => {
    fake.failNext(10, { status: 429 });
    expect(await rejectionOf(client.getQueue(addr))).toBeInstanceOf(TrunkRateLimitedError);
  });

  it('a slow answer past the deadline is a timeout', async () => {
    fake.addQueue(repo, 'main');
    fake.setLatency(1000);
    const err = (await rejectionOf(client.getQueue(addr, { deadlineMs: 200 }))) as TrunkUnavailableError;
    expect(err.timedOut).toBe(true);
  });

  for (const kind of ['invalid-json', 'truncated', 'empty', 'html', 'missing-field', 'wrong-type'] as const) {
    it(`a malformed answer (${kind}) is TrunkInvalidResponseError`, async () => {
      fake.addQueue(repo, 'main');
      fake.malformedNext(1, kind);
      const err = (await rejectionOf(client.getQueue(addr))) as TrunkInvalidResponseError;
      expect(err).toBeInstanceOf(TrunkInvalidResponseError);
      if (kind === 'missing-field' || kind === 'wrong-type') expect(err.field).toBeTruthy();
      expect(fake.requests).toHaveLength(1);
    });
  }

  it("older deployments' quirks (UPPERCASE, extra fields, null requiredStatuses) are read", async () => {
    fake.addQueue(repo, 'main', { state: 'paused', mergeMethod: 'merge_commit' }, [
      { prNumber: 5, state: 'testing' },
    ]);
    fake.setQuirks({ uppercaseEnums: true, extraFields: true, nullRequiredStatuses: true });
    const q = await client.getQueue(addr);
    expect(q.state).toBe('paused');
    expect(q.mergeMethod).toBe('merge_commit');
    expect(q.requiredStatuses).toEqual([]);
    expect(q.enqueuedPullRequests?.[0]?.state).toBe('testing');
    const known = new Set([
      'state',
      'branch',
      'concurrency',
      'testingTimeoutMinutes',
      'mode',
      'canOptimisticallyMerge',
      'pendingFailureDepth',
      'batch',
      'batchingMaxWaitTimeMinutes',
      'batchingMinSize',
      'createPrsForTestingBranches',
      'commentsEnabled',
      'commandsEnabled',
      'statusCheckEnabled',
      'bisectionConcurrency',
      'requiredStatuses',
      'directMergeMode',
      'optimizationMode',
      'mergeMethod',
      'enqueuedPullRequests',
    ]);
    expect(Object.keys(q).filter((k) => !known.has(k))).toEqual([]);
  });
});
