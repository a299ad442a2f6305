/** Queue events from snapshots (pure): baseline, each kind, settings before/after, "outside Slack". */
import { describe, expect, it } from 'vitest';
import { makeEnqueuedPr, makeQueue, makeSubmittedPr } from '../../dev/fakes/trunk/index.ts';
import type { AuditEntry } from '../../src/store/types.ts';
import type { EnqueuedPullRequest, Queue } from '../../src/trunk/types.ts';
import {
  type DiffFacts,
  diffSnapshots,
  noteProgress,
  ourChangesFromAudit,
  resolveDeparted,
  toSnapshot,
} from '../../src/watch/diff.ts';
import { evaluateHealth, type HealthRecord } from '../../src/watch/health.ts';
import { type QueueSnapshot, queueKeyOf, type WatchEvent } from '../../src/watch/types.ts';

const T0 = Date.parse('2026-11-02T08:00:00Z');
const MIN = 60_000;
const target = { repo: { host: 'github.com', owner: 'Acme', name: 'Web' }, branch: 'main' };
const key = queueKeyOf(target);

function facts(seq: number, ourChanges: DiffFacts['ourChanges'] = []): DiffFacts {
  return { workspaceId: 'T1', queueKey: key, target, seq, at: T0 + seq * MIN, ourChanges };
}

function queue(settings: Partial<Queue>, prs: Array<Partial<EnqueuedPullRequest>>): Queue {
  return { ...makeQueue(settings), enqueuedPullRequests: prs.map((p) => makeEnqueuedPr(p)) };
}

