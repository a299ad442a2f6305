/**
 * Slow queues (DESIGN "Queue memory", topic `health`): a queue is slow when the median time in queue of
 * the PRs merged in the last 6 hours (at least 3 of them) is over twice its median of the 14 days before
 * and over 30 minutes; it stops being slow when that median is back under 1.5 times the 14 days'.
 *
 * Entering and leaving are each said once, across replicas: a transition is a conditional UPDATE of the
 * queue's row (migration 020) from the state and episode this replica read, and the event is written in
 * the same transaction, keyed by the new episode. A replica that read an older state moves nothing and
 * writes nothing; the same episode's event written twice is one row (ON CONFLICT DO NOTHING). Nothing here
 * is a timer: whoever evaluates first after a merge, or on the periodic pass, decides (slow-state.ts).
 */

export const RECENT_MS = 6 * 3_600_000;
export const BASELINE_MS = 14 * 24 * 3_600_000;
export const MIN_RECENT = 3;
export const ENTER_FACTOR = 2;
export const LEAVE_FACTOR = 1.5;
export const FLOOR_MS = 30 * 60_000;

/** A merged PR whose whole stay is known (history's `mergedStays`). */
export interface StayInQueue {
  prNumber: number;
  enteredAt: number;
  mergedAt: number;
}

/** Merged PRs of one queue whose merge fell in [from, to): the queue history's read, handed in. */
export type MergedStays = (
  workspaceId: string,
  queueKey: string,
  from: number,
  to: number,
) => Promise<readonly StayInQueue[]>;

/** The figures a slow alert states: the last 6 h beside the 14 days before them. */
export interface SlowFigures {
  recentMedianMs: number | undefined;
  recentCount: number;
  baselineMedianMs: number | undefined;
  baselineCount: number;
  /** The evaluation's instant: the recent window is [at − 6 h, at). */
  at: number;
}

/** Nearest-rank percentile (p in 0..100) of values; undefined for none. */
function nearestRank(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

const stayMs = (s: StayInQueue) => s.mergedAt - s.enteredAt;

export function slowFigures(
  recent: readonly StayInQueue[],
  baseline: readonly StayInQueue[],
  at: number,
): SlowFigures {
  return {
    recentMedianMs: nearestRank(recent.map(stayMs), 50),
    recentCount: recent.length,
    baselineMedianMs: nearestRank(baseline.map(stayMs), 50),
    baselineCount: baseline.length,
    at,
  };
}

/**
 * Whether the queue is slow after these figures, given whether it was. Too few merges in the last 6 h to
 * judge (fewer than 3) leaves the state as it was, and so does a queue without a 14 days' median.
 */
export function judgeSlow(wasSlow: boolean, f: SlowFigures): boolean {
  if (f.recentCount < MIN_RECENT || f.recentMedianMs === undefined || f.baselineMedianMs === undefined)
    return wasSlow;
  if (!wasSlow) return f.recentMedianMs > ENTER_FACTOR * f.baselineMedianMs && f.recentMedianMs > FLOOR_MS;
  return !(f.recentMedianMs < LEAVE_FACTOR * f.baselineMedianMs);
}
