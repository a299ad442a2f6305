/**
 * Local request validation: every rule is refused before anything is sent (the server sees nothing), with
 * the field and the rule named.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { TrunkInvalidRequestError } from '../../src/trunk/errors.ts';
import { REPO, rejectionOf, type ScriptedServer, startScripted, testClient } from './helpers.ts';

let server: ScriptedServer;
let t: ReturnType<typeof testClient>;
let client: TrunkApi;

beforeAll(async () => {
  server = await startScripted();
  t = testClient(server.url);
  client = t.client;
});
afterAll(async () => {
  await t.close();
  await server.close();
});
afterEach(() => {
  // The few requests that were meant to be sent must also match Trunk's OpenAPI document.
  expect(server.bodyViolations()).toEqual([]);
  server.reset();
});

const addr = { repo: { ...REPO }, targetBranch: 'main' };
const window = { start_time: '2026-11-20T00:00:00Z', end_time: '2026-11-21T00:00:00Z' };
const flaky = { repo: { ...REPO }, org_url_slug: 'acme' };

/** Expect a local refusal naming `field` and a rule matching `rule`, with nothing sent. */
async function refused(p: Promise<unknown>, field: string, rule: RegExp) {
  const err = await rejectionOf(p);
  expect(err).toBeInstanceOf(TrunkInvalidRequestError);
  const e = err as TrunkInvalidRequestError;
  expect(e.local).toBe(true);
  expect(e.field).toBe(field);
  expect(e.rule).toMatch(rule);
  expect(e.message).toContain(`\`${field}\``);
  expect(e.userMessage).toContain(field);
  expect(server.requests).toHaveLength(0);
}

// Requests deliberately outside their types, as Slack input could produce at runtime.
// biome-ignore lint/suspicious/noExplicitAny: testing invalid runtime values
type Any = any;

describe('updateQueue', () => {
  for (const key of [
    'concurrency',
    'bisectionConcurrency',
    'testingTimeoutMinutes',
    'pendingFailureDepth',
    'batchingMaxWaitTimeMinutes',
    'batchingMinSize',
  ]) {
    for (const bad of [0, -1, 4294967296, 1.5, Number.NaN, '3']) {
      it(`${key} = ${String(bad)} is refused`, async () => {
        await refused(
          client.updateQueue({ ...addr, [key]: bad } as Any),
          key,
          /whole number from 1 to 4294967295/,
        );
      });
    }
  }

  it('accepts the bounds 1 and 4294967295 (sent)', async () => {
    server.fallback = () => ({ status: 404, text: 'not found' });
    await rejectionOf(client.updateQueue({ ...addr, concurrency: 1, batchingMinSize: 4294967295 }));
    expect(server.requests).toHaveLength(1);
    expect(server.bodyViolations()).toEqual([]);
  });

  it('state other than running/paused/draining is refused (switching_modes and uppercase too)', async () => {
    for (const s of ['switching_modes', 'PAUSED', 'stopped', '']) {
      await refused(client.updateQueue({ ...addr, state: s } as Any), 'state', /running, paused, draining/);
    }
  });

  it('enums must be exactly as listed', async () => {
    await refused(client.updateQueue({ ...addr, mode: 'serial' } as Any), 'mode', /single, parallel/);
    await refused(
      client.updateQueue({ ...addr, directMergeMode: 'ON' } as Any),
      'directMergeMode',
      /off, always/,
    );
    await refused(
      client.updateQueue({ ...addr, optimizationMode: 'bisection' } as Any),
      'optimizationMode',
      /off, bisection_skip_redundant_tests/,
    );
    await refused(
      client.updateQueue({ ...addr, mergeMethod: 'Squash' } as Any),
      'mergeMethod',
      /merge_commit, squash, rebase/,
    );
  });

  it('booleans must be booleans', async () => {
    await refused(client.updateQueue({ ...addr, batch: 'true' } as Any), 'batch', /true or false/);
  });

  it('requiredStatuses must be non-empty strings and not combined with deleteRequiredStatuses', async () => {
    await refused(client.updateQueue({ ...addr, requiredStatuses: 'ci' } as Any), 'requiredStatuses', /list/);
    await refused(
      client.updateQueue({ ...addr, requiredStatuses: ['ci', ' '] }),
      'requiredStatuses[1]',
      /empty/,
    );
    await refused(
      client.updateQueue({ ...addr, requiredStatuses: ['ci'], deleteRequiredStatuses: true }),
      'deleteRequiredStatuses',
      /cannot be combined/,
    );
  });

  it('a misspelt setting is refused rather than silently ignored', async () => {
    await refused(client.updateQueue({ ...addr, concurency: 2 } as Any), 'concurency', /not a setting/);
  });
});

