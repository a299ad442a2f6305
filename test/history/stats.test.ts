import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededHistory, startTrunkFake } from '../../dev/fakes/trunk/index.ts';
import {
  recordEtaShown,
  recordQueueState,
  recordTransition,
  recordTransitions,
  setKickClass,
  settleEtas,
} from '../../src/history/repository.ts';
import {
  computeQueueStats,
  dayStarts,
  nearestRank,
  previousWindow,
  statsWindow,
} from '../../src/history/stats.ts';
import type { PrTransitionRecord } from '../../src/history/types.ts';
import type { Store } from '../../src/store/types.ts';
import { truthOf } from '../helpers/history-truth.ts';
import { pgTestsEnabled } from '../helpers/pg.ts';
import { storeEngines } from '../helpers/store-engines.ts';

const pgEnabled = await pgTestsEnabled('history stats (PostgreSQL)');
// A week that spans Europe's change from summer time (2026-10-25).
const NOW = Date.parse('2026-10-29T15:00:00Z');
const TZ = 'Europe/Berlin';
const WS = 'T1';
const MIN = 60_000;

let seeded: SeededHistory;
let queueKey: string;

beforeAll(async () => {
  const fake = await startTrunkFake({ now: () => NOW });
  try {
    seeded = fake.seedHistory('acme/web', 'main', { days: 20, prsPerDay: 40, seed: 7 });
    queueKey = 'github.com/acme/web:main';
  } finally {
    await fake.close();
  }
});

const engines = storeEngines(pgEnabled, 'mq-stats-');

describe('stats helpers', () => {
  it('nearest rank', () => {
    expect(nearestRank([], 50)).toBeUndefined();
    expect(nearestRank([5], 90)).toBe(5);
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
  });

  it('a 7-day window is seven of the reader’s days; a day across the DST change is 25 h long', () => {
    const w = statsWindow(NOW, 7, TZ);
    expect(new Date(w.from).toISOString()).toBe('2026-10-22T22:00:00.000Z');
    const days = dayStarts(w.from, w.to, TZ);
    expect(days.map((d) => d.day)).toEqual([
      '2026-10-23',
      '2026-10-24',
      '2026-10-25',
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
    ]);
    expect((days[3]?.start ?? 0) - (days[2]?.start ?? 0)).toBe(25 * 60 * MIN);
    expect(previousWindow(w)).toEqual({ from: w.from - (w.to - w.from), to: w.from });
  });
});

