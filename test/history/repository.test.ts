import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  etasOfPr,
  FILL_STAYS_SQL,
  flakyCheckEvidence,
  mergedStays,
  pruneHistory,
  queueStatesBetween,
  recordEtaShown,
  recordQueueState,
  recordTransition,
  recordTransitions,
  setKickClass,
  setSubmittedBy,
  settleEtas,
  transitionsOfPr,
} from '../../src/history/repository.ts';
import { HISTORY_STATES, type PrTransitionRecord } from '../../src/history/types.ts';
import type { DbExecutor, Store } from '../../src/store/types.ts';
import { recordPolledTransition, recordWebhookTransition } from '../../src/watch/transitions.ts';
import { pgTestsEnabled } from '../helpers/pg.ts';
import { storeEngines } from '../helpers/store-engines.ts';

const pgEnabled = await pgTestsEnabled('history repository (PostgreSQL)');
const T0 = Date.parse('2026-11-02T08:00:00Z');
const MIN = 60_000;
const WS = 'T1';

const engines = storeEngines(pgEnabled, 'mq-history-');

function row(
  queueKey: string,
  prNumber: number,
  state: PrTransitionRecord['state'],
  minute: number,
  more: Partial<PrTransitionRecord> = {},
): PrTransitionRecord {
  return {
    workspaceId: WS,
    queueKey,
    prNumber,
    state,
    occurredAt: T0 + minute * MIN,
    source: 'readback',
    recordedAt: T0,
    ...more,
  };
}