describe('diffSnapshots', () => {
  it('the first look is a baseline and announces nothing', () => {
    const snap = toSnapshot(queue({ state: 'paused' }, [{ prNumber: 1, state: 'testing' }]), undefined, T0);
    expect(diffSnapshots(undefined, snap, facts(1))).toEqual({ events: [], departed: [] });
  });

  it('an unchanged queue yields no events', () => {
    const q = queue({}, [{ prNumber: 1, state: 'pending' }]);
    const a = toSnapshot(q, undefined, T0);
    const b = toSnapshot(q, a, T0 + MIN);
    expect(diffSnapshots(a, b, facts(2))).toEqual({ events: [], departed: [] });
  });

  it('state and settings changes carry field, before and after; outside Slack unless our audit explains it', () => {
    const a = toSnapshot(
      queue({ state: 'running', concurrency: 2, requiredStatuses: ['ci'] }, []),
      undefined,
      T0,
    );
    const b = toSnapshot(
      queue({ state: 'paused', concurrency: 4, requiredStatuses: ['ci', 'lint'] }, []),
      a,
      T0 + MIN,
    );
    const ours = ourChangesFromAudit([
      audit('pause', 'ok', { before: 'running', after: 'paused' }),
      // A refused or failed attempt changed nothing and explains nothing.
      audit('concurrency', 'refused', {}),
    ]);
    const [event] = diffSnapshots(a, b, facts(2, ours)).events;
    expect(event).toMatchObject({
      id: `T1|${key}|2|state|`,
      kind: 'state',
      outsideSlack: true,
      changes: [
        { field: 'state', before: 'running', after: 'paused', outsideSlack: false, by: 'U_OP' },
        { field: 'concurrency', before: 2, after: 4, outsideSlack: true },
        { field: 'requiredStatuses', before: ['ci'], after: ['ci', 'lint'], outsideSlack: true },
      ],
    });
    const allOurs = ourChangesFromAudit([
      audit('pause', 'ok', { before: 'running', after: 'PAUSED' }),
      audit('settings', 'ok', {
        changes: { concurrency: 4, deleteRequiredStatuses: true },
        after: { concurrency: 4, requiredStatuses: ['ci', 'lint'] },
      }),
    ]);
    const [explained] = diffSnapshots(a, b, facts(2, allOurs)).events;
    expect(explained).toMatchObject({ kind: 'state', outsideSlack: false });
  });

  it('names a person only when their own change produced the value observed (issue 19)', () => {
    const a = toSnapshot(queue({ state: 'running', concurrency: 2 }, []), undefined, T0);
    const b = toSnapshot(queue({ state: 'draining', concurrency: 3 }, []), a, T0 + MIN);
    // U_OP paused from Slack; then someone drained it in Trunk's web app: the value seen is not theirs.
    // And a concurrency change audited without the value it set is not taken as the one observed.
    const ours = ourChangesFromAudit([
      audit('pause', 'ok', { before: 'running', after: 'paused' }),
      audit('concurrency', 'ok', {}),
    ]);
    const [event] = diffSnapshots(a, b, facts(2, ours)).events;
    expect(event).toMatchObject({
      kind: 'state',
      outsideSlack: true,
      changes: [
        { field: 'state', after: 'draining', outsideSlack: true },
        { field: 'concurrency', after: 3, outsideSlack: true },
      ],
    });
    expect((event as { changes: Array<{ by?: string }> }).changes.every((c) => c.by === undefined)).toBe(
      true,
    );
  });

  it('submitted for a PR that entered, testing for one that started, departed for one that left', () => {
    const a = toSnapshot(
      queue({}, [
        { prNumber: 1, state: 'pending', prAuthor: 'mara' },
        { prNumber: 2, state: 'pending' },
        { prNumber: 3, state: 'testing' },
      ]),
      undefined,
      T0,
    );
    const b = toSnapshot(
      queue({}, [
        { prNumber: 1, state: 'testing', prAuthor: 'mara', prTitle: 'Fix it' },
        { prNumber: 3, state: 'testing' },
        { prNumber: 4, state: 'testing', prAuthor: 'li-wei' },
      ]),
      a,
      T0 + MIN,
    );
    const { events, departed } = diffSnapshots(a, b, facts(2));
    expect(events.map((e) => [e.kind, 'pr' in e ? e.pr.number : undefined, e.id])).toEqual([
      ['testing', 1, `T1|${key}|2|testing|1`],
      ['submitted', 4, `T1|${key}|2|submitted|4`],
      ['testing', 4, `T1|${key}|2|testing|4`],
    ]);
    expect(events[0]).toMatchObject({ pr: { author: 'mara', title: 'Fix it', state: 'testing' } });
    expect(departed.map((p) => p.number)).toEqual([2]);
  });

  it('resolves departed PRs to merged, failed (with readiness), cancelled, or left when Trunk forgot them', () => {
    const pr = { number: 7, title: 'T', author: 'devon' };
    const f = facts(3);
    expect(resolveDeparted(pr, makeSubmittedPr({ prNumber: 7, state: 'merged' }), f)).toMatchObject({
      kind: 'merged',
      id: `T1|${key}|3|merged|7`,
    });
    const failed = resolveDeparted(
      pr,
      makeSubmittedPr({
        prNumber: 7,
        state: 'failed',
        prAuthor: 'devon',
        readiness: { gitHubMergeability: 'not_mergeable' },
      }),
      f,
    );
    expect(failed).toMatchObject({
      kind: 'failed',
      pr: { number: 7, author: 'devon', state: 'failed' },
      readiness: { gitHubMergeability: 'not_mergeable' },
    });
    expect(resolveDeparted(pr, makeSubmittedPr({ prNumber: 7, state: 'cancelled' }), f).kind).toBe(
      'cancelled',
    );
    expect(resolveDeparted(pr, undefined, f)).toMatchObject({ kind: 'left', pr });
  });
});

