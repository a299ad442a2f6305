/**
 * The queue domain against the real Trunk client talking HTTP to the Trunk fake, and the real SQLite store:
 * changes run through the application's audited change flow (services/queue.ts `changeQueueAs`: click
 * claims and audit rows), the domain's decisions underneath (queue/operations.ts, plain outcomes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../src/core/target.ts';
import {
  type ChangeStateOptions,
  changeState as decideState,
  readPullRequest,
  readTestRun,
  type SetConcurrencyOptions,
  type SettingsChanges,
} from '../../src/queue/operations.ts';
import { summarizeFailingTests, summarizeQuarantinedTests } from '../../src/queue/summaries.ts';
import { changeQueueAs, type QueueChanger } from '../../src/services/queue.ts';
import { auditBy } from '../../src/store/audit-retrying.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { isTrunkError } from '../../src/trunk/errors.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const target = 'acme/web:main';
let fake: TrunkFake;
let store: Store;
let dir: string;
let clock = 1_700_000_000_000;

function client(token = 'test-token') {
  return createTrunkClient({
    baseUrl: fake.url,
    auth: apiTokenAuth(token),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: async () => {},
  });
}

/** `userId` changing queues in `workspaceId`: audit rows by them, click claims in the store. */
function ctx(userId = 'UALICE', workspaceId = 'T1'): QueueChanger {
  const audit = auditBy.bind(undefined, { store, workspaceId, userId, now: () => clock });
  return { trunk: client(), workspaceId, audit, claims: store };
}

type Click = { clickKey?: string };
const changeState = (
  c: QueueChanger,
  r: QueueRef,
  desired: 'paused' | 'running' | 'draining',
  o: ChangeStateOptions & Click = {},
) => changeQueueAs(c, r, { kind: 'state', desired, ...o });
const setConcurrency = (c: QueueChanger, r: QueueRef, value: number, o: SetConcurrencyOptions & Click = {}) =>
  changeQueueAs(c, r, { kind: 'concurrency', value, ...o });
const updateSettings = (c: QueueChanger, r: QueueRef, changes: SettingsChanges) =>
  changeQueueAs(c, r, { kind: 'settings', changes });

const writes = () => fake.requestsTo('updateQueue');
const audit = async (ws = 'T1') =>
  (await store.listAudit(ws, { limit: 100 })).slice().sort((a, b) => (a.id ?? 0) - (b.id ?? 0));

beforeAll(async () => {
  fake = await startTrunkFake();
  dir = mkdtempSync(join(tmpdir(), 'mq-svc-'));
  store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'db.sqlite') },
    encryptionKeys: [Buffer.alloc(32, 7)],
    now: () => clock,
  });
});
afterAll(async () => {
  await store?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  clock += 60_000; // click claims from earlier tests expire
  fake.resetFaults();
  fake.addQueue(ref.repo, 'main', { state: 'running', concurrency: 2, requiredStatuses: ['ci/build'] }, [
    { prNumber: 101 },
  ]);
  fake.clearRequests();
});