describe.each(engines)('queue history on %s', (_name, open) => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await open());
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await drop();
  });

  it('a transition seen by webhook and then by poll is one row, with what the webhook knew', async () => {
    const q = 'github.com/acme/one:main';
    const seen = { workspaceId: WS, queueKey: q, prNumber: 7, kind: 'failed' as const };
    const outcome = await store.db.transaction((tx) =>
      recordWebhookTransition(tx, {
        ...seen,
        occurredAt: T0,
        now: T0 + 1000,
        detail: { author: 'ada', reasonCode: 'TEST_RUN_TIMEOUT' },
      }),
    );
    expect(outcome).toBe('new');
    const polledNew = await store.db.transaction((tx) =>
      recordPolledTransition(tx, { ...seen, occurredAt: T0 + 15_000, now: T0 + 20_000, since: T0 }),
    );
    expect(polledNew).toBe(false);
    const again = await store.db.transaction((tx) =>
      recordWebhookTransition(tx, { ...seen, occurredAt: T0, now: T0 + 30_000 }),
    );
    expect(again).toBe('duplicate');
    expect(await transitionsOfPr(store.db, WS, q, 7)).toEqual([
      {
        workspaceId: WS,
        queueKey: q,
        prNumber: 7,
        state: 'failed',
        occurredAt: T0,
        source: 'webhook',
        recordedAt: T0 + 1000,
        author: 'ada',
        reasonCode: 'TEST_RUN_TIMEOUT',
      },
    ]);
  });

  it('a poll that sees a transition first records it from the poll', async () => {
    const q = 'github.com/acme/two:main';
    const t = { workspaceId: WS, queueKey: q, prNumber: 8, kind: 'submitted' as const };
    expect(
      await store.db.transaction((tx) =>
        recordPolledTransition(tx, {
          ...t,
          occurredAt: T0,
          now: T0 + 5000,
          since: T0 - 20_000,
          detail: { title: 'Fix it', author: 'bo' },
        }),
      ),
    ).toBe(true);
    const rows = await transitionsOfPr(store.db, WS, q, 8);
    expect(rows.map((r) => [r.state, r.source, r.title, r.author])).toEqual([
      ['submitted', 'poll', 'Fix it', 'bo'],
    ]);
  });

  it('read-back rows dedupe against what is there, near in time or identical', async () => {
    const q = 'github.com/acme/three:main';
    await recordTransition(store.db, row(q, 9, 'merged', 0, { source: 'webhook' }));
    expect(await recordTransition(store.db, row(q, 9, 'merged', 1))).toBe(false);
    expect(await recordTransition(store.db, row(q, 9, 'submitted', -30))).toBe(true);
    expect(await recordTransition(store.db, row(q, 9, 'submitted', -30))).toBe(false);
    expect(await recordTransitions(store.db, [row(q, 9, 'testing', -10), row(q, 9, 'testing', -10)])).toBe(1);
    expect((await transitionsOfPr(store.db, WS, q, 9)).map((r) => r.state)).toEqual([
      'submitted',
      'testing',
      'merged',
    ]);
  });

  it('merged stays: from the attempt’s first entry, testing from its last testing; unknown entries left out', async () => {
    const q = 'github.com/acme/stays:main';
    await recordTransitions(store.db, [
      // PR 1: failed once, re-submitted, merged: the stay is the second attempt.
      row(q, 1, 'submitted', 0),
      row(q, 1, 'testing', 5),
      row(q, 1, 'failed', 20, { headSha: 'a1', failingChecks: ['e2e'] }),
      row(q, 1, 'submitted', 30),
      row(q, 1, 'submitted', 32),
      row(q, 1, 'testing', 40),
      row(q, 1, 'testing', 50),
      row(q, 1, 'merged', 95, { headSha: 'a1' }),
      // PR 2: only its merge is known (v1 read-back): not a whole stay.
      row(q, 2, 'merged', 100),
      // PR 3: merged without a testing transition known.
      row(q, 3, 'submitted', 60),
      row(q, 3, 'merged', 120),
      // PR 4: merged after the window.
      row(q, 4, 'submitted', 100),
      row(q, 4, 'merged', 300),
    ]);
    expect(await mergedStays(store.db, WS, q, T0, T0 + 200 * MIN)).toEqual([
      { prNumber: 1, enteredAt: T0 + 30 * MIN, mergedAt: T0 + 95 * MIN, testingMs: 45 * MIN },
      { prNumber: 3, enteredAt: T0 + 60 * MIN, mergedAt: T0 + 120 * MIN },
    ]);
  });

  it('flaky evidence: failures on a head commit that later merged or passed the check, per check', async () => {
    const q = 'github.com/acme/flaky:main';
    await recordTransitions(store.db, [
      row(q, 1, 'failed', 0, { headSha: 'a', failingChecks: ['e2e'] }),
      row(q, 1, 'merged', 30, { headSha: 'a' }),
      row(q, 2, 'failed', 0, { headSha: 'b', failingChecks: ['e2e', 'lint'] }),
      row(q, 2, 'failed', 40, { headSha: 'b', failingChecks: ['lint'] }),
      // a new commit: not evidence
      row(q, 3, 'failed', 0, { headSha: 'c', failingChecks: ['e2e'] }),
      row(q, 3, 'merged', 50, { headSha: 'd' }),
      // before the window
      row(q, 4, 'failed', -20_000, { headSha: 'e', failingChecks: ['e2e'] }),
      row(q, 4, 'merged', -19_000, { headSha: 'e' }),
    ]);
    const ev = await flakyCheckEvidence(store.db, WS, q, ['e2e', 'lint', 'unit'], T0 - 60 * MIN);
    expect(ev).toEqual([
      { check: 'e2e', failedThenPassed: 2 },
      { check: 'lint', failedThenPassed: 0 },
      { check: 'unit', failedThenPassed: 0 },
    ]);
  });

  it('kick class and who submitted are set on the rows they belong to', async () => {
    const q = 'github.com/acme/kicks:main';
    await recordTransitions(store.db, [row(q, 5, 'submitted', 0), row(q, 5, 'failed', 10)]);
    expect(await setKickClass(store.db, WS, q, 5, T0 + 10 * MIN, 'flaky', '`e2e` failed')).toBe(true);
    expect(await setKickClass(store.db, WS, q, 5, T0, 'flaky', 'x')).toBe(false);
    expect(await setSubmittedBy(store.db, WS, q, 5, T0 + 30_000, 'app:autopilot')).toBe(true);
    const rows = await transitionsOfPr(store.db, WS, q, 5);
    expect(rows.map((r) => [r.state, r.kickClass, r.kickEvidence, r.submittedBy])).toEqual([
      ['submitted', undefined, undefined, 'app:autopilot'],
      ['failed', 'flaky', '`e2e` failed', undefined],
    ]);
  });

  it('queue states: only changes kept; the state in force at a window start comes first', async () => {
    const q = 'github.com/acme/states:main';
    const at = (m: number) => T0 + m * MIN;
    const rec = (state: 'running' | 'paused' | 'draining', m: number) =>
      recordQueueState(store.db, { workspaceId: WS, queueKey: q, state, occurredAt: at(m), source: 'poll' });
    expect(await rec('running', 0)).toBe(true);
    expect(await rec('running', 5)).toBe(false);
    expect(await rec('paused', 10)).toBe(true);
    expect(await rec('running', 70)).toBe(true);
    const states = await queueStatesBetween(store.db, WS, q, at(20), at(100));
    expect(states.map((s) => [s.state, s.occurredAt])).toEqual([
      ['paused', at(10)],
      ['running', at(70)],
    ]);
  });

  it('ETA truth: each estimate kept once, its error once the PR merged', async () => {
    const q = 'github.com/acme/eta:main';
    const shown = { workspaceId: WS, queueKey: q, prNumber: 11, source: 'trunk' as const, surface: 'eta' };
    expect(await recordEtaShown(store.db, { ...shown, shownAt: T0, estimatedAt: T0 + 30 * MIN })).toBe(true);
    expect(await recordEtaShown(store.db, { ...shown, shownAt: T0 + MIN, estimatedAt: T0 + 30 * MIN })).toBe(
      false,
    );
    expect(await settleEtas(store.db, WS, q, 11, T0 + 50 * MIN)).toBe(1);
    expect(await settleEtas(store.db, WS, q, 11, T0 + 60 * MIN)).toBe(0);
    expect(await etasOfPr(store.db, WS, q, 11)).toEqual([
      { ...shown, shownAt: T0, estimatedAt: T0 + 30 * MIN, mergedAt: T0 + 50 * MIN, errorMs: 20 * MIN },
    ]);
  });

  it('pruning forgets what happened before the cut, keeping the queue state then in force', async () => {
    const q = 'github.com/acme/prune:main';
    const old = T0 - 100 * 24 * 60 * MIN;
    await recordTransitions(store.db, [
      { ...row(q, 1, 'merged', 0), occurredAt: old },
      row(q, 2, 'merged', 0),
    ]);
    for (const [state, at] of [
      ['paused', old - MIN],
      ['running', old],
    ] as const)
      await recordQueueState(store.db, {
        workspaceId: WS,
        queueKey: q,
        state,
        occurredAt: at,
        source: 'poll',
      });
    await pruneHistory(store.db, T0 - 90 * 24 * 60 * MIN);
    expect((await transitionsOfPr(store.db, WS, q, 1)).length).toBe(0);
    expect((await transitionsOfPr(store.db, WS, q, 2)).length).toBe(1);
    const states = await queueStatesBetween(store.db, WS, q, T0, T0 + MIN);
    expect(states.map((s) => s.state)).toEqual(['running']);
  });

  it('deleteWorkspace removes the workspace’s history', async () => {
    const q = 'github.com/acme/gone:main';
    await recordTransition(store.db, { ...row(q, 1, 'merged', 0), workspaceId: 'T-GONE' });
    await store.deleteWorkspace('T-GONE');
    expect(await transitionsOfPr(store.db, 'T-GONE', q, 1)).toEqual([]);
  });

  // Stays are kept one recorded row at a time (refreshStays): they must equal what the bulk statement computes
  // from all the rows at once. Each run is rolled back, as the refill rewrites every queue's stays.
  it('kept stays equal the stays computed from all the rows, whatever the rows and their order', async () => {
    const transition = fc.record({
      pr: fc.integer({ min: 1, max: 3 }),
      state: fc.constantFrom(...HISTORY_STATES),
      minute: fc.integer({ min: 0, max: 12 }),
      source: fc.constantFrom('webhook' as const, 'poll' as const, 'readback' as const),
    });
    const q = 'github.com/acme/kept:main';
    const staysOf = async (tx: DbExecutor) =>
      (
        await tx.query(
          `SELECT pr_number, merged_at, entered_at, tested_at FROM queue_stays
           WHERE workspace_id = $1 AND queue_key = $2 ORDER BY pr_number, merged_at`,
          [WS, q],
        )
      ).map((r) => Object.values(r).map((v) => (v === null ? null : Number(v))));
    const rollback = new Error('rolled back on purpose');
    await fc.assert(
      fc.asyncProperty(fc.array(transition, { maxLength: 24 }), (ts) =>
        store.db
          .transaction(async (tx) => {
            for (const t of ts)
              await recordTransition(tx, row(q, t.pr, t.state, t.minute * 3, { source: t.source }));
            const kept = await staysOf(tx);
            await tx.execute('DELETE FROM queue_stays');
            await tx.execute(FILL_STAYS_SQL);
            expect(kept).toEqual(await staysOf(tx));
            throw rollback;
          })
          .catch((err: unknown) => {
            if (err !== rollback) throw err;
          }),
      ),
      { numRuns: store.db.dialect === 'sqlite' ? 200 : 40 },
    );
  }, 60_000);

  // Last in this block: its pruning forgets everything before it. Stays are kept as rows are recorded
  // (migration 021), so they must come out the same whatever order the rows arrive in.
  it('stays are the same whatever order the rows arrive in, and after pruning', async () => {
    const B = 200_000; // minutes after T0: after every other test's rows
    const rows = (q: string) => [
      row(q, 1, 'submitted', B, { source: 'poll' }),
      row(q, 1, 'testing', B + 10, { source: 'poll' }),
      row(q, 1, 'failed', B + 20, { source: 'poll' }),
      row(q, 1, 'submitted', B + 30, { source: 'poll' }),
      row(q, 1, 'testing', B + 40, { source: 'poll' }),
      row(q, 1, 'testing', B + 50, { source: 'poll' }),
      row(q, 1, 'merged', B + 60, { source: 'poll' }),
      row(q, 2, 'submitted', B, { source: 'poll' }),
      row(q, 2, 'submitted', B + 5, { source: 'poll' }),
      row(q, 2, 'merged', B + 20, { source: 'poll' }),
      row(q, 2, 'submitted', B + 90, { source: 'poll' }),
      row(q, 2, 'failed', B + 100, { source: 'poll' }),
      row(q, 2, 'merged', B + 100, { source: 'poll' }),
      row(q, 3, 'merged', B + 70, { source: 'poll' }),
      row(q, 4, 'testing', B + 10, { source: 'poll' }),
      row(q, 4, 'merged', B + 15, { source: 'poll' }),
    ];
    const at = (m: number) => T0 + (B + m) * MIN;
    const orders: Array<[string, (rs: PrTransitionRecord[]) => PrTransitionRecord[]]> = [
      ['in-order', (rs) => rs],
      ['reversed', (rs) => [...rs].reverse()],
      [
        'mixed',
        (rs) =>
          rs
            .map((r, i) => [(i * 7) % rs.length, r] as const)
            .sort((a, b) => a[0] - b[0])
            .map(([, r]) => r),
      ],
    ];
    for (const [name, order] of orders) {
      const q = `github.com/acme/stays-${name}:main`;
      for (const r of order(rows(q))) await recordTransition(store.db, r);
      expect(await mergedStays(store.db, WS, q, at(-60), at(200)), name).toEqual([
        { prNumber: 2, enteredAt: at(0), mergedAt: at(20) },
        { prNumber: 1, enteredAt: at(30), mergedAt: at(60), testingMs: 10 * MIN },
        { prNumber: 2, enteredAt: at(90), mergedAt: at(100) },
      ]);
    }
    // Pruned up to minute 3: PR 2's first stay is known from its second `submitted`, as the rows now say;
    // PR 1's first test run is gone, and its stay did not use it.
    await pruneHistory(store.db, at(3));
    for (const [name] of orders)
      expect(
        await mergedStays(store.db, WS, `github.com/acme/stays-${name}:main`, at(-60), at(200)),
        name,
      ).toEqual([
        { prNumber: 2, enteredAt: at(5), mergedAt: at(20) },
        { prNumber: 1, enteredAt: at(30), mergedAt: at(60), testingMs: 10 * MIN },
        { prNumber: 2, enteredAt: at(90), mergedAt: at(100) },
      ]);
  });
});
