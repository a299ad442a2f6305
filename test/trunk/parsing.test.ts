/**
 * Tolerant response parsing over real HTTP: the variations the real service produces are read, and an
 * answer that truly breaks the contract becomes TrunkInvalidResponseError naming the field.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { TrunkInvalidResponseError } from '../../src/trunk/errors.ts';
import {
  failingTest,
  page,
  quarantinedTest,
  queueSettings,
  queueWithPrs,
  submittedPr,
  testRun,
} from './fixtures.ts';
import { REPO, rejectionOf, type ScriptedServer, startScripted, testClient } from './helpers.ts';

let server: ScriptedServer;
let t: ReturnType<typeof testClient>;
let client: TrunkApi;
const addr = { repo: REPO, targetBranch: 'main' };
const flaky = { repo: REPO, org_url_slug: 'acme', page_query: { page_size: 100, page_token: '' } };
const window = { start_time: '2026-11-20T00:00:00Z', end_time: '2026-11-21T00:00:00Z' };

beforeAll(async () => {
  server = await startScripted();
  t = testClient(server.url, { retry: { maxAttempts: 1 } });
  client = t.client;
});
afterAll(async () => {
  await t.close();
  await server.close();
});
afterEach(() => {
  expect(server.bodyViolations()).toEqual([]);
  server.reset();
});

async function invalid(p: Promise<unknown>, field: string) {
  const err = await rejectionOf(p);
  expect(err).toBeInstanceOf(TrunkInvalidResponseError);
  const e = err as TrunkInvalidResponseError;
  expect(e.field).toBe(field);
  expect(e.message).toContain(`\`${field}\``);
  expect(e.userMessage).toContain(field);
  return e;
}

describe('tolerant reading', () => {
  it('UPPERCASE enums are read as lowercase', async () => {
    const q = queueWithPrs(1);
    server.script({
      json: {
        ...q,
        state: 'PAUSED',
        mode: 'PARALLEL',
        mergeMethod: 'Merge_Commit',
        directMergeMode: 'ALWAYS',
        optimizationMode: 'BISECTION_SKIP_REDUNDANT_TESTS',
        enqueuedPullRequests: [{ ...q.enqueuedPullRequests[0], state: 'TESTS_PASSED' }],
      },
    });
    const got = await client.getQueue(addr);
    expect(got.state).toBe('paused');
    expect(got.mode).toBe('parallel');
    expect(got.mergeMethod).toBe('merge_commit');
    expect(got.directMergeMode).toBe('always');
    expect(got.optimizationMode).toBe('bisection_skip_redundant_tests');
    expect(got.enqueuedPullRequests?.[0]?.state).toBe('tests_passed');
  });

  it('an unknown enum value is kept (lowercased), not a crash', async () => {
    server.script({ json: { ...queueSettings(), state: 'MIGRATING', mergeMethod: 'fast_forward' } });
    const got = await client.updateQueue({ ...addr, concurrency: 2 });
    expect(got.state).toBe('migrating');
    expect(got.mergeMethod).toBe('fast_forward');
  });

  it('extra fields are ignored (and not passed on)', async () => {
    server.script({ json: { ...queueWithPrs(0), futureSetting: { x: 1 }, mergeQueueId: 'abc' } });
    const got = await client.getQueue(addr);
    expect(got).not.toHaveProperty('futureSetting');
    expect(got).not.toHaveProperty('mergeQueueId');
    expect(got.branch).toBe('main');
  });

  it('null requiredStatuses and null enqueuedPullRequests read as []', async () => {
    server.script({ json: { ...queueSettings(), requiredStatuses: null, enqueuedPullRequests: null } });
    const got = await client.getQueue(addr);
    expect(got.requiredStatuses).toEqual([]);
    expect(got.enqueuedPullRequests).toEqual([]);
  });

  it('0 integer settings are accepted (meaning off)', async () => {
    server.script({
      json: { ...queueWithPrs(0), pendingFailureDepth: 0, batchingMaxWaitTimeMinutes: 0, concurrency: 0 },
    });
    const got = await client.getQueue(addr);
    expect(got.pendingFailureDepth).toBe(0);
    expect(got.batchingMaxWaitTimeMinutes).toBe(0);
    expect(got.concurrency).toBe(0);
  });

  it('ticket null or absent is fine; present is kept', async () => {
    const withTicket = failingTest(1);
    const nullTicket = { ...failingTest(2), ticket: null };
    const { ticket: _omit, ...noTicket } = failingTest(3);
    server.script({ json: { tests: [withTicket, nullTicket, noTicket], page: page('') } });
    const got = await client.listFailingTests({ ...flaky, ...window });
    expect(got.tests.map((x) => x.ticket?.html_url ?? null)).toEqual([
      'https://linear.app/acme/issue/WEB-1',
      null,
      null,
    ]);
    expect(got.tests[1]).not.toHaveProperty('ticket');
    expect(got.tests[0]?.status.value).toBe('flaky');
  });

  it('quarantined tests: null parent/file/classname read "", enums lowercase', async () => {
    server.script({
      json: {
        quarantined_tests: [{ ...quarantinedTest(1), parent: null, file: null, classname: null }],
        page: page(''),
      },
    });
    const got = await client.listQuarantinedTests(flaky);
    expect(got.quarantined_tests[0]).toMatchObject({
      parent: '',
      file: '',
      classname: '',
      status: 'flaky',
      quarantine_setting: 'auto_quarantine',
    });
  });

  it('submitted PR: readiness optional, mergeability lowercased', async () => {
    const pr = submittedPr();
    server.script(
      { json: { ...pr, readiness: { ...pr.readiness, gitHubMergeability: 'NOT_MERGEABLE' } } },
      { json: { ...pr, readiness: null, state: undefined } },
    );
    expect(
      (await client.getSubmittedPullRequest({ ...addr, pr: { number: 1234 } })).readiness?.gitHubMergeability,
    ).toBe('not_mergeable');
    const second = await client.getSubmittedPullRequest({ ...addr, pr: { number: 1234 } });
    expect(second.readiness).toBeUndefined();
    expect(second.state).toBeUndefined();
  });

  it('test run: check conclusions lowercased, missing status-check url reads "", null lists []', async () => {
    const run = testRun();
    server.script({
      json: {
        ...run,
        statusChecks: [{ context: 'ci/lint', state: 'FAILURE' }],
        impactedTargets: null,
        checkSuites: null,
      },
    });
    const got = await client.getMergeQueueTestingDetails({ ...addr, testRunId: 'run-1' });
    expect(got.statusChecks).toEqual([{ context: 'ci/lint', url: '', state: 'failure' }]);
    expect(got.impactedTargets).toEqual([]);
    expect(got.checkSuites).toEqual([]);
    expect(got.impactedTargetsForTestedPrs).toBeUndefined();
  });
});

describe('contract-breaking answers name the field', () => {
  it('enqueuedPullRequests[2].prNumber of the wrong type', async () => {
    const q = queueWithPrs(3);
    (q.enqueuedPullRequests[2] as Record<string, unknown>).prNumber = '102';
    server.script({ json: q });
    await invalid(client.getQueue(addr), 'enqueuedPullRequests[2].prNumber');
  });

  it('a required setting missing', async () => {
    const { concurrency: _c, ...rest } = queueSettings();
    server.script({ json: rest });
    await invalid(client.updateQueue({ ...addr, state: 'running' }), 'concurrency');
  });

  it('getQueue without enqueuedPullRequests', async () => {
    server.script({ json: queueSettings() });
    await invalid(client.getQueue(addr), 'enqueuedPullRequests');
  });

  it('a nested field in a test run', async () => {
    const run = testRun();
    server.script({ json: { ...run, testedPullRequests: [{ prNumber: 1, prUrl: 'u' }] } });
    await invalid(
      client.getMergeQueueTestingDetails({ ...addr, testRunId: 'r' }),
      'testedPullRequests[0].title',
    );
  });

  it('a failing test without its status timestamp, and a page without next_page_token', async () => {
    const bad = failingTest(1) as Record<string, unknown>;
    bad.status = { reason: 'x' };
    server.script({ json: { tests: [failingTest(0), bad], page: page('') } });
    await invalid(client.listFailingTests({ ...flaky, ...window }), 'tests[1].status.timestamp');
    const { next_page_token: _n, ...p } = page('');
    server.script({ json: { quarantined_tests: [], page: p } });
    await invalid(client.listQuarantinedTests(flaky), 'page.next_page_token');
  });

  it('a JSON array or null instead of an object names the body', async () => {
    server.script({ json: [] }, { text: 'null', headers: { 'content-type': 'application/json' } });
    await invalid(client.getSubmittedPullRequest({ ...addr, pr: { number: 1 } }), '(body)');
    await invalid(client.getQueue(addr), '(body)');
  });

  it('a body that is not JSON', async () => {
    server.script({ text: '{"state": "running",' });
    const err = await rejectionOf(client.getQueue(addr));
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as TrunkInvalidResponseError).message).toMatch(/not JSON/);
  });
});