describe('changeState', () => {
  it('pauses from a command, returning before/after as Trunk reported, and audits it', async () => {
    const r = await changeState(ctx(), ref, 'paused', { reason: 'main is red' });
    expect(r).toMatchObject({ outcome: 'ok', action: 'pause', target });
    if (r.outcome !== 'ok') throw new Error();
    expect(r.before.state).toBe('running');
    expect(r.after.state).toBe('paused');
    // updateQueue answers without the PR list; the redraw view keeps the one read just before.
    expect(r.after.enqueuedPullRequests).toBeUndefined();
    expect(r.view.state).toBe('paused');
    expect(r.view.enqueuedPullRequests?.map((p) => p.prNumber)).toEqual([101]);
    expect(fake.queue(ref.repo, 'main')?.state).toBe('paused');
    expect(writes().map((w) => w.body)).toEqual([{ repo: ref.repo, targetBranch: 'main', state: 'paused' }]);
    const last = (await audit()).at(-1)!;
    expect(last).toMatchObject({
      userId: 'UALICE',
      action: 'pause',
      target,
      outcome: 'ok',
      detail: { reason: 'main is red', before: 'running', after: 'paused', via: 'command' },
    });
  });

  it('does nothing when the queue is already in the wanted state', async () => {
    fake.patchQueue(ref.repo, 'main', { state: 'paused' });
    const r = await changeState(ctx(), ref, 'paused');
    expect(r).toMatchObject({ outcome: 'noop', reason: expect.stringContaining('already paused') });
    expect(writes()).toHaveLength(0);
    expect((await audit()).at(-1)).toMatchObject({ action: 'pause', outcome: 'noop' });
  });

  it("a button acts on the queue's current state: an old Resume resumes only if paused now", async () => {
    // Yesterday's message showed "paused"; someone has resumed since, and another drained it.
    fake.patchQueue(ref.repo, 'main', { state: 'running' });
    const stale = await changeState(ctx(), ref, 'running', { expected: 'paused', clickKey: 'k1' });
    expect(stale).toMatchObject({ outcome: 'noop' });
    fake.patchQueue(ref.repo, 'main', { state: 'draining' });
    const now = await changeState(ctx(), ref, 'running', { expected: 'paused', clickKey: 'k2' });
    expect(now).toMatchObject({ outcome: 'ok', after: { state: 'running' } });
    expect(writes()).toHaveLength(1);
  });

  it('a Drain button on a queue that was paused meanwhile does not unpause it', async () => {
    fake.patchQueue(ref.repo, 'main', { state: 'paused' });
    const r = await changeState(ctx(), ref, 'draining', { expected: 'running', clickKey: 'k3' });
    expect(r).toMatchObject({
      outcome: 'noop',
      reason: expect.stringContaining('paused now (this message showed it running)'),
    });
    expect(writes()).toHaveLength(0);
  });

  it('a double click changes the queue once', async () => {
    const [a, b] = await Promise.all([
      changeState(ctx(), ref, 'paused', { expected: 'running', clickKey: 'mq_pause:acme/web:main:1' }),
      changeState(ctx('UBOB'), ref, 'paused', { expected: 'running', clickKey: 'mq_pause:acme/web:main:1' }),
    ]);
    expect([a.outcome, b.outcome].sort()).toEqual(['noop', 'ok']);
    expect(writes()).toHaveLength(1);
    // The same click later (claim still held) is also a no-op.
    const again = await changeState(ctx(), ref, 'paused', {
      expected: 'running',
      clickKey: 'mq_pause:acme/web:main:1',
    });
    expect(again).toMatchObject({ outcome: 'noop', reason: 'That click was already handled.' });
  });

  it('a Trunk failure is returned, audited as failed, and leaves the queue alone', async () => {
    fake.failNext(1, { status: 401, body: 'bad token' });
    const r = await changeState(ctx(), ref, 'paused');
    expect(r.outcome).toBe('failed');
    if (r.outcome !== 'failed') throw new Error();
    expect(isTrunkError(r.error) && r.error.kind).toBe('auth');
    expect(fake.queue(ref.repo, 'main')?.state).toBe('running');
    expect((await audit()).at(-1)).toMatchObject({
      action: 'pause',
      outcome: 'failed',
      detail: { error: 'auth' },
    });

    fake.failNext(10, { status: 503 }, 'updateQueue');
    const down = await changeState(ctx(), ref, 'draining');
    expect(down.outcome === 'failed' && isTrunkError(down.error) && down.error.kind).toBe('unavailable');
    expect(down.before?.state).toBe('running');
  });

  it('an unknown queue is a not_found failure', async () => {
    const r = await changeState(ctx(), { ...ref, branch: 'nope' }, 'paused');
    expect(r.outcome === 'failed' && isTrunkError(r.error) && r.error.kind).toBe('not_found');
    expect(writes()).toHaveLength(0);
  });
});

describe('the domain alone', () => {
  it('decides and changes through Trunk only: no audit row, no click claim', async () => {
    const rows = (await audit()).length;
    const r = await decideState({ trunk: client() }, ref, 'paused', { expected: 'running' });
    expect(r).toMatchObject({ outcome: 'ok', before: { state: 'running' }, after: { state: 'paused' } });
    expect(await audit()).toHaveLength(rows);
    const again = await decideState({ trunk: client() }, ref, 'paused');
    expect(again).toMatchObject({ outcome: 'noop', reason: expect.stringContaining('already paused') });
    expect(await audit()).toHaveLength(rows);
  });
});