describe('snapshot times for health', () => {
  it('progress moves when a PR starts testing or merges, or the queue stops being empty', () => {
    const empty = toSnapshot(queue({}, []), undefined, T0);
    expect(empty.progressAt).toBe(T0);
    const busy = toSnapshot(queue({}, [{ prNumber: 1, state: 'pending' }]), empty, T0 + 10 * MIN);
    expect(busy.progressAt).toBe(T0 + 10 * MIN);
    const still = toSnapshot(queue({}, [{ prNumber: 1, state: 'pending' }]), busy, T0 + 20 * MIN);
    expect(still.progressAt).toBe(T0 + 10 * MIN);
    const moved = noteProgress(still, [{ kind: 'testing' } as WatchEvent], T0 + 30 * MIN);
    expect(moved.progressAt).toBe(T0 + 30 * MIN);
    const paused = toSnapshot(queue({ state: 'paused' }, []), still, T0 + 40 * MIN);
    expect(paused.haltedSince).toBe(T0 + 40 * MIN);
    expect(toSnapshot(queue({ state: 'draining' }, []), paused, T0 + 50 * MIN).haltedSince).toBe(
      T0 + 40 * MIN,
    );
    expect(toSnapshot(queue({ state: 'running' }, []), paused, T0 + 60 * MIN).haltedSince).toBeUndefined();
  });

  it('waiting is measured from the resume, not from before the pause', () => {
    const waiting = [{ prNumber: 1, state: 'pending' }];
    const before = toSnapshot(queue({}, waiting), undefined, T0);
    const paused = toSnapshot(queue({ state: 'paused' }, waiting), before, T0 + 10 * MIN);
    const stillPaused = toSnapshot(queue({ state: 'paused' }, waiting), paused, T0 + 300 * MIN);
    expect(stillPaused.progressAt).toBe(T0);
    const resumed = toSnapshot(queue({ state: 'running' }, waiting), stillPaused, T0 + 301 * MIN);
    expect(resumed.progressAt).toBe(T0 + 301 * MIN);
  });
});

describe('evaluateHealth', () => {
  const thresholds = { stuckMinutes: 45, pausedReminderHours: 4 };
  function run(snapshot: QueueSnapshot, now: number, previous: HealthRecord[]) {
    return evaluateHealth({
      workspaceId: 'T1',
      queueKey: key,
      target,
      watchId: 'w1',
      snapshot,
      now,
      thresholds,
      previous,
    });
  }

  it('stuck alerts once after the threshold, and recovered once when a PR starts testing', () => {
    let snap = toSnapshot(queue({}, [{ prNumber: 1, state: 'pending' }]), undefined, T0);
    let records: HealthRecord[] = [];
    const seen: WatchEvent[] = [];
    for (let m = 0; m <= 90; m += 5) {
      if (m === 70)
        snap = noteProgress(
          toSnapshot(queue({}, [{ prNumber: 1, state: 'testing' }]), snap, T0 + m * MIN),
          [{ kind: 'testing' } as WatchEvent],
          T0 + m * MIN,
        );
      const r = run(snap, T0 + m * MIN, records);
      records = r.records;
      seen.push(...r.events);
    }
    expect(seen.map((e) => (e.kind === 'health' ? [e.condition, e.phase, e.at - T0] : []))).toEqual([
      ['stuck', 'alert', 45 * MIN],
      ['stuck', 'recovered', 70 * MIN],
    ]);
  });

  it('paused alerts after PAUSED_REMINDER_HOURS and recovers when resumed; a new pause is a new episode', () => {
    const running = toSnapshot(queue({}, []), undefined, T0);
    const paused = toSnapshot(queue({ state: 'paused' }, []), running, T0);
    let r = run(paused, T0 + 3 * 60 * MIN, []);
    expect(r.events).toEqual([]);
    r = run(paused, T0 + 4 * 60 * MIN, r.records);
    expect(r.events).toMatchObject([
      { kind: 'health', condition: 'paused', phase: 'alert', thresholdMinutes: 240 },
    ]);
    expect(run(paused, T0 + 5 * 60 * MIN, r.records).events).toEqual([]);
    const resumed = toSnapshot(queue({}, []), paused, T0 + 6 * 60 * MIN);
    r = run(resumed, T0 + 6 * 60 * MIN, r.records);
    expect(r.events).toMatchObject([{ condition: 'paused', phase: 'recovered' }]);
    expect(run(resumed, T0 + 7 * 60 * MIN, r.records).events).toEqual([]);
    const again = toSnapshot(queue({ state: 'paused' }, []), resumed, T0 + 8 * 60 * MIN);
    const alert = run(again, T0 + 12 * 60 * MIN, r.records).events;
    expect(alert).toMatchObject([{ phase: 'alert', since: T0 + 8 * 60 * MIN }]);
  });
});

function audit(action: string, outcome: AuditEntry['outcome'], detail: Record<string, unknown>): AuditEntry {
  return { workspaceId: 'T1', userId: 'U_OP', action, target: 'Acme/Web:main', outcome, detail, at: T0 };
}
