/**
 * The Trunk fake's PR operations through the real wire with plain fetch: plain-text errors like the real
 * service, the state they change, the lost-answer fault, and answers that validate against the OpenAPI
 * document.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../../dev/fakes/trunk/index.ts';

const TOKEN = 'test-token';
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const NOW = Date.UTC(2026, 0, 20, 12, 0, 0);
const ref = (number: number) => ({ repo: REPO, targetBranch: 'main', pr: { number } });

let fake: TrunkFake;

async function post(path: string, body: unknown, token = TOKEN) {
  const res = await fetch(`${fake.url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

beforeEach(async () => {
  fake = await startTrunkFake({ now: () => NOW });
  fake.addQueue(REPO, 'main', {}, [{ prNumber: 1, state: 'testing' }]);
});
afterEach(async () => {
  await fake.close();
});

describe('PR operations of the fake', () => {
  it('submit answers {} and the PR shows in getQueue with the fake clock', async () => {
    const r = await post('submitPullRequest', { ...ref(2), priority: 'low', noBatch: false });
    expect([r.status, r.text]).toEqual([200, '{}']);
    expect(fake.queue(REPO, 'main')?.enqueuedPullRequests?.at(-1)).toMatchObject({
      prNumber: 2,
      state: 'pending',
      priorityValue: 200,
      priorityName: 'low',
      stateChangedAt: new Date(NOW).toISOString(),
    });
  });

  it('400 in plain text for bad bodies, naming the field, and nothing changes', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['submitPullRequest', { ...ref(2), priority: 'asap' }, /"priority" must be one of urgent/],
      ['submitPullRequest', { ...ref(2), priority: -1 }, /"priority" must be between 0 and 4294967295/],
      ['submitPullRequest', { ...ref(2), noBatch: 'yes' }, /"noBatch" must be a boolean/],
      ['cancelPullRequest', { ...ref(1), reason: 'x' }, /unknown field "reason"/],
      ['restartTestsOnPullRequest', { repo: REPO, targetBranch: 'main' }, /missing required field "pr"/],
      ['listPullRequests', { repo: REPO, targetBranch: 'main', state: 'queued' }, /"state" must be one of/],
      [
        'listPullRequests',
        { repo: REPO, targetBranch: 'main', take: 101 },
        /"take" must be between 1 and 100/,
      ],
      [
        'listPullRequests',
        { repo: REPO, targetBranch: 'main', since: 'today' },
        /"since" must be an RFC 3339/,
      ],
    ];
    for (const [path, body, message] of cases) {
      const r = await post(path, body);
      expect(r.status, path).toBe(400);
      expect(r.type).toMatch(/^text\/plain/);
      expect(r.text).toMatch(message);
    }
    expect(fake.queue(REPO, 'main')?.enqueuedPullRequests?.map((p) => p.prNumber)).toEqual([1]);
  });

  it('404 for an unknown queue or PR; 401 for a wrong token', async () => {
    expect(await post('cancelPullRequest', { ...ref(1), targetBranch: 'dev' })).toMatchObject({
      status: 404,
      text: 'merge queue not found for acme/web:dev',
    });
    expect(await post('restartTestsOnPullRequest', ref(99))).toMatchObject({
      status: 404,
      text: 'pull request #99 not found in merge queue acme/web:main',
    });
    expect((await post('submitPullRequest', ref(2), 'nope')).status).toBe(401);
  });

  it('cancel then restart: cancelled PRs cannot restart, failed ones go back to testing', async () => {
    expect((await post('cancelPullRequest', ref(1))).status).toBe(200);
    expect(fake.submittedPr(REPO, 'main', 1)).toMatchObject({
      state: 'cancelled',
      isCurrentlySubmittedToQueue: false,
    });
    expect((await post('restartTestsOnPullRequest', ref(1))).text).toMatch(/#1 is cancelled/);
    fake.addSubmittedPr(REPO, 'main', { prNumber: 3, state: 'failed', isCurrentlySubmittedToQueue: false });
    expect((await post('restartTestsOnPullRequest', ref(3))).status).toBe(200);
    expect(fake.queue(REPO, 'main')?.enqueuedPullRequests?.map((p) => [p.prNumber, p.state])).toEqual([
      [3, 'testing'],
    ]);
  });

  it('loseAnswerNext applies the submit, then drops, hangs or fails the answer, and records it', async () => {
    fake.loseAnswerNext(1, { status: 504 }, 'submitPullRequest');
    const r = await post('submitPullRequest', ref(5));
    expect([r.status, r.text]).toEqual([504, 'Gateway Timeout']);
    expect(fake.submittedPr(REPO, 'main', 5)).toMatchObject({ state: 'pending' });
    fake.loseAnswerNext(1, 'hang', 'submitPullRequest');
    const hung = await answerWithin(post('submitPullRequest', ref(6)), 300);
    expect(hung).toBe('timeout');
    expect(fake.submittedPr(REPO, 'main', 6)).toMatchObject({ state: 'pending' });
    expect(fake.requestsTo('submitPullRequest').map((q) => q.fault)).toEqual([
      'applied, answer lost (status 504)',
      'applied, answer lost (hang)',
    ]);
  });

  it('listPullRequests pages with UUID cursors, and every answer validates against the OpenAPI document', async () => {
    for (const n of [2, 3, 4]) await post('submitPullRequest', ref(n));
    const spec = JSON.parse(
      readFileSync(new URL('../../fixtures/trunk-openapi-v1.json', import.meta.url), 'utf8'),
    ) as {
      paths: Record<
        string,
        { post: { responses: { 200: { content: { 'application/json': { schema: object } } } } } }
      >;
    };
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(
      spec.paths['/listPullRequests']?.post.responses[200].content['application/json'].schema as object,
    );
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const r = await post('listPullRequests', { repo: REPO, targetBranch: 'main', take: 3, cursor });
      const json = JSON.parse(r.text);
      expect(validate(json) ? [] : validate.errors).toEqual([]);
      seen.push(...json.pullRequests.map((p: { prNumber: number }) => p.prNumber));
      cursor = json.nextCursor;
      if (!cursor) break;
      expect(cursor).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    expect(seen).toEqual([1, 2, 3, 4]);
  });
});

/** 'timeout' when the request got no answer within `ms`. */
async function answerWithin(p: Promise<unknown>, ms: number): Promise<unknown> {
  // The hung request fails when the fake closes; that is expected, not an unhandled rejection.
  const settled = p.catch((err: unknown) => err);
  return Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('timeout'), ms))]);
}
