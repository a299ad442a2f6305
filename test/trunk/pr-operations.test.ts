/**
 * The PR-level operations (submit, cancel, restart, list) through the client against the stateful Trunk
 * fake over real HTTP, including answers lost after Trunk applied the change. Every body the client sends
 * is checked against Trunk's OpenAPI document.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { trunkHint } from '../../src/slack/blocks/errors.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import {
  TrunkAuthError,
  TrunkInvalidRequestError,
  TrunkNotFoundError,
  TrunkUnavailableError,
} from '../../src/trunk/errors.ts';
import { rejectionOf, testClient } from './helpers.ts';
import { requestBodyErrors } from './openapi.ts';

const FAKE_TOKEN = 'fake-token-pr-ops';
const NOW = Date.UTC(2026, 0, 20, 12, 0, 0);
const repo = { host: 'github.com', owner: 'acme', name: 'web' };
const addr = { repo, targetBranch: 'main' };
const pr = (number: number) => ({ ...addr, pr: { number } });

let fake: TrunkFake;
let t: ReturnType<typeof testClient>;
let client: TrunkApi;

beforeAll(async () => {
  fake = await startTrunkFake({ tokens: [FAKE_TOKEN], now: () => NOW });
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
  fake.reset();
});

const inQueue = async (n: number) =>
  (await client.getQueue(addr)).enqueuedPullRequests?.filter((p) => p.prNumber === n) ?? [];

describe('submitPullRequest', () => {
  it('puts the PR in getQueue and getSubmittedPullRequest with its priority and noBatch', async () => {
    fake.addQueue(repo, 'main');
    const change = await client.submitPullRequest({ ...pr(42), priority: 'HIGH', noBatch: true });
    expect(change).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(fake.requestsTo('submitPullRequest')[0]?.body).toEqual({
      repo,
      targetBranch: 'main',
      pr: { number: 42 },
      priority: 'high',
      noBatch: true,
    });
    const [queued] = await inQueue(42);
    expect(queued).toMatchObject({
      state: 'pending',
      priorityValue: 10,
      priorityName: 'high',
      noBatch: true,
    });
    const read = await client.getSubmittedPullRequest(pr(42));
    expect(read).toMatchObject({ prNumber: 42, state: 'pending', isCurrentlySubmittedToQueue: true });
  });

  it('a numeric priority is sent as a number; urgent (0) skips the line', async () => {
    fake.addQueue(repo, 'main');
    await client.submitPullRequest({ ...pr(7), priority: 0 });
    await client.submitPullRequest({ ...pr(8), priority: 150 });
    expect(
      fake.requestsTo('submitPullRequest').map((r) => (r.body as { priority: unknown }).priority),
    ).toEqual([0, 150]);
    const q = await client.getQueue(addr);
    expect(q.enqueuedPullRequests?.map((p) => [p.prNumber, p.priorityValue, p.skipTheLine])).toEqual([
      [7, 0, true],
      [8, 150, false],
    ]);
  });

  it("Trunk's 400 for a PR already in the queue is a TrunkInvalidRequestError, sent once", async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 5 }]);
    const err = await rejectionOf(client.submitPullRequest(pr(5)));
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    expect((err as TrunkInvalidRequestError).detail).toMatch(/#5 is already in merge queue/);
    expect(fake.requestsTo('submitPullRequest')).toHaveLength(1);
  });

  it('404 for an unknown queue names it; 401 for a wrong token', async () => {
    const err = await rejectionOf(client.submitPullRequest(pr(1)));
    expect(err).toBeInstanceOf(TrunkNotFoundError);
    expect((err as TrunkNotFoundError).userMessage).toBe(
      'Trunk found no PR #1 in the merge queue for acme/web:main.',
    );
    const stranger = testClient(fake.url, { auth: apiTokenAuth('wrong-token') });
    try {
      expect(await rejectionOf(stranger.client.submitPullRequest(pr(1)))).toBeInstanceOf(TrunkAuthError);
    } finally {
      await stranger.close();
    }
  });

  it('bad input is refused before sending, saying what to type', async () => {
    const err = await rejectionOf(client.submitPullRequest({ ...pr(3), priority: 'asap' }));
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    expect((err as TrunkInvalidRequestError).local).toBe(true);
    expect((err as TrunkInvalidRequestError).userMessage).toBe(
      '`priority` must be one of urgent, high, medium, low, none or a whole number from 0 to 4294967295 (lower is sooner).',
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe('a lost answer after Trunk applied the change is settled by reading the PR', () => {
  for (const how of ['hang', 'drop', { status: 502 }] as const) {
    it(`submit whose answer was lost (${typeof how === 'string' ? how : '502'}): one PR in the queue, sent once`, async () => {
      fake.addQueue(repo, 'main');
      fake.loseAnswerNext(1, how, 'submitPullRequest');
      const change = await client.submitPullRequest(pr(77), { deadlineMs: 1_000 });
      expect(change.confirmedBy).toBe('read_back');
      expect(change.sent).toBe(1);
      expect(change.pullRequest).toMatchObject({ prNumber: 77, state: 'pending' });
      expect(fake.requestsTo('submitPullRequest')).toHaveLength(1);
      expect(fake.requestsTo('getSubmittedPullRequest')).toHaveLength(1);
      expect(await inQueue(77)).toHaveLength(1);
    });
  }

  it('submit that failed before Trunk applied it (503, PR not there) is sent exactly once more', async () => {
    fake.addQueue(repo, 'main');
    fake.failNext(1, { status: 503 }, 'submitPullRequest');
    const change = await client.submitPullRequest(pr(78));
    expect(change).toEqual({ confirmedBy: 'answer', sent: 2 });
    expect(fake.requestsTo('submitPullRequest')).toHaveLength(2);
    expect(await inQueue(78)).toHaveLength(1);
  });

  it('a re-submitted failed PR whose answer was lost reads as in the queue: not sent again', async () => {
    fake.addQueue(repo, 'main');
    fake.addSubmittedPr(repo, 'main', { prNumber: 79, state: 'failed', isCurrentlySubmittedToQueue: false });
    fake.loseAnswerNext(1, 'drop', 'submitPullRequest');
    const change = await client.submitPullRequest(pr(79));
    expect(change).toMatchObject({ confirmedBy: 'read_back', sent: 1 });
    expect(fake.requestsTo('submitPullRequest')).toHaveLength(1);
  });

  it('cancel whose answer timed out reads as cancelled: success, not sent again', async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 80 }]);
    fake.loseAnswerNext(1, 'hang', 'cancelPullRequest');
    const change = await client.cancelPullRequest(pr(80), { deadlineMs: 1_000 });
    expect(change).toMatchObject({ confirmedBy: 'read_back', sent: 1, pullRequest: { state: 'cancelled' } });
    expect(fake.requestsTo('cancelPullRequest')).toHaveLength(1);
    expect(await inQueue(80)).toEqual([]);
  });

  it('cancel that failed before being applied (500, PR still queued) is sent once more', async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 81 }]);
    fake.failNext(1, { status: 500 }, 'cancelPullRequest');
    expect(await client.cancelPullRequest(pr(81))).toEqual({ confirmedBy: 'answer', sent: 2 });
    expect(fake.requestsTo('cancelPullRequest')).toHaveLength(2);
  });

  it('when reading the PR fails too, the lost error is reported and nothing is sent again', async () => {
    fake.addQueue(repo, 'main');
    fake.loseAnswerNext(1, 'drop', 'submitPullRequest');
    fake.failNext(4, { status: 503 }, 'getSubmittedPullRequest');
    const err = await rejectionOf(client.submitPullRequest(pr(82)));
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect((err as TrunkUnavailableError).operation).toBe('submitPullRequest');
    expect(trunkHint(err as TrunkUnavailableError)).toMatch(/may have done it anyway/);
    expect(fake.requestsTo('submitPullRequest')).toHaveLength(1);
  });

  it('a second lost answer is reported, not settled by a third sending', async () => {
    fake.addQueue(repo, 'main');
    fake.failNext(2, { status: 503 }, 'submitPullRequest');
    const err = await rejectionOf(client.submitPullRequest(pr(83)));
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(fake.requestsTo('submitPullRequest')).toHaveLength(2);
  });
});

describe('cancelPullRequest', () => {
  it('takes the PR out of getQueue; it reads as cancelled and no longer submitted', async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 10 }, { prNumber: 11 }]);
    expect(await client.cancelPullRequest(pr(10))).toEqual({ confirmedBy: 'answer', sent: 1 });
    const q = await client.getQueue(addr);
    expect(q.enqueuedPullRequests?.map((p) => p.prNumber)).toEqual([11]);
    expect(await client.getSubmittedPullRequest(pr(10))).toMatchObject({
      state: 'cancelled',
      isCurrentlySubmittedToQueue: false,
      stateChangedAt: new Date(NOW).toISOString(),
    });
  });

  it('404 for a PR the queue never had; 400 for one already out of it', async () => {
    fake.addQueue(repo, 'main');
    fake.addSubmittedPr(repo, 'main', { prNumber: 12, state: 'merged', isCurrentlySubmittedToQueue: false });
    expect(await rejectionOf(client.cancelPullRequest(pr(404)))).toBeInstanceOf(TrunkNotFoundError);
    const err = await rejectionOf(client.cancelPullRequest(pr(12)));
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    expect((err as TrunkInvalidRequestError).detail).toMatch(/not in the merge queue \(merged\)/);
  });
});

describe('restartTestsOnPullRequest', () => {
  it('moves a failed PR back to testing, in getQueue', async () => {
    fake.addQueue(repo, 'main');
    fake.addSubmittedPr(repo, 'main', { prNumber: 20, state: 'failed', isCurrentlySubmittedToQueue: false });
    expect(await client.restartTestsOnPullRequest(pr(20))).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(await inQueue(20)).toMatchObject([{ state: 'testing' }]);
    expect(await client.getSubmittedPullRequest(pr(20))).toMatchObject({
      state: 'testing',
      isCurrentlySubmittedToQueue: true,
    });
  });

  it('moves a pending_failure PR back to testing; refuses a pending one with 400', async () => {
    fake.addQueue(repo, 'main', {}, [
      { prNumber: 21, state: 'pending_failure' },
      { prNumber: 22, state: 'pending' },
    ]);
    await client.restartTestsOnPullRequest(pr(21));
    expect(await inQueue(21)).toMatchObject([{ state: 'testing' }]);
    const err = await rejectionOf(client.restartTestsOnPullRequest(pr(22)));
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    expect((err as TrunkInvalidRequestError).detail).toMatch(/#22 is pending/);
  });

  it('is not repeated after a 5xx or a lost answer: one request, an error saying it may have happened', async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 23, state: 'pending_failure' }]);
    fake.failNext(1, { status: 503 }, 'restartTestsOnPullRequest');
    const err = await rejectionOf(client.restartTestsOnPullRequest(pr(23)));
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(trunkHint(err as TrunkUnavailableError)).toMatch(/may have done it anyway/);
    expect(fake.requestsTo('restartTestsOnPullRequest')).toHaveLength(1);
    expect(fake.requestsTo('getSubmittedPullRequest')).toHaveLength(0);

    fake.loseAnswerNext(1, 'drop', 'restartTestsOnPullRequest');
    expect(await rejectionOf(client.restartTestsOnPullRequest(pr(23)))).toBeInstanceOf(TrunkUnavailableError);
    expect(fake.requestsTo('restartTestsOnPullRequest')).toHaveLength(2);
    expect(await inQueue(23)).toMatchObject([{ state: 'testing' }]);
  });

  it('a 429 (refused before anything happened) is retried', async () => {
    fake.addQueue(repo, 'main', {}, [{ prNumber: 24, state: 'pending_failure' }]);
    fake.failNext(1, { status: 429, retryAfter: 0 }, 'restartTestsOnPullRequest');
    expect(await client.restartTestsOnPullRequest(pr(24))).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(fake.requestsTo('restartTestsOnPullRequest')).toHaveLength(2);
  });
});

describe('listPullRequests', () => {
  function setUp() {
    fake.addQueue(repo, 'main', {}, [
      { prNumber: 1, state: 'testing' },
      { prNumber: 2, state: 'pending' },
      { prNumber: 3, state: 'pending' },
    ]);
    const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
    fake.addSubmittedPr(repo, 'main', {
      prNumber: 4,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
      stateChangedAt: at(30),
    });
    fake.addSubmittedPr(repo, 'main', {
      prNumber: 5,
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
      stateChangedAt: at(300),
    });
  }

  it('pages through every PR with the cursor until none is left', async () => {
    setUp();
    const pages = [];
    for await (const page of client.pullRequestPages(addr, { pageSize: 2 })) pages.push(page);
    expect(pages.map((p) => p.pullRequests.map((r) => r.prNumber))).toEqual([[1, 2], [3, 4], [5]]);
    expect(pages.at(-1)?.nextCursor).toBe('');
    const bodies = fake.requestsTo('listPullRequests').map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toEqual({ repo, targetBranch: 'main', take: 2 });
    expect(bodies[1]?.cursor).toBe(pages[0]?.nextCursor);
  });

  it('filters by state, and by a time for concluded PRs', async () => {
    setUp();
    const pending = await client.listPullRequests({ ...addr, state: 'pending' });
    expect(pending.pullRequests.map((r) => r.prNumber)).toEqual([2, 3]);
    const since = new Date(NOW - 60 * 60_000).toISOString();
    const recent = await client.listPullRequests({ ...addr, since });
    expect(recent.pullRequests.map((r) => [r.prNumber, r.state])).toEqual([[4, 'merged']]);
    const failed = await client.listPullRequests({ ...addr, state: 'failed' });
    expect(failed.pullRequests.map((r) => r.prNumber)).toEqual([5]);
  });

  it('a submitted PR is listed and a cancelled one moves to cancelled', async () => {
    fake.addQueue(repo, 'main');
    await client.submitPullRequest(pr(60));
    await client.submitPullRequest(pr(61));
    await client.cancelPullRequest(pr(60));
    const page = await client.listPullRequests(addr);
    expect(page.pullRequests.map((r) => [r.prNumber, r.state])).toEqual([
      [61, 'pending'],
      [60, 'cancelled'],
    ]);
  });

  it('bad filters are refused before the first page; a forged cursor gets 400', async () => {
    const badState = rejectionOf(client.pullRequestPages({ ...addr, state: 'queued' as 'pending' }).next());
    expect(await badState).toMatchObject({ field: 'state', local: true });
    const badSince = await rejectionOf(client.listPullRequests({ ...addr, since: 'yesterday' }));
    expect(badSince).toMatchObject({ field: 'since', local: true });
    expect(await rejectionOf(client.listPullRequests({ ...addr, take: 500 }))).toMatchObject({
      field: 'take',
    });
    expect(fake.requests).toHaveLength(0);
    fake.addQueue(repo, 'main');
    const forged = await rejectionOf(
      client.listPullRequests({ ...addr, cursor: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(forged).toBeInstanceOf(TrunkInvalidRequestError);
    expect((forged as TrunkInvalidRequestError).detail).toMatch(/cursor .* is not valid/);
  });
});
