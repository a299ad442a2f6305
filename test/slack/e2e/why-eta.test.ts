/**
 * `/mergequeue why` and `/mergequeue eta` through the wire (issue 20): with a v2 key (TRUNK_API_KEY in
 * single-workspace mode) the PR's story with the reason, the failing checks and the buttons by state; the ETA
 * as a Slack date with what the PR waits behind; a queue without estimates; a 403 naming the permission; an
 * unknown reason as Trunk sent it. Without a key, v1's state and how to add one. Every v2 request validates
 * against Trunk's v2 OpenAPI subset, and the v1 token never goes to v2.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TRUNK_TOKEN } from '../../helpers/app-harness.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { buttonsIn, textOf } from '../../helpers/block-kit-reading.ts';
import { v2RequestErrors } from '../../trunk/openapi-v2.ts';

const KEY = 'trunk_v2_wire_key_123';
let h: Harness;
let plain: Harness;

beforeAll(async () => {
  [h, plain] = await Promise.all([startHarness({ env: { TRUNK_API_KEY: KEY } }), startHarness()]);
});
afterAll(async () => Promise.all([h?.close(), plain?.close()]));
afterEach(() => {
  const v2 = h.trunk.requests.filter((r) => r.path.startsWith('/v2/'));
  expect(v2.flatMap((r) => v2RequestErrors(r.method, r.path))).toEqual([]);
  for (const r of v2) {
    expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(r.headers['x-api-token']).toBeUndefined();
  }
  expect(JSON.stringify(v2)).not.toContain(TRUNK_TOKEN);
});

async function ask(harness: Harness, text: string) {
  const sent = await harness.sendCommand(text);
  expect(sent.status).toBe(200);
  const reply = (await harness.reply(sent.responseUrl)) as { text: unknown; blocks?: unknown };
  assertValidReply(reply);
  return { text: textOf(reply), buttons: buttonsIn(reply.blocks).map((b) => b.text) };
}

function seed(harness: Harness) {
  harness.trunk.v2.setKeys({ [KEY]: [] });
  harness.trunk.addQueue('acme/web', 'main', { requiredStatuses: ['ci/unit'] }, [
    { prNumber: 11, prTitle: 'Testing one', prAuthor: 'dev1', state: 'testing' },
    { prNumber: 12, prTitle: 'Waiting one', prAuthor: 'dev2', state: 'pending' },
  ]);
  harness.trunk.addSubmittedPr('acme/web', 'main', {
    prNumber: 13,
    prTitle: 'Kicked one',
    prAuthor: 'dev3',
    state: 'failed',
    isCurrentlySubmittedToQueue: false,
  });
}

describe('/mergequeue why', () => {
  it('a failed PR: the reason in words, the failing check with its link, failed on its own, Re-submit', async () => {
    await h.reset();
    seed(h);
    h.trunk.v2.setHistory('acme/web', 13, [
      {
        state: 'pending',
        changedAt: '2026-11-20T10:00:00Z',
        reason: 'MERGE_ITEM_NOW_READY',
        actor: { gitHubLogin: 'dev3' },
      },
      { state: 'testing', changedAt: '2026-11-20T10:01:00Z', reason: null },
      {
        state: 'failed',
        changedAt: '2026-11-20T10:30:00Z',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        failed: {
          failureCausingChecks: [
            { name: 'ci/unit', url: 'https://ci.example/runs/77', conclusion: 'failure' },
          ],
        },
      },
    ]);
    const { text, buttons } = await ask(h, 'why 13 acme/web:main');
    expect(text).toContain('It failed: a required check failed');
    expect(text).toContain('https://ci.example/runs/77');
    expect(text).toContain('failed on its own');
    expect(text).toContain('by dev3');
    expect(buttons).toEqual(['Re-submit', 'Open in Trunk']);
  });

  it('a merge conflict names the PR it came from; an unknown reason is shown as Trunk sent it', async () => {
    await h.reset();
    seed(h);
    h.trunk.v2.setHistory('acme/web', 13, [
      { state: 'pending', changedAt: '2026-11-20T10:00:00Z', reason: 'MERGE_ITEM_NOW_READY' },
      {
        state: 'failed',
        changedAt: '2026-11-20T10:02:00Z',
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        failed: { failureCausingChecks: [], conflictCulprit: { kind: 'pullRequest', sha: 'abc', number: 9 } },
      },
    ]);
    expect((await ask(h, 'why 13 acme/web:main')).text).toMatch(/merge conflict with .*#9/);
    h.trunk.v2.setHistory('acme/web', 13, [
      { state: 'failed', changedAt: '2026-11-20T10:02:00Z', reason: 'SOLAR_FLARE_DETECTED' },
    ]);
    expect((await ask(h, 'why 13 acme/web:main')).text).toContain('SOLAR_FLARE_DETECTED');
  });

  it('a testing PR offers Restart tests; a PR Trunk never saw is said so', async () => {
    await h.reset();
    seed(h);
    const testing = await ask(h, 'why 11 acme/web:main');
    expect(testing.buttons).toEqual(['Restart tests', 'Open in Trunk']);
    expect((await ask(h, 'why 999 acme/web:main')).text).toContain('no record of');
  });

  it('a 403 from v2 names the permission Trunk names', async () => {
    await h.reset();
    seed(h);
    h.trunk.v2.failNext(
      'pullRequests.resolveByCoordinates',
      403,
      'INSUFFICIENT_PERMISSIONS',
      'This API key needs the "Merge and cancel PRs" permission',
    );
    const { text } = await ask(h, 'why 13 acme/web:main');
    expect(text).toContain('lacks a permission');
    expect(text).toContain('Merge and cancel PRs');
  });

  it('without a v2 key: v1’s state, and how to add a key', async () => {
    await plain.reset();
    seed(plain);
    const { text } = await ask(plain, 'why 13 acme/web:main');
    expect(text).toMatch(/failed/i);
    expect(text).toContain('no v2 API key');
    expect(text).toContain('/mergequeue connect');
    expect(plain.trunk.requests.some((r) => r.path.startsWith('/v2/'))).toBe(false);
  });

  it('bad input gets the usage and changes nothing', async () => {
    await h.reset();
    const { text } = await ask(h, 'why twelve');
    expect(text).toContain('is not a PR number');
    expect(text).toContain('mergequeue why');
    expect(h.trunk.requests).toHaveLength(0);
  });
});

describe('/mergequeue eta', () => {
  it('an estimate as a Slack date, and the PR it waits behind', async () => {
    await h.reset();
    seed(h);
    h.trunk.v2.setEstimate('acme/web', 12, {
      status: 'available',
      kind: 'merge',
      estimatedAt: '2026-11-20T13:00:00Z',
    });
    const { text } = await ask(h, 'eta 12 acme/web:main');
    expect(text).toContain('Expected to merge');
    expect(text).toContain(`<!date^${Date.UTC(2026, 10, 20, 13) / 1000}^`);
    expect(text).toContain('#11');
  });

  it('a queue without estimates says so, and is not asked again', async () => {
    await h.reset();
    seed(h);
    h.trunk.v2.disableEstimates('acme/web', 'main');
    // PR 11 was not asked before (an estimate is reused for 30 s, whatever the queue does meanwhile).
    expect((await ask(h, 'eta 11 acme/web:main')).text).toContain('This queue gives no estimates');
    expect((await ask(h, 'eta 12 acme/web:main')).text).toContain('This queue gives no estimates');
    expect(h.trunk.requestsTo('pullRequests.queueEntryEstimate')).toHaveLength(1);
  });

  it('without a v2 key: v1’s state and how to add a key', async () => {
    await plain.reset();
    seed(plain);
    const { text } = await ask(plain, 'eta 12 acme/web:main');
    expect(text).toContain('no v2 API key');
  });
});
