/**
 * The PR operations against a scripted server, for answers the fake does not give: tolerant reading of
 * the writes' `{}` and of listPullRequests' pages, contract breaks, the error taxonomy, and cursors that
 * repeat. Every body the client sends is checked against the OpenAPI document.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  TrunkAuthError,
  TrunkInvalidRequestError,
  TrunkInvalidResponseError,
  TrunkNotFoundError,
} from '../../src/trunk/errors.ts';
import { REPO, rejectionOf, type ScriptedServer, startScripted, testClient } from './helpers.ts';

let server: ScriptedServer;
let t: ReturnType<typeof testClient>;
const addr = { repo: REPO, targetBranch: 'main' };
const pr = { ...addr, pr: { number: 9 } };

const row = (prNumber: number, extra: Record<string, unknown> = {}) => ({
  id: `pr_${prNumber}`,
  state: 'pending',
  stateChangedAt: '2026-01-20T11:00:00Z',
  priorityValue: 100,
  priorityName: 'medium',
  usedDefaultPriorityName: 'medium',
  skipTheLine: false,
  noBatch: false,
  prNumber,
  prTitle: `PR ${prNumber}`,
  prSha: 'a'.repeat(40),
  prBaseBranch: 'main',
  prAuthor: 'mara',
  ...extra,
});
const CURSOR_A = '3f0c1a52-9d64-4c1e-8d8a-0b6f3e9e1a01';
const CURSOR_B = '3f0c1a52-9d64-4c1e-8d8a-0b6f3e9e1a02';

beforeAll(async () => {
  server = await startScripted();
  t = testClient(server.url);
});
afterAll(async () => {
  await t.close();
  await server.close();
});
afterEach(() => {
  expect(server.bodyViolations()).toEqual([]);
  server.reset();
});

describe('writes: any 2xx answer means done', () => {
  it('`{}`, an empty body and extra fields are all success', async () => {
    server.script({ json: {} }, { status: 200, text: '' }, { json: { ok: true, requestId: 'r1' } });
    expect(await t.client.submitPullRequest(pr)).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(await t.client.cancelPullRequest(pr)).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(await t.client.restartTestsOnPullRequest(pr)).toEqual({ confirmedBy: 'answer', sent: 1 });
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/submitPullRequest',
      '/v1/cancelPullRequest',
      '/v1/restartTestsOnPullRequest',
    ]);
  });

  it('400, 401 and 404 map to the taxonomy, each after one request and no read', async () => {
    server.script(
      { status: 400, text: 'pr.number must be an integer' },
      { status: 401, text: 'Unauthorized' },
      { status: 404, text: 'pull request not found' },
    );
    const invalid = await rejectionOf(t.client.submitPullRequest(pr));
    expect(invalid).toBeInstanceOf(TrunkInvalidRequestError);
    expect((invalid as TrunkInvalidRequestError).userMessage).toBe(
      'Trunk refused the request: pr.number must be an integer',
    );
    expect(await rejectionOf(t.client.cancelPullRequest(pr))).toBeInstanceOf(TrunkAuthError);
    const missing = await rejectionOf(t.client.restartTestsOnPullRequest(pr));
    expect(missing).toBeInstanceOf(TrunkNotFoundError);
    expect((missing as TrunkNotFoundError).userMessage).toBe(
      'Trunk found no PR #9 in the merge queue for acme/web:main.',
    );
    expect(server.requests).toHaveLength(3);
  });

  it('a submit lost to a network error, with the PR then not found (404), is sent once more', async () => {
    server.script({ destroy: true }, { status: 404, text: 'pull request not found' }, { json: {} });
    expect(await t.client.submitPullRequest({ ...pr, priority: 'urgent' })).toEqual({
      confirmedBy: 'answer',
      sent: 2,
    });
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/submitPullRequest',
      '/v1/getSubmittedPullRequest',
      '/v1/submitPullRequest',
    ]);
    expect(server.requests[2]?.raw).toBe(server.requests[0]?.raw);
  });
});

describe('listPullRequests: tolerant reading', () => {
  it('reads UPPERCASE states, ignores extra fields, reads a left-out nextCursor and id as ""', async () => {
    const { id: _id, ...noId } = row(2);
    server.script({
      json: { pullRequests: [row(1, { state: 'PENDING_FAILURE', queuePosition: 3 }), noId], total: 2 },
    });
    const page = await t.client.listPullRequests(addr);
    expect(page.nextCursor).toBe('');
    expect(page.pullRequests[0]?.state).toBe('pending_failure');
    expect(page.pullRequests[0]).not.toHaveProperty('queuePosition');
    expect(page).not.toHaveProperty('total');
    expect(page.pullRequests[1]?.id).toBe('');
  });

  it('keeps a state it does not know; reads null pullRequests and null nextCursor', async () => {
    server.script(
      { json: { pullRequests: [row(3, { state: 'Queued_For_Bisection' })], nextCursor: null } },
      { json: { pullRequests: null } },
    );
    expect((await t.client.listPullRequests(addr)).pullRequests[0]?.state).toBe('queued_for_bisection');
    expect(await t.client.listPullRequests(addr)).toEqual({ pullRequests: [], nextCursor: '' });
  });

  it('a row without prNumber breaks the contract, naming the field', async () => {
    const { prNumber: _n, ...broken } = row(4);
    server.script({ json: { pullRequests: [row(5), broken] } });
    const err = await rejectionOf(t.client.listPullRequests(addr));
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as TrunkInvalidResponseError).field).toBe('pullRequests[1].prNumber');
  });

  it('paging stops with an error when Trunk hands back a cursor it gave before', async () => {
    server.script(
      { json: { pullRequests: [row(1)], nextCursor: CURSOR_A } },
      { json: { pullRequests: [row(2)], nextCursor: CURSOR_B } },
      { json: { pullRequests: [row(3)], nextCursor: CURSOR_A } },
    );
    const seen: number[] = [];
    const err = await rejectionOf(
      (async () => {
        for await (const page of t.client.pullRequestPages({ ...addr, state: 'pending' }, { pageSize: 1 }))
          seen.push(...page.pullRequests.map((r) => r.prNumber));
      })(),
    );
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as TrunkInvalidResponseError).field).toBe('nextCursor');
    expect(seen).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => (r.body as { cursor?: string }).cursor)).toEqual([
      undefined,
      CURSOR_A,
      CURSOR_B,
    ]);
  });
});