describe('queue address (every queue operation)', () => {
  it('repo host/owner/name must be non-empty', async () => {
    await refused(client.getQueue({ ...addr, repo: { ...REPO, host: '' } }), 'repo.host', /empty/);
    await refused(client.getQueue({ ...addr, repo: { ...REPO, owner: '  ' } }), 'repo.owner', /empty/);
    await refused(
      client.updateQueue({ ...addr, repo: { ...REPO, name: '' }, state: 'paused' }),
      'repo.name',
      /empty/,
    );
    await refused(client.getQueue({ targetBranch: 'main' } as Any), 'repo', /object/);
  });

  it('targetBranch must be non-empty', async () => {
    await refused(client.getQueue({ ...addr, targetBranch: '' }), 'targetBranch', /empty/);
    await refused(
      client.getMergeQueueTestingDetails({ ...addr, targetBranch: '', testRunId: 'r1' }),
      'targetBranch',
      /empty/,
    );
  });

  it('pr.number must be a positive integer', async () => {
    for (const n of [0, -3, 1.5, Number.NaN, '12']) {
      await refused(
        client.getSubmittedPullRequest({ ...addr, pr: { number: n } } as Any),
        'pr.number',
        /positive whole number/,
      );
    }
  });

  it('testRunId must be non-empty', async () => {
    await refused(client.getMergeQueueTestingDetails({ ...addr, testRunId: '' }), 'testRunId', /empty/);
  });
});

describe('flaky-test lists', () => {
  const pq = { page_size: 100, page_token: '' };

  it('start_time must be before end_time', async () => {
    await refused(
      client.listFailingTests({
        ...flaky,
        start_time: window.end_time,
        end_time: window.start_time,
        page_query: pq,
      }),
      'end_time',
      /later than start_time/,
    );
    await refused(
      client.listFailingTests({
        ...flaky,
        start_time: window.start_time,
        end_time: window.start_time,
        page_query: pq,
      }),
      'end_time',
      /later than start_time/,
    );
  });

  it('the window is at most 7 days (exactly 7 is fine)', async () => {
    await refused(
      client.listFailingTests({
        ...flaky,
        start_time: '2026-11-01T00:00:00Z',
        end_time: '2026-11-08T00:00:01Z',
        page_query: pq,
      }),
      'end_time',
      /at most 7 days/,
    );
    server.fallback = () => ({ status: 401, text: 'no' });
    await rejectionOf(
      client.listFailingTests({
        ...flaky,
        start_time: '2026-11-01T00:00:00Z',
        end_time: '2026-11-08T00:00:00Z',
        page_query: pq,
      }),
    );
    expect(server.requests).toHaveLength(1);
  });

  it('times must be ISO 8601 date-times', async () => {
    await refused(
      client.listFailingTests({
        ...flaky,
        start_time: 'yesterday',
        end_time: window.end_time,
        page_query: pq,
      }),
      'start_time',
      /ISO 8601/,
    );
    await refused(
      client.listFailingTests({
        ...flaky,
        start_time: window.start_time,
        end_time: '2026-11-21',
        page_query: pq,
      }),
      'end_time',
      /ISO 8601/,
    );
  });

  it('page_size must be 1..100', async () => {
    for (const size of [0, 101, 2.5]) {
      await refused(
        client.listQuarantinedTests({ ...flaky, page_query: { page_size: size, page_token: '' } }),
        'page_query.page_size',
        /1 to 100/,
      );
    }
    await refused(
      client.listFailingTests({ ...flaky, ...window, page_query: { page_size: 0, page_token: '' } }),
      'page_query.page_size',
      /1 to 100/,
    );
  });

  it('org_url_slug and repo must be non-empty', async () => {
    await refused(
      client.listQuarantinedTests({ ...flaky, org_url_slug: '', page_query: pq }),
      'org_url_slug',
      /empty/,
    );
    await refused(
      client.listFailingTests({ ...flaky, repo: { ...REPO, owner: '' }, ...window, page_query: pq }),
      'repo.owner',
      /empty/,
    );
  });

  it('paging options are checked before the first page', async () => {
    await refused(
      client.failingTestPages({ ...flaky, ...window }, { pageSize: 101 }).next(),
      'pageSize',
      /1 to 100/,
    );
    await refused(client.quarantinedTestPages(flaky, { maxPages: 0 }).next(), 'maxPages', /positive/);
    await refused(
      client.failingTestPages({ ...flaky, start_time: window.end_time, end_time: window.start_time }).next(),
      'end_time',
      /later/,
    );
  });
});