describe.each(engines)('computeQueueStats on %s', (_name, open) => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await open());
    const records: PrTransitionRecord[] = seeded.transitions.map((t) => ({
      workspaceId: WS,
      queueKey,
      prNumber: t.prNumber,
      state: t.state,
      occurredAt: t.at,
      headSha: t.headSha,
      ...(t.reason ? { reasonCode: t.reason } : {}),
      ...(t.failingChecks ? { failingChecks: t.failingChecks } : {}),
      source: 'readback',
      recordedAt: NOW,
    }));
    await store.db.transaction((tx) => recordTransitions(tx, records));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it('figures equal the ground truth, this window and the one before', async () => {
    const w = statsWindow(NOW, 7, TZ);
    for (const win of [w, previousWindow(w)]) {
      const stats = await computeQueueStats(store.db, { workspaceId: WS, queueKey, ...win, tz: TZ });
      const truth = truthOf(seeded.transitions, win.from, win.to, TZ);
      expect(truth.merged).toBeGreaterThan(100);
      expect(stats.merged).toBe(truth.merged);
      expect(stats.kicked).toBe(truth.kicked);
      expect(stats.cancelled).toBe(truth.cancelled);
      expect(stats.timeInQueue.p50Ms).toBe(truth.p50Ms);
      expect(stats.timeInQueue.p90Ms).toBe(truth.p90Ms);
      expect(stats.testing.p50Ms).toBe(truth.testingP50Ms);
      expect(stats.kickRate).toBeCloseTo(truth.kicked / (truth.merged + truth.kicked), 10);
      expect(stats.topFailingChecks.map((c) => [c.check, c.count])).toEqual(truth.topChecks);
      for (const d of stats.days) {
        const t = truth.days.get(d.day) ?? { merged: 0, kicked: 0 };
        expect({ day: d.day, merged: d.merged, kicked: d.kicked, p50: d.p50Ms, p90: d.p90Ms }).toEqual({
          day: d.day,
          merged: t.merged,
          kicked: t.kicked,
          p50: t.p50Ms,
          p90: t.p90Ms,
        });
      }
    }
  });

  it('a one-day window is one bucket', async () => {
    const w = statsWindow(NOW, 1, TZ);
    const stats = await computeQueueStats(store.db, { workspaceId: WS, queueKey, ...w, tz: TZ });
    const truth = truthOf(seeded.transitions, w.from, w.to, TZ);
    expect(stats.days).toHaveLength(1);
    expect([stats.merged, stats.days[0]?.merged]).toEqual([truth.merged, truth.merged]);
  });

  it('kicks by class, autopilot re-submissions and how many merged, ETA error, hours paused', async () => {
    const q = 'github.com/acme/other:main';
    const T = NOW - 3 * 24 * 60 * MIN;
    const at = (m: number) => T + m * MIN;
    const row = (
      pr: number,
      state: PrTransitionRecord['state'],
      m: number,
      more: Partial<PrTransitionRecord> = {},
    ) =>
      ({
        workspaceId: WS,
        queueKey: q,
        prNumber: pr,
        state,
        occurredAt: at(m),
        source: 'webhook',
        recordedAt: at(m),
        ...more,
      }) as PrTransitionRecord;
    for (const r of [
      row(1, 'submitted', 0),
      row(1, 'failed', 10),
      row(1, 'submitted', 11, { submittedBy: 'app:autopilot' }),
      row(1, 'merged', 40),
      row(2, 'submitted', 0),
      row(2, 'failed', 12),
      row(2, 'submitted', 13, { submittedBy: 'app:autopilot' }),
      row(2, 'failed', 30),
      row(3, 'cancelled', 50),
    ])
      await recordTransition(store.db, r);
    await setKickClass(store.db, WS, q, 1, at(10), 'flaky', 'e2e');
    await setKickClass(store.db, WS, q, 2, at(12), 'flaky', 'e2e');
    await setKickClass(store.db, WS, q, 2, at(30), 'failure', 'unit');
    await setKickClass(store.db, WS, q, 3, at(50), 'cancelled', 'by mara');
    for (const [pr, est] of [
      [1, 30],
      [1, 60],
    ] as const)
      await recordEtaShown(store.db, {
        workspaceId: WS,
        queueKey: q,
        prNumber: pr,
        shownAt: at(12),
        estimatedAt: at(est),
        source: 'trunk',
        surface: 'eta',
      });
    await settleEtas(store.db, WS, q, 1, at(40));
    for (const [state, m] of [
      ['running', -100],
      ['paused', 100],
      ['draining', 130],
      ['running', 160],
    ] as const)
      await recordQueueState(store.db, {
        workspaceId: WS,
        queueKey: q,
        state,
        occurredAt: at(m),
        source: 'poll',
      });
    const stats = await computeQueueStats(store.db, {
      workspaceId: WS,
      queueKey: q,
      from: at(0),
      to: at(1000),
      tz: TZ,
    });
    expect(stats.kicksByClass).toEqual([
      { kickClass: 'flaky', count: 2 },
      { kickClass: 'cancelled', count: 1 },
      { kickClass: 'failure', count: 1 },
    ]);
    expect(stats.autopilot).toEqual({ resubmitted: 2, merged: 1 });
    expect(stats.eta).toEqual({ count: 2, p50Ms: 10 * MIN, p90Ms: 20 * MIN });
    expect(stats.pausedOrDrainingMs).toBe(60 * MIN);
    expect(stats.timeInQueue).toEqual({ known: 1, p50Ms: 29 * MIN, p90Ms: 29 * MIN });
  });
});
