/**
 * Health of a watched queue (pure): stuck (PRs waiting, nothing started testing or merged for the stuck
 * threshold) and paused (paused or draining longer than the reminder threshold). Each episode of a
 * condition alerts once and, once it clears, says "recovered" once; the records carry that across polls,
 * restarts and takeovers.
 */
import { eventId } from './diff.ts';
import type { HealthCondition, QueueSnapshot, QueueTarget, WatchEvent } from './types.ts';

export interface HealthRecord {
  condition: HealthCondition;
  /** When the episode's condition began. */
  since: number;
  alertedAt?: number;
  recoveredAt?: number;
}

export interface HealthThresholds {
  stuckMinutes: number;
  pausedReminderHours: number;
}

export interface HealthInput {
  workspaceId: string;
  queueKey: string;
  target: QueueTarget;
  watchId: string;
  snapshot: QueueSnapshot;
  /** The previous poll's state: a recovery says what the queue came out of (state is the new one). */
  previousState?: string;
  now: number;
  thresholds: HealthThresholds;
  previous: readonly HealthRecord[];
}

const HALTED = new Set(['paused', 'draining']);

/** Each condition now: its start and threshold, or undefined when it does not hold. */
function conditions(
  snap: QueueSnapshot,
  t: HealthThresholds,
): Record<HealthCondition, { since: number; thresholdMinutes: number } | undefined> {
  const halted = HALTED.has(snap.state);
  // A paused queue is expected not to move; the paused reminder speaks for it instead.
  const waiting = snap.prs.some((p) => p.state !== 'testing');
  return {
    stuck: !halted && waiting ? { since: snap.progressAt, thresholdMinutes: t.stuckMinutes } : undefined,
    paused:
      halted && snap.haltedSince !== undefined
        ? { since: snap.haltedSince, thresholdMinutes: t.pausedReminderHours * 60 }
        : undefined,
  };
}

export function evaluateHealth(input: HealthInput): { records: HealthRecord[]; events: WatchEvent[] } {
  const records: HealthRecord[] = [];
  const events: WatchEvent[] = [];
  const now = input.now;
  const current = conditions(input.snapshot, input.thresholds);
  for (const condition of ['stuck', 'paused'] as const) {
    const prev = input.previous.find((r) => r.condition === condition);
    const c = current[condition];
    const active = c !== undefined && now - c.since >= c.thresholdMinutes * 60_000;
    // The id names the episode by what the stored record says (a re-alert after a recovery with the same
    // start gets a new id), so re-evaluating the same records writes the same event.
    const emit = (phase: 'alert' | 'recovered', since: number, thresholdMinutes: number, episode: number) =>
      events.push({
        id: eventId(
          { workspaceId: input.workspaceId, queueKey: input.queueKey, seq: 0 },
          'health',
          `${input.watchId}|${condition}|${since}|${phase}|${episode}`,
        ),
        workspaceId: input.workspaceId,
        queueKey: input.queueKey,
        target: input.target,
        seq: 0,
        at: now,
        kind: 'health',
        watchId: input.watchId,
        condition,
        phase,
        since,
        thresholdMinutes,
        waitingPrs: input.snapshot.prs.filter((p) => p.state !== 'testing').length,
        state: input.snapshot.state,
        ...(phase === 'recovered' && condition === 'paused' && input.previousState !== undefined
          ? { wasState: input.previousState }
          : {}),
      });
    const open = prev && prev.alertedAt !== undefined && prev.recoveredAt === undefined;
    if (active && c) {
      if (open && prev.since === c.since) {
        records.push(prev);
        continue;
      }
      // A new episode (or the previous one's start moved on): its own alert, after closing the old one.
      if (open && prev) emit('recovered', prev.since, c.thresholdMinutes, prev.alertedAt ?? 0);
      emit('alert', c.since, c.thresholdMinutes, open ? now : (prev?.recoveredAt ?? 0));
      records.push({ condition, since: c.since, alertedAt: now });
    } else if (open && prev) {
      const threshold =
        condition === 'stuck' ? input.thresholds.stuckMinutes : input.thresholds.pausedReminderHours * 60;
      emit('recovered', prev.since, threshold, prev.alertedAt ?? 0);
      records.push({ ...prev, recoveredAt: now });
    } else if (prev) records.push(prev);
  }
  return { records, events };
}
