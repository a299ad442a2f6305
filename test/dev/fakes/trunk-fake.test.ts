/**
 * The Trunk fake through the real wire: every assertion goes over HTTP with fetch, like the client will.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../../dev/fakes/trunk/index.ts';

const TOKEN = 'test-token';
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let fake: TrunkFake;

interface Reply {
  status: number;
  text: string;
  headers: Headers;
  json: () => Record<string, unknown>;
}

async function post(path: string, body: unknown, token: string | null = TOKEN): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers['x-api-token'] = token;
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) };
}

const getQueue = (body: unknown = { repo: REPO, targetBranch: 'main' }) => post('/v1/getQueue', body);
const updateQueue = (fields: Record<string, unknown>) =>
  post('/v1/updateQueue', { repo: REPO, targetBranch: 'main', ...fields });

function failingBody(start: number, end: number, pageSize: number, pageToken = '') {
  return {
    repo: REPO,
    org_url_slug: 'acme',
    start_time: new Date(start).toISOString(),
    end_time: new Date(end).toISOString(),
    page_query: { page_size: pageSize, page_token: pageToken },
  };
}

const NOW = Date.UTC(2026, 0, 20, 12, 0, 0);

beforeEach(async () => {
  fake = await startTrunkFake({ now: () => NOW });
});
afterEach(async () => {
  await fake.close();
});

describe('server', () => {
  it('listens on 127.0.0.1 with a base URL without /v1', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fake.port).toBeGreaterThan(0);
  });

  it('close() ends keep-alive connections instead of waiting for them', async () => {
    const other = await startTrunkFake();
    other.addQueue(REPO, 'main');
    const res = await fetch(`${other.url}/v1/getQueue`, {
      method: 'POST',
      headers: { 'x-api-token': TOKEN, connection: 'keep-alive' },
      body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const t0 = performance.now();
    await other.close();
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('answers unknown paths with a plain-text 404', async () => {
    const r = await post('/v1/nope', {});
    expect(r.status).toBe(404);
    expect(r.text).toContain('/v1/nope');
  });
});

describe('auth', () => {
  beforeEach(() => {
    fake.addQueue(REPO, 'main');
  });

  it('401 in plain text without x-api-token', async () => {
    const r = await post('/v1/getQueue', { repo: REPO, targetBranch: 'main' }, null);
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/missing x-api-token/);
  });

  it('401 with a wrong token, without echoing it', async () => {
    const r = await post('/v1/getQueue', { repo: REPO, targetBranch: 'main' }, 'wrong-secret-123');
    expect(r.status).toBe(401);
    expect(r.text).toMatch(/invalid API token/);
    expect(r.text).not.toContain('wrong-secret-123');
  });

  it('accepts the configured tokens only, and setTokens replaces them', async () => {
    const other = await startTrunkFake({ tokens: ['a', 'b'] });
    try {
      other.addQueue(REPO, 'main');
      const call = (t: string) =>
        fetch(`${other.url}/v1/getQueue`, {
          method: 'POST',
          headers: { 'x-api-token': t },
          body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
        }).then((r) => r.status);
      expect([await call('a'), await call('b'), await call(TOKEN)]).toEqual([200, 200, 401]);
      other.setTokens(['c']);
      expect([await call('a'), await call('c')]).toEqual([401, 200]);
    } finally {
      await other.close();
    }
  });

  it('hints at x-api-token when a Bearer header is sent instead', async () => {
    const res = await fetch(`${fake.url}/v1/getQueue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/x-api-token header, not Authorization/);
  });
});

describe('getQueue', () => {
  it('returns every setting and the enqueued PRs', async () => {
    fake.addQueue(REPO, 'main', { concurrency: 3, mode: 'parallel', requiredStatuses: ['ci/build'] }, [
      { prNumber: 41, prTitle: 'Add feature', priorityName: 'high', priorityValue: 10 },
      { prNumber: 42 },
    ]);
    const r = await getQueue();
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const q = r.json();
    for (const field of [
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
    ]) {
      expect(q, field).toHaveProperty(field);
    }
    expect(q).toMatchObject({
      branch: 'main',
      concurrency: 3,
      mode: 'parallel',
      requiredStatuses: ['ci/build'],
    });
    const prs = q['enqueuedPullRequests'] as Array<Record<string, unknown>>;
    expect(prs.map((p) => p['prNumber'])).toEqual([41, 42]);
    expect(prs[0]).toMatchObject({
      prTitle: 'Add feature',
      priorityName: 'high',
      priorityValue: 10,
      prBaseBranch: 'main',
    });
    expect(prs[1]).toMatchObject({
      priorityName: 'medium',
      priorityValue: 100,
      skipTheLine: false,
      noBatch: false,
    });
    expect(prs[1]?.['prSha']).toMatch(/^[0-9a-f]{40}$/);
  });

  it('matches repos case-insensitively but branches exactly', async () => {
    fake.addQueue('github.com/Acme/Web', 'main');
    expect(
      (await getQueue({ repo: { host: 'GitHub.com', owner: 'ACME', name: 'web' }, targetBranch: 'main' }))
        .status,
    ).toBe(200);
    const r = await getQueue({ repo: REPO, targetBranch: 'Main' });
    expect(r.status).toBe(404);
  });

  it('404 in plain text for an unknown queue, naming it', async () => {
    const r = await getQueue();
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toBe('merge queue not found for acme/web:main');
  });

  it('400 in plain text for invalid bodies, saying what is wrong', async () => {
    fake.addQueue(REPO, 'main');
    const cases: Array<[unknown, RegExp]> = [
      ['{"repo": ', /not valid JSON/],
      ['', /empty body/],
      ['[1,2]', /must be a JSON object/],
      [{ targetBranch: 'main' }, /missing required field "repo"/],
      [{ repo: { host: 'github.com', owner: 'acme' }, targetBranch: 'main' }, /"repo\.name"/],
      [{ repo: REPO }, /missing required field "targetBranch"/],
      [{ repo: REPO, targetBranch: 7 }, /"targetBranch" must be a string, got number/],
      [{ repo: 'acme/web', targetBranch: 'main' }, /"repo" must be an object/],
      [{ repo: REPO, targetBranch: 'main', extra: 1 }, /unknown field "extra"/],
    ];
    for (const [body, message] of cases) {
      const r = await post('/v1/getQueue', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text).toMatch(message);
    }
  });
});

describe('updateQueue', () => {
  beforeEach(() => {
    fake.addQueue(REPO, 'main', { concurrency: 2, inheritedRequiredStatuses: ['ci/protected'] }, [
      { prNumber: 7 },
    ]);
  });

  it('applies only the supplied fields and answers the record without enqueuedPullRequests', async () => {
    const before = fake.queue(REPO, 'main');
    const r = await updateQueue({ state: 'paused', batch: true, batchingMinSize: 3, mergeMethod: 'rebase' });
    expect(r.status).toBe(200);
    const body = r.json();
    expect(body).not.toHaveProperty('enqueuedPullRequests');
    expect(body).toMatchObject({
      state: 'paused',
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'rebase',
      concurrency: 2,
    });
    const after = fake.queue(REPO, 'main');
    expect(after).toEqual({
      ...before,
      state: 'paused',
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'rebase',
    });
    expect(after?.enqueuedPullRequests?.map((p) => p.prNumber)).toEqual([7]);
    const q = (await getQueue()).json();
    expect(q['state']).toBe('paused');
  });

  it('sets a manual requiredStatuses list and deleteRequiredStatuses clears it', async () => {
    expect(fake.queue(REPO, 'main')?.requiredStatuses).toEqual(['ci/protected']);
    const set = await updateQueue({ requiredStatuses: ['ci/build', 'ci/test'] });
    expect(set.json()['requiredStatuses']).toEqual(['ci/build', 'ci/test']);
    const cleared = await updateQueue({ deleteRequiredStatuses: true });
    expect(cleared.status).toBe(200);
    expect(cleared.json()['requiredStatuses']).toEqual(['ci/protected']);
    expect(fake.queue(REPO, 'main')?.requiredStatuses).toEqual(['ci/protected']);
  });

  it('rejects out-of-range integers, unknown enums and wrong types, and changes nothing', async () => {
    const before = fake.queue(REPO, 'main');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ concurrency: 0 }, /"concurrency" must be between 1 and 4294967295, got 0/],
      [{ concurrency: 4294967296 }, /"concurrency" must be between 1 and 4294967295/],
      [{ testingTimeoutMinutes: 1.5 }, /"testingTimeoutMinutes" must be an integer/],
      [{ pendingFailureDepth: '3' }, /"pendingFailureDepth" must be an integer/],
      [{ state: 'stopped' }, /"state" must be one of running, paused, draining; got "stopped"/],
      [{ state: 'switching_modes' }, /"state" must be one of/],
      [{ mode: 'SINGLE' }, /"mode" must be one of single, parallel/],
      [{ mergeMethod: 'fast_forward' }, /"mergeMethod" must be one of merge_commit, squash, rebase/],
      [{ batch: 'yes' }, /"batch" must be a boolean, got string/],
      [{ requiredStatuses: 'ci/build' }, /"requiredStatuses" must be an array of strings/],
      [{ requiredStatuses: ['ok', 3] }, /"requiredStatuses\[1\]" must be a string/],
      [{ requiredStatuses: ['a'], deleteRequiredStatuses: true }, /not both/],
      [{ concurency: 2 }, /unknown field "concurency"/],
    ];
    for (const [fields, message] of cases) {
      const r = await updateQueue(fields);
      expect(r.status, JSON.stringify(fields)).toBe(400);
      expect(r.text).toMatch(message);
    }
    expect(fake.queue(REPO, 'main')).toEqual(before);
  });

  it('404 for an unknown queue', async () => {
    const r = await post('/v1/updateQueue', { repo: REPO, targetBranch: 'release', state: 'paused' });
    expect(r.status).toBe(404);
    expect(r.text).toBe('merge queue not found for acme/web:release');
  });
});

describe('getSubmittedPullRequest', () => {
  const ask = (n: number, branch = 'main') =>
    post('/v1/getSubmittedPullRequest', { repo: REPO, targetBranch: branch, pr: { number: n } });

  it('returns an added PR with readiness (gitHubMergeability)', async () => {
    fake.addSubmittedPr(REPO, 'main', {
      prNumber: 99,
      state: 'not_ready',
      readiness: { gitHubMergeability: 'not_mergeable', doesBaseBranchMatch: true },
    });
    const r = await ask(99);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({
      prNumber: 99,
      state: 'not_ready',
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      readiness: {
        gitHubMergeability: 'not_mergeable',
        doesBaseBranchMatch: true,
        requiresImpactedTargets: false,
      },
    });
  });

  it('finds enqueued PRs too', async () => {
    fake.addQueue(REPO, 'main', {}, [{ prNumber: 5, state: 'testing' }]);
    const r = await ask(5);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({
      prNumber: 5,
      state: 'testing',
      readiness: { gitHubMergeability: 'mergeable' },
    });
  });

  it('404 for an unknown PR or queue; 400 for a bad pr', async () => {
    fake.addQueue(REPO, 'main');
    const missing = await ask(1234);
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('pull request #1234 not found in merge queue acme/web:main');
    expect((await ask(1, 'dev')).text).toBe('merge queue not found for acme/web:dev');
    const bad = await post('/v1/getSubmittedPullRequest', {
      repo: REPO,
      targetBranch: 'main',
      pr: { number: -1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/"pr\.number" must be between 0 and 4294967295/);
    const none = await post('/v1/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: {} });
    expect(none.text).toMatch(/exactly one of "number" or "branch"/);
  });
});

describe('getMergeQueueTestingDetails', () => {
  it('returns a test run and 404s an unknown one', async () => {
    fake.addTestRun(REPO, 'main', 'run-1', {
      status: 'failed',
      testedPullRequests: [{ prNumber: 8, prUrl: 'https://github.com/acme/web/pull/8', title: 'Eight' }],
      dependentPrs: [6, 7],
    });
    const ok = await post('/v1/getMergeQueueTestingDetails', {
      repo: REPO,
      targetBranch: 'main',
      testRunId: 'run-1',
    });
    expect(ok.status).toBe(200);
    const run = ok.json();
    expect(run).toMatchObject({ status: 'failed', dependentPrs: [6, 7] });
    for (const f of [
      'requiredStatuses',
      'testBranch',
      'testBranchSha',
      'checkSuites',
      'statusChecks',
      'testedPullRequests',
    ])
      expect(run).toHaveProperty(f);
    const missing = await post('/v1/getMergeQueueTestingDetails', {
      repo: REPO,
      targetBranch: 'main',
      testRunId: 'nope',
    });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('test run nope not found for acme/web:main');
    const bad = await post('/v1/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/missing required field "testRunId"/);
  });
});

describe('list-failing-tests', () => {
  const list = (body: unknown) => post('/v1/flaky-tests/list-failing-tests', body);

  async function walk(start: number, end: number, size: number) {
    const pages: Array<Record<string, unknown>> = [];
    let token = '';
    for (let guard = 0; guard < 1000; guard++) {
      const r = await list(failingBody(start, end, size, token));
      expect(r.status, r.text).toBe(200);
      const body = r.json();
      pages.push(body);
      token = (body['page'] as Record<string, string>)['next_page_token'] as string;
      if (token === '') break;
    }
    return pages;
  }

  it('walks every page with opaque tokens until next_page_token is ""', async () => {
    fake.generateFailingTests(REPO, 250, { seed: 3, start: NOW - DAY, end: NOW });
    const pages = await walk(NOW - DAY, NOW, 100);
    expect(pages).toHaveLength(3);
    const metas = pages.map((p) => p['page'] as Record<string, unknown>);
    expect(metas.map((m) => m['page_index'])).toEqual([0, 1, 2]);
    for (const m of metas) expect(m).toMatchObject({ total_rows: 250, total_pages: 3 });
    const sizes = pages.map((pg) => (pg['tests'] as unknown[]).length);
    expect(sizes).toEqual([100, 100, 50]);
    const ids = pages.flatMap((pg) => (pg['tests'] as Array<{ id: string }>).map((t) => t.id));
    expect(new Set(ids).size).toBe(250);
    // Tokens are opaque: not offsets, not page numbers, not base64 of either.
    const tokens = metas.flatMap((m) => [m['next_page_token'], m['prev_page_token'], m['last_page_token']]);
    for (const t of tokens.filter((x) => x !== '') as string[]) {
      expect(t).not.toMatch(/^\d+$/);
      expect(Buffer.from(t, 'base64url').toString('latin1')).not.toMatch(/^\d+$|offset|page/);
    }
    expect(metas[0]?.['prev_page_token']).toBe('');
    expect(metas[2]?.['next_page_token']).toBe('');
    expect(metas[0]?.['last_page_token']).toBe(metas[1]?.['next_page_token']);
    // prev and last tokens are usable.
    const last = await list(failingBody(NOW - DAY, NOW, 100, metas[0]?.['last_page_token'] as string));
    expect((last.json()['page'] as Record<string, unknown>)['page_index']).toBe(2);
    const prev = await list(failingBody(NOW - DAY, NOW, 100, metas[2]?.['prev_page_token'] as string));
    expect((prev.json()['tests'] as Array<{ id: string }>)[0]?.id).toBe(ids[100]);
  });

  it('page_size 1 and 100 are allowed; 0, 101 and non-integers are 400', async () => {
    fake.generateFailingTests(REPO, 3, { seed: 1, start: NOW - HOUR, end: NOW });
    expect((await walk(NOW - DAY, NOW, 1)).length).toBe(3);
    for (const size of [0, 101, 2.5, -1]) {
      const r = await list(failingBody(NOW - DAY, NOW, size));
      expect(r.status).toBe(400);
      expect(r.text).toMatch(/"page_query\.page_size" must be/);
    }
  });

  it('rejects unknown tokens and tokens from another query', async () => {
    fake.generateFailingTests(REPO, 30, { seed: 1, start: NOW - HOUR, end: NOW });
    const bad = await list(failingBody(NOW - DAY, NOW, 10, 'MTA='));
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/page_token/);
    const first = (await list(failingBody(NOW - DAY, NOW, 10))).json();
    const next = (first['page'] as Record<string, string>)['next_page_token'] as string;
    const other = await list(failingBody(NOW - 2 * DAY, NOW, 10, next));
    expect(other.status).toBe(400);
    expect(other.text).toMatch(/different query/);
  });

  it('filters by status.timestamp in [start_time, end_time)', async () => {
    const at = (ms: number, name: string) => ({
      name,
      status: { reason: 'flaky', timestamp: new Date(ms).toISOString() },
    });
    fake.setFailingTests(REPO, [
      at(NOW - DAY - 1, 'before'),
      at(NOW - DAY, 'at-start'),
      at(NOW - HOUR, 'inside'),
      at(NOW, 'at-end'),
    ]);
    const r = await list(failingBody(NOW - DAY, NOW, 100));
    expect((r.json()['tests'] as Array<{ name: string }>).map((t) => t.name)).toEqual(['at-start', 'inside']);
    expect((r.json()['page'] as Record<string, unknown>)['total_rows']).toBe(2);
  });

  it('400 when start_time is not before end_time, more than 7 days apart, or not a date-time', async () => {
    fake.setFailingTests(REPO, []);
    const cases: Array<[unknown, RegExp]> = [
      [failingBody(NOW, NOW, 10), /"start_time" must be before "end_time"/],
      [failingBody(NOW, NOW - HOUR, 10), /before/],
      [failingBody(NOW - 7 * DAY - 1, NOW, 10), /within 7 days/],
      [
        { ...failingBody(NOW - DAY, NOW, 10), start_time: 'yesterday' },
        /"start_time" must be an RFC 3339 date-time/,
      ],
      [
        { ...failingBody(NOW - DAY, NOW, 10), org_url_slug: undefined },
        /missing required field "org_url_slug"/,
      ],
      [{ ...failingBody(NOW - DAY, NOW, 10), page_query: undefined }, /missing required field "page_query"/],
    ];
    for (const [body, message] of cases) {
      const r = await list(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.text).toMatch(message);
    }
    expect((await list(failingBody(NOW - 7 * DAY, NOW, 10))).status).toBe(200);
  });

  it('404 for an unknown repository; an empty list for a known one without tests', async () => {
    const unknown = await list(failingBody(NOW - DAY, NOW, 10));
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('repository not found: acme/web');
    fake.addQueue(REPO, 'main');
    const empty = await list(failingBody(NOW - DAY, NOW, 10));
    expect(empty.json()).toEqual({
      tests: [],
      page: {
        total_rows: 0,
        total_pages: 0,
        next_page_token: '',
        prev_page_token: '',
        last_page_token: '',
        page_index: 0,
      },
    });
  });
});

describe('list-quarantined-tests', () => {
  const list = (size: number, token = '') =>
    post('/v1/flaky-tests/list-quarantined-tests', {
      repo: REPO,
      org_url_slug: 'acme',
      page_query: { page_size: size, page_token: token },
    });

  it('pages through quarantined tests', async () => {
    fake.generateQuarantinedTests(REPO, 45, { seed: 9 });
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const r = await list(20, token);
      expect(r.status).toBe(200);
      const body = r.json();
      const rows = body['quarantined_tests'] as Array<Record<string, unknown>>;
      for (const row of rows) {
        for (const f of [
          'name',
          'parent',
          'file',
          'classname',
          'codeowners',
          'quarantined_at',
          'status_last_updated_at',
          'test_case_id',
          'variant',
        ])
          expect(row).toHaveProperty(f);
        seen.push(row['test_case_id'] as string);
      }
      token = (body['page'] as Record<string, string>)['next_page_token'] as string;
      pages++;
    } while (token !== '');
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(45);
  });

  it('keeps explicit rows and completes partial ones', async () => {
    fake.setQuarantinedTests(REPO, [{ name: 'test_one', codeowners: ['@acme/payments'] }]);
    const row = ((await list(10)).json()['quarantined_tests'] as Array<Record<string, unknown>>)[0];
    expect(row).toMatchObject({ name: 'test_one', codeowners: ['@acme/payments'] });
    expect(Date.parse(row?.['quarantined_at'] as string)).not.toBeNaN();
  });
});

describe('faults', () => {
  beforeEach(() => {
    fake.addQueue(REPO, 'main');
  });

  it('failNext with Retry-After, then without, then success', async () => {
    fake.failNext(1, { status: 429, retryAfter: 2 });
    fake.failNext(1, { status: 503 });
    const first = await getQueue();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(first.text).toMatch(/Too Many Requests/);
    const second = await getQueue();
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBeNull();
    expect((await getQueue()).status).toBe(200);
  });

  it('failNext for one operation leaves the others alone, and uses a custom body', async () => {
    fake.failNext(2, { status: 500, body: 'boom' }, 'updateQueue');
    expect((await getQueue()).status).toBe(200);
    const failed = await updateQueue({ state: 'paused' });
    expect([failed.status, failed.text]).toEqual([500, 'boom']);
    expect((await updateQueue({ state: 'paused' })).status).toBe(500);
    expect((await updateQueue({ state: 'paused' })).status).toBe(200);
    expect(fake.requestsTo('updateQueue').map((r) => r.fault)).toEqual([
      'status 500',
      'status 500',
      undefined,
    ]);
  });

  it('dropNext destroys the connection', async () => {
    fake.dropNext(1);
    await expect(getQueue()).rejects.toThrow();
    expect((await getQueue()).status).toBe(200);
    expect(fake.requests[0]).toMatchObject({ status: 0, fault: 'drop' });
  });

  it('adds latency globally and per operation', async () => {
    fake.setLatency(150);
    let t0 = performance.now();
    await getQueue();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    fake.setLatency(0);
    fake.setLatency({ updateQueue: 200 });
    t0 = performance.now();
    await getQueue();
    const fast = performance.now() - t0;
    t0 = performance.now();
    await updateQueue({ state: 'running' });
    const slow = performance.now() - t0;
    expect(slow).toBeGreaterThanOrEqual(190);
    expect(fast).toBeLessThan(slow);
    expect(fake.requestsTo('getQueue').at(-1)?.durationMs).toBeLessThan(150);
  });

  it('sends malformed and contract-breaking bodies with status 200', async () => {
    fake.malformedNext(1, 'invalid-json');
    fake.malformedNext(1, 'truncated');
    fake.malformedNext(1, 'missing-field');
    fake.malformedNext(1, 'wrong-type');
    fake.malformedNext(1, 'html');
    fake.malformedNext(1, 'empty');
    const invalid = await getQueue();
    expect(invalid.status).toBe(200);
    expect(() => invalid.json()).toThrow();
    const truncated = await getQueue();
    expect(() => truncated.json()).toThrow();
    const missing = (await getQueue()).json();
    expect(missing).not.toHaveProperty('concurrency');
    expect(missing).toHaveProperty('state');
    const wrong = (await getQueue()).json();
    expect(typeof wrong['concurrency']).toBe('string');
    const html = await getQueue();
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.text).toMatch(/<html>/);
    expect((await getQueue()).text).toBe('');
    expect((await getQueue()).json()['concurrency']).toBe(1);
  });

  it('random faults are seeded, cover every kind, and can be turned off', async () => {
    const labels = async (seed: number) => {
      fake.clearRequests();
      fake.setFaultRate(1, undefined, { seed, spikeMs: 5, retryAfterSeconds: 0 });
      for (let i = 0; i < 60; i++) await getQueue().catch(() => undefined);
      return fake.requests.map((r) => r.fault ?? '');
    };
    const a = await labels(42);
    const b = await labels(42);
    expect(a).toEqual(b);
    expect(await labels(43)).not.toEqual(a);
    const kinds = new Set(
      a.map((l) =>
        l.replace(/^random (\d{3}|malformed).*$/, (_m, k: string) =>
          k === 'malformed' ? 'malformed' : k[0] === '5' ? '5xx' : k,
        ),
      ),
    );
    for (const k of ['5xx', '429', 'random drop', 'malformed', 'random latency spike'])
      expect(kinds).toContain(k);
    const statuses = new Set(fake.requests.map((r) => r.status));
    expect(statuses).toContain(0);
    expect(statuses).toContain(429);
    fake.resetFaults();
    expect((await getQueue()).status).toBe(200);
    fake.reset();
    expect(fake.requests).toHaveLength(0);
    expect((await getQueue()).status).toBe(404);
  });

  it('fault rate 0.3 fails roughly 30% of requests', async () => {
    fake.setFaultRate(0.3, ['5xx'], { seed: 7 });
    let failed = 0;
    for (let i = 0; i < 200; i++) if ((await getQueue()).status >= 500) failed++;
    expect(failed).toBeGreaterThan(35);
    expect(failed).toBeLessThan(85);
  });
});

describe('quirks', () => {
  it('UPPERCASE enums and extra fields, like older deployments', async () => {
    fake.addQueue(REPO, 'main', { state: 'paused', mergeMethod: 'merge_commit' }, [
      { prNumber: 3, state: 'testing' },
    ]);
    fake.addSubmittedPr(REPO, 'main', { prNumber: 4, state: 'pending' });
    fake.setQuirks({ uppercaseEnums: true, extraFields: true, nullRequiredStatuses: true });
    const q = (await getQueue()).json();
    expect(q).toMatchObject({
      state: 'PAUSED',
      mode: 'SINGLE',
      mergeMethod: 'MERGE_COMMIT',
      directMergeMode: 'OFF',
    });
    expect(q['requiredStatuses']).toBeNull();
    expect(q).toHaveProperty('apiRevision');
    const pr = (q['enqueuedPullRequests'] as Array<Record<string, unknown>>)[0];
    expect(pr).toMatchObject({ state: 'TESTING', internalId: expect.any(String) });
    const sub = (
      await post('/v1/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 4 } })
    ).json();
    expect(sub['state']).toBe('PENDING');
    expect((sub['readiness'] as Record<string, unknown>)['gitHubMergeability']).toBe('MERGEABLE');
    fake.setQuirks({});
    expect((await getQueue()).json()['state']).toBe('paused');
  });
});

describe('generation', () => {
  it('generates 20,000 failing tests fast, deterministically and realistically', async () => {
    // A sanity cap, not a speed target (those live in `npm run bench`): CPU time near 600 ms on a quiet
    // machine here, so a cap that close failed on ordinary noise; ten times slower is still caught.
    const cpu0 = process.cpuUsage();
    fake.generateFailingTests(REPO, 20_000, { seed: 1234, start: NOW - DAY, end: NOW });
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(6_000);
    const rows = fake.failingTests(REPO);
    expect(rows?.count).toBe(20_000);
    const other = await startTrunkFake({ now: () => NOW });
    try {
      // Lazily (cheap), and the rows equal the materialised ones.
      other.generateFailingTests(REPO, 20_000, { seed: 1234, start: NOW - DAY, end: NOW, lazy: true });
      for (const i of [0, 1, 777, 19_999]) expect(other.failingTests(REPO)?.at(i)).toEqual(rows?.at(i));
      other.generateFailingTests(REPO, 20_000, { seed: 1235, start: NOW - DAY, end: NOW, lazy: true });
      expect(other.failingTests(REPO)?.at(0)).not.toEqual(rows?.at(0));
    } finally {
      await other.close();
    }
    const sample = Array.from({ length: 2000 }, (_, i) => rows?.at(i * 10));
    const ids = new Set(sample.map((t) => t?.id));
    expect(ids.size).toBe(2000);
    let tickets = 0;
    for (const t of sample) {
      if (!t) throw new Error('missing row');
      expect(t.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(t.failure_rate_last_7d).toBeGreaterThanOrEqual(0);
      expect(t.failure_rate_last_7d).toBeLessThanOrEqual(1);
      expect(t.failure_rate_last_24h).toBeGreaterThanOrEqual(0);
      expect(t.failure_rate_last_24h).toBeLessThanOrEqual(1);
      expect(Number.isInteger(t.pull_requests_impacted_last_7d)).toBe(true);
      for (const owner of t.codeowners) expect(owner).toMatch(/^@acme\/[a-z-]+$/);
      expect(t.file_path).toMatch(/\.(ts|py|go|java)$/);
      const ts = Date.parse(t.status.timestamp);
      expect(ts).toBeGreaterThanOrEqual(NOW - DAY);
      expect(ts).toBeLessThan(NOW);
      if (t.ticket) tickets++;
    }
    expect(tickets).toBeGreaterThan(300);
    expect(tickets).toBeLessThan(700);
    // Served over the wire, all of them fall in the window.
    const r = await post('/v1/flaky-tests/list-failing-tests', failingBody(NOW - DAY, NOW, 100));
    expect((r.json()['page'] as Record<string, unknown>)['total_rows']).toBe(20_000);
  });

  it('lazy generation holds nothing: a million rows are set up instantly and served per page', async () => {
    const cpu0 = process.cpuUsage();
    fake.generateFailingTests(REPO, 1_000_000, { seed: 8, lazy: true, start: NOW - DAY, end: NOW });
    fake.generateQuarantinedTests(REPO, 1_000_000, { seed: 8, lazy: true });
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(50);
    const r = await post('/v1/flaky-tests/list-quarantined-tests', {
      repo: REPO,
      org_url_slug: 'acme',
      page_query: { page_size: 100, page_token: '' },
    });
    expect((r.json()['quarantined_tests'] as unknown[]).length).toBe(100);
    expect((r.json()['page'] as Record<string, number>)['total_pages']).toBe(10_000);
  });

  it('lazy generation serves the same pages as materialised generation', async () => {
    const other = await startTrunkFake({ now: () => NOW });
    try {
      fake.generateFailingTests(REPO, 5000, { seed: 5, start: NOW - 3 * DAY, end: NOW });
      other.generateFailingTests(REPO, 5000, { seed: 5, start: NOW - 3 * DAY, end: NOW, lazy: true });
      const body = failingBody(NOW - DAY, NOW, 100);
      const a = await post('/v1/flaky-tests/list-failing-tests', body);
      const b = await fetch(`${other.url}/v1/flaky-tests/list-failing-tests`, {
        method: 'POST',
        headers: { 'x-api-token': TOKEN },
        body: JSON.stringify(body),
      }).then((res) => res.json() as Promise<Record<string, unknown>>);
      expect(b['tests']).toEqual(a.json()['tests']);
      const total = (b['page'] as Record<string, number>)['total_rows'] as number;
      // A one-day window of three days of data holds about a third of it.
      expect(total).toBeGreaterThan(1400);
      expect(total).toBeLessThan(1950);
    } finally {
      await other.close();
    }
  });
});

describe('recording', () => {
  it('records operation, path, headers, parsed body, status and time; clearRequests empties', async () => {
    fake.addQueue(REPO, 'main');
    await updateQueue({ state: 'draining' });
    await getQueue({ repo: REPO, targetBranch: 'nope' });
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect(first).toMatchObject({
      operation: 'updateQueue',
      method: 'POST',
      path: '/v1/updateQueue',
      body: { repo: REPO, targetBranch: 'main', state: 'draining' },
      status: 200,
      at: NOW,
    });
    expect(first?.headers['x-api-token']).toBe(TOKEN);
    expect(first?.headers['content-type']).toBe('application/json');
    expect(second).toMatchObject({ operation: 'getQueue', status: 404 });
    expect(fake.requestsTo('getQueue')).toHaveLength(1);
    fake.clearRequests();
    expect(fake.requests).toHaveLength(0);
  });
});

describe('more setup and quirks', () => {
  it('stamps enqueued PRs and test runs relative to the fake clock', async () => {
    fake.addQueue(REPO, 'main', {}, [
      { prNumber: 1 },
      { prNumber: 2, stateChangedAt: '2026-01-01T00:00:00Z' },
    ]);
    fake.addTestRun(REPO, 'main', 'r1');
    const prs = (await getQueue()).json()['enqueuedPullRequests'] as Array<Record<string, string>>;
    expect(prs[0]?.['stateChangedAt']).toBe(new Date(NOW - 8 * 60_000).toISOString());
    expect(prs[1]?.['stateChangedAt']).toBe('2026-01-01T00:00:00Z');
    const run = await post('/v1/getMergeQueueTestingDetails', {
      repo: REPO,
      targetBranch: 'main',
      testRunId: 'r1',
    });
    expect(run.json()['createdAt']).toBe(new Date(NOW - 5 * 60_000).toISOString());
  });

  it('patchQueue sets states the API refuses, and enqueue/dequeue change getQueue', async () => {
    fake.addQueue(REPO, 'main');
    fake.patchQueue(REPO, 'main', { state: 'switching_modes', concurrency: 0 });
    fake.enqueuePr(REPO, 'main', { prNumber: 77 });
    let q = (await getQueue()).json();
    expect(q).toMatchObject({ state: 'switching_modes', concurrency: 0 });
    expect((q['enqueuedPullRequests'] as unknown[]).length).toBe(1);
    expect(fake.dequeuePr(REPO, 'main', 77)).toBe(true);
    q = (await getQueue()).json();
    expect(q['enqueuedPullRequests']).toEqual([]);
    expect(fake.removeQueue(REPO, 'main')).toBe(true);
    expect((await getQueue()).status).toBe(404);
  });

  it('loopingPageTokens hands back the same token so a client must detect the repeat', async () => {
    fake.generateQuarantinedTests(REPO, 30, { seed: 2 });
    fake.setQuirks({ loopingPageTokens: true });
    const ask = (token: string) =>
      post('/v1/flaky-tests/list-quarantined-tests', {
        repo: REPO,
        org_url_slug: 'acme',
        page_query: { page_size: 10, page_token: token },
      }).then((r) => (r.json()['page'] as Record<string, string>)['next_page_token'] as string);
    const t1 = await ask('');
    const t2 = await ask(t1);
    expect(t1).not.toBe('');
    expect(t2).toBe(t1);
  });

  it('404s an unknown organisation when orgSlug is set', async () => {
    const other = await startTrunkFake({ orgSlug: 'acme' });
    try {
      other.setQuarantinedTests(REPO, []);
      const call = (slug: string) =>
        fetch(`${other.url}/v1/flaky-tests/list-quarantined-tests`, {
          method: 'POST',
          headers: { 'x-api-token': TOKEN },
          body: JSON.stringify({ repo: REPO, org_url_slug: slug, page_query: { page_size: 5 } }),
        }).then(async (r) => [r.status, await r.text()]);
      expect((await call('ACME'))[0]).toBe(200);
      expect(await call('globex')).toEqual([404, 'organization not found: globex']);
    } finally {
      await other.close();
    }
  });

  it('405 for other methods; 413 for huge bodies', async () => {
    const get = await fetch(`${fake.url}/v1/getQueue`, { headers: { 'x-api-token': TOKEN } });
    expect(get.status).toBe(405);
    const huge = await post('/v1/getQueue', { repo: REPO, targetBranch: 'main', pad: 'x'.repeat(1_100_000) });
    expect(huge.status).toBe(413);
  });

  it('waitForRequest resolves once the request is answered', async () => {
    fake.addQueue(REPO, 'main');
    fake.setLatency({ getQueue: 100 });
    const pending = getQueue();
    const seen = await fake.waitForRequest('getQueue');
    expect(seen).toMatchObject({ status: 200, done: true });
    expect((await pending).status).toBe(200);
    await expect(fake.waitForRequest('updateQueue', { timeoutMs: 50 })).rejects.toThrow(/0 of 1 updateQueue/);
  });

  it('close() cuts off requests sleeping in injected latency', async () => {
    const other = await startTrunkFake();
    other.addQueue(REPO, 'main');
    other.setLatency(10_000);
    const pending = fetch(`${other.url}/v1/getQueue`, {
      method: 'POST',
      headers: { 'x-api-token': TOKEN },
      body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
    });
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    await other.close();
    await expect(pending).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('conformance with the OpenAPI document', () => {
  const specUrl = new URL('../../fixtures/trunk-openapi-v1.json', import.meta.url);

  it('every 200 body validates against its OpenAPI response schema', async (ctx) => {
    if (!existsSync(specUrl)) {
      console.warn(`skipped: ${specUrl.pathname} not found`);
      ctx.skip();
    }
    const spec = JSON.parse(readFileSync(specUrl, 'utf8')) as {
      paths: Record<
        string,
        { post: { responses: { 200: { content: { 'application/json': { schema: object } } } } } }
      >;
    };
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const schemaOf = (path: string) =>
      spec.paths[path]?.post.responses[200].content['application/json'].schema as object;

    fake.addQueue(REPO, 'main', { requiredStatuses: ['ci'] }, [
      { prNumber: 1 },
      { prNumber: 2, state: 'testing' },
    ]);
    fake.addSubmittedPr(REPO, 'main', { prNumber: 3 });
    fake.addTestRun(REPO, 'main', 'run');
    fake.generateFailingTests(REPO, 50, { seed: 4, start: NOW - DAY, end: NOW });
    fake.generateQuarantinedTests(REPO, 50, { seed: 4 });
    const calls: Array<[string, unknown]> = [
      ['/getQueue', { repo: REPO, targetBranch: 'main' }],
      ['/updateQueue', { repo: REPO, targetBranch: 'main', state: 'draining' }],
      ['/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 3 } }],
      ['/getSubmittedPullRequest', { repo: REPO, targetBranch: 'main', pr: { number: 2 } }],
      ['/getMergeQueueTestingDetails', { repo: REPO, targetBranch: 'main', testRunId: 'run' }],
      ['/flaky-tests/list-failing-tests', failingBody(NOW - DAY, NOW, 50)],
      [
        '/flaky-tests/list-quarantined-tests',
        { repo: REPO, org_url_slug: 'acme', page_query: { page_size: 50, page_token: '' } },
      ],
    ];
    for (const [path, body] of calls) {
      const r = await post(`/v1${path}`, body);
      expect(r.status, path).toBe(200);
      const validate = ajv.compile(schemaOf(path));
      const valid = validate(r.json());
      expect(valid ? [] : validate.errors, path).toEqual([]);
    }
    // The check can fail: a contract-breaking body does not validate.
    fake.malformedNext(1, 'missing-field', 'getQueue');
    const broken = await post('/v1/getQueue', { repo: REPO, targetBranch: 'main' });
    expect(ajv.compile(schemaOf('/getQueue'))(broken.json())).toBe(false);
  });
});