describe('setConcurrency', () => {
  it('sets a new value and audits before/after', async () => {
    const r = await setConcurrency(ctx(), ref, 5);
    expect(r).toMatchObject({ outcome: 'ok', before: { concurrency: 2 }, after: { concurrency: 5 } });
    expect((await audit()).at(-1)).toMatchObject({
      action: 'concurrency',
      outcome: 'ok',
      detail: { before: 2, after: 5 },
    });
  });

  it('a double + click raises it once (each click carries the value it saw)', async () => {
    const first = await setConcurrency(ctx(), ref, 3, { expectedCurrent: 2, clickKey: 'inc:a' });
    const second = await setConcurrency(ctx(), ref, 3, { expectedCurrent: 2, clickKey: 'inc:b' });
    expect(first.outcome).toBe('ok');
    expect(second).toMatchObject({
      outcome: 'noop',
      reason: expect.stringContaining('is 3 now (this message showed 2)'),
    });
    expect(fake.queue(ref.repo, 'main')?.concurrency).toBe(3);
    expect(writes()).toHaveLength(1);
  });

  it('refuses 0 and 4294967296 without calling Trunk', async () => {
    for (const n of [0, 4294967296, 1.5, Number.NaN]) {
      const r = await setConcurrency(ctx(), ref, n);
      expect(r.outcome === 'failed' && isTrunkError(r.error) && r.error.kind).toBe('invalid_request');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('is a no-op when already at that value', async () => {
    expect(await setConcurrency(ctx(), ref, 2)).toMatchObject({ outcome: 'noop' });
    expect(writes()).toHaveLength(0);
  });
});

describe('updateSettings', () => {
  it('sends only the fields that differ from the current queue', async () => {
    const r = await updateSettings(ctx(), ref, {
      mode: 'parallel',
      concurrency: 2,
      batch: true,
      requiredStatuses: ['ci/build', 'ci/test'],
    });
    expect(r.outcome).toBe('ok');
    const body = writes()[0]!.body as Record<string, unknown>;
    expect(body).toEqual({
      repo: ref.repo,
      targetBranch: 'main',
      mode: 'parallel',
      batch: true,
      requiredStatuses: ['ci/build', 'ci/test'],
    });
    expect((await audit()).at(-1)).toMatchObject({
      action: 'settings',
      outcome: 'ok',
      detail: { before: { mode: 'single' }, after: { mode: 'parallel' } },
    });
  });

  it('removes the manual required statuses', async () => {
    const r = await updateSettings(ctx(), ref, { deleteRequiredStatuses: true });
    expect(r.outcome).toBe('ok');
    expect(writes()[0]!.body).toMatchObject({ deleteRequiredStatuses: true });
  });

  it('rejects invalid values locally and reports nothing-to-change', async () => {
    for (const bad of [
      { batchingMinSize: 0 },
      { mode: 'chaos' },
      { requiredStatuses: [''] },
      { testingTimeoutMinutes: 4294967296 },
    ] as never[]) {
      const r = await updateSettings(ctx(), ref, bad);
      expect(r.outcome === 'failed' && isTrunkError(r.error) && r.error.kind).toBe('invalid_request');
    }
    expect(fake.requests).toHaveLength(0);
    expect(await updateSettings(ctx(), ref, { concurrency: 2 })).toMatchObject({ outcome: 'noop' });
    expect(writes()).toHaveLength(0);
  });
});

describe('reads', () => {
  it('reads a PR and a test run', async () => {
    fake.addSubmittedPr(ref.repo, 'main', { prNumber: 77, prTitle: 'Add x' });
    fake.addTestRun(ref.repo, 'main', 'run-9', { status: 'succeeded' });
    expect((await readPullRequest(ctx(), ref, 77)).prTitle).toBe('Add x');
    expect((await readTestRun(ctx(), ref, 'run-9')).status).toBe('succeeded');
    await expect(readPullRequest(ctx(), ref, 78)).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('summaries', () => {
  it('streams failing tests: counts plus the top N by PRs impacted, then failure rate', async () => {
    fake.setFailingTests(ref.repo, [
      {
        name: 'a',
        pull_requests_impacted_last_7d: 1,
        failure_rate_last_24h: 0.9,
        status: { reason: 'x', timestamp: new Date(clock - 1000).toISOString() },
      },
      {
        name: 'b',
        pull_requests_impacted_last_7d: 5,
        failure_rate_last_24h: 0.1,
        status: { reason: 'x', timestamp: new Date(clock - 2000).toISOString() },
      },
      {
        name: 'c',
        pull_requests_impacted_last_7d: 5,
        failure_rate_last_24h: 0.3,
        status: { reason: 'x', timestamp: new Date(clock - 3000).toISOString() },
      },
      {
        name: 'old',
        pull_requests_impacted_last_7d: 99,
        status: { reason: 'x', timestamp: new Date(clock - 3 * 86_400_000).toISOString() },
      },
    ]);
    const s = await summarizeFailingTests(client(), {
      repo: ref.repo,
      orgSlug: 'acme',
      now: () => clock,
      top: 2,
      pageSize: 1,
    });
    expect(s.total).toBe(3);
    expect(s.scanned).toBe(3);
    expect(s.complete).toBe(true);
    expect(s.top.map((t) => t.name)).toEqual(['c', 'b']);
  });

  it('stops after maxPages on a large repository', async () => {
    fake.generateFailingTests(ref.repo, 5000, { seed: 1 });
    fake.clearRequests();
    const s = await summarizeFailingTests(client(), {
      repo: ref.repo,
      orgSlug: 'acme',
      now: () => Date.now(),
      maxPages: 2,
    });
    expect(fake.requestsTo('listFailingTests')).toHaveLength(2);
    expect(s.scanned).toBe(200);
    expect(s.complete).toBe(false);
    expect(s.total).toBeGreaterThan(200);
    expect(s.top).toHaveLength(5);
    for (let i = 1; i < s.top.length; i++)
      expect(s.top[i - 1]!.prsImpacted7d).toBeGreaterThanOrEqual(s.top[i]!.prsImpacted7d);
  });

  it('summarizes quarantined tests, newest first, with owners', async () => {
    fake.setQuarantinedTests(ref.repo, [
      { name: 'q1', quarantined_at: '2026-01-01T00:00:00Z', codeowners: ['@a'] },
      { name: 'q2', quarantined_at: '2026-03-01T00:00:00Z', codeowners: ['@a', '@b'] },
    ]);
    const s = await summarizeQuarantinedTests(client(), {
      repo: ref.repo,
      orgSlug: 'acme',
      now: () => clock,
    });
    expect(s.total).toBe(2);
    expect(s.top.map((t) => t.name)).toEqual(['q2', 'q1']);
    expect(s.owners).toEqual([
      { owner: '@a', count: 2 },
      { owner: '@b', count: 1 },
    ]);
  });
});
