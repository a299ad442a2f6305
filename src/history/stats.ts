/**
 * How a queue did over a window (DESIGN "Queue memory", Stats): plain figures computed by SQL aggregation
 * over `queue_history`, `queue_state_history` and `eta_estimates`, never by loading the window's rows: the
 * per-PR reads are the merged PRs' stays (one row each) and the failed rows' check names. Call it twice
 * for the window before (`previousWindow`).
 *
 * Definitions: percentiles are nearest-rank over the merged PRs whose whole stay the app knows (their
 * attempt's entry is in the history); time in queue runs from the attempt's first `submitted` to `merged`,
 * time testing from its last `testing` to `merged`; kicks are `failed` transitions and the kick rate is
 * kicks ÷ (merged + kicks); days are the reader's (`tz`), and a PR counts on the day it merged or was kicked.
 */
import { localParts, localToUtc, shiftDate } from '../core/local-time.ts';
import type { DbExecutor, SqlValue } from '../store/types.ts';
import { mergedStays, parseChecks, queueStatesBetween } from './repository.ts';
import { AUTOPILOT_SUBMITTER, type KickClass } from './types.ts';

export const DAY_MS = 86_400_000;

export interface StatsQuery {
  workspaceId: string;
  queueKey: string;
  /** The window [from, to), epoch ms. */
  from: number;
  to: number;
  /** The reader's IANA timezone (their Slack profile's), for the days. */
  tz: string;
  /** Days per entry of `days` (a chart holds at most 20 points: 30 days are drawn two a point); default 1. */
  daysPerBucket?: number;
}

export interface DayFigures {
  /** The reader's date, YYYY-MM-DD (the first, when an entry holds several days). */
  day: string;
  /** The last date it holds, when it holds several. */
  lastDay?: string;
  /** When that day (or the window, for its first) starts. */
  start: number;
  merged: number;
  kicked: number;
  /** Time in queue of the PRs merged that day whose stay is known. */
  p50Ms?: number;
  p90Ms?: number;
}

export interface QueueStats {
  workspaceId: string;
  queueKey: string;
  from: number;
  to: number;
  tz: string;
  merged: number;
  /** `failed` transitions: the queue kicked the PR. */
  kicked: number;
  cancelled: number;
  /** kicked ÷ (merged + kicked); undefined when neither happened. */
  kickRate?: number;
  timeInQueue: { p50Ms?: number; p90Ms?: number; known: number };
  testing: { p50Ms?: number; known: number };
  /** Milliseconds of the window the queue was paused or draining (as far as the app knows). */
  pausedOrDrainingMs: number;
  kicksByClass: Array<{ kickClass: KickClass; count: number }>;
  topFailingChecks: Array<{ check: string; count: number }>;
  autopilot: { resubmitted: number; merged: number };
  eta: { count: number; p50Ms?: number; p90Ms?: number };
  days: DayFigures[];
}

/** Nearest-rank percentile of ascending-sorted values (undefined for none). */
export function nearestRank(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** The window of the last `days` of the reader's days: from their midnight `days − 1` days ago to `now`. */
export function statsWindow(now: number, days: number, tz: string): { from: number; to: number } {
  const p = localParts(tz, now);
  const first = shiftDate(p.year, p.month, p.day, -(days - 1));
  return { from: localToUtc(tz, first.y, first.m, first.d, 0), to: now };
}

/** The window of the same length just before. */
export function previousWindow(w: { from: number; to: number }): { from: number; to: number } {
  return { from: w.from - (w.to - w.from), to: w.from };
}

/** The starts of the reader's days that meet [from, to): the first is `from` itself. */
export function dayStarts(from: number, to: number, tz: string): Array<{ day: string; start: number }> {
  const out: Array<{ day: string; start: number }> = [];
  const p = localParts(tz, from);
  let d = { y: p.year, m: p.month, d: p.day };
  let start = from;
  while (start < to && out.length < 400) {
    out.push({ day: `${d.y}-${pad(d.m)}-${pad(d.d)}`, start });
    const next = shiftDate(d.y, d.m, d.d, 1);
    d = { y: next.y, m: next.m, d: next.d };
    start = localToUtc(tz, d.y, d.m, d.d, 0);
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

function dayIndex(starts: readonly { start: number }[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid]?.start ?? 0) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const sortedAsc = (xs: number[]) => xs.sort((a, b) => a - b);

export async function computeQueueStats(db: DbExecutor, q: StatsQuery): Promise<QueueStats> {
  const key: SqlValue[] = [q.workspaceId, q.queueKey, q.from, q.to];
  const every = dayStarts(q.from, q.to, q.tz);
  const per = Math.max(1, Math.floor(q.daysPerBucket ?? 1));
  const starts = every.filter((_, i) => i % per === 0);
  const days: DayFigures[] = starts.map((s, i) => {
    const last = every[Math.min(every.length - 1, i * per + per - 1)];
    return {
      ...s,
      ...(per > 1 && last && last.day !== s.day ? { lastDay: last.day } : {}),
      merged: 0,
      kicked: 0,
    };
  });

  // Counts per state and reader's day, aggregated in SQL: the day is a CASE over the day starts.
  const dayCase =
    starts.length <= 1
      ? '0'
      : `CASE ${starts
          .slice(1)
          .map((_, i) => `WHEN occurred_at < $${5 + i} THEN ${i}`)
          .join(' ')} ELSE ${starts.length - 1} END`;
  const counts = await db.query(
    `SELECT state, ${dayCase} AS day, COUNT(*) AS n FROM queue_history
     WHERE workspace_id = $1 AND queue_key = $2 AND occurred_at >= $3 AND occurred_at < $4
       AND state IN ('merged', 'failed', 'cancelled')
     GROUP BY state, day`,
    [...key, ...starts.slice(1).map((s) => s.start)],
  );
  let merged = 0;
  let kicked = 0;
  let cancelled = 0;
  for (const r of counts) {
    const n = Number(r['n']);
    const day = days[Number(r['day'])];
    if (r['state'] === 'merged') {
      merged += n;
      if (day) day.merged += n;
    } else if (r['state'] === 'failed') {
      kicked += n;
      if (day) day.kicked += n;
    } else cancelled += n;
  }

  // Merged PRs whose whole stay is known: one row each.
  const stays = await mergedStays(db, q.workspaceId, q.queueKey, q.from, q.to);
  const inQueue = sortedAsc(stays.map((s) => s.mergedAt - s.enteredAt));
  const testing = sortedAsc(stays.flatMap((s) => (s.testingMs === undefined ? [] : [s.testingMs])));
  const perDay = new Map<number, number[]>();
  for (const s of stays) {
    const i = dayIndex(starts, s.mergedAt);
    perDay.set(i, [...(perDay.get(i) ?? []), s.mergedAt - s.enteredAt]);
  }
  for (const [i, values] of perDay) {
    const day = days[i];
    if (!day) continue;
    const sorted = sortedAsc(values);
    const p50 = nearestRank(sorted, 50);
    const p90 = nearestRank(sorted, 90);
    if (p50 !== undefined) day.p50Ms = p50;
    if (p90 !== undefined) day.p90Ms = p90;
  }

  const byClass = await db.query(
    `SELECT kick_class, COUNT(*) AS n FROM queue_history
     WHERE workspace_id = $1 AND queue_key = $2 AND occurred_at >= $3 AND occurred_at < $4
       AND state IN ('failed', 'cancelled') AND kick_class IS NOT NULL
     GROUP BY kick_class ORDER BY COUNT(*) DESC, kick_class`,
    key,
  );

  const checkCounts = new Map<string, number>();
  const failedChecks = await db.query(
    `SELECT failing_checks FROM queue_history
     WHERE workspace_id = $1 AND queue_key = $2 AND state = 'failed' AND occurred_at >= $3 AND occurred_at < $4
       AND failing_checks IS NOT NULL`,
    key,
  );
  for (const r of failedChecks)
    for (const c of new Set(parseChecks(String(r['failing_checks']))))
      checkCounts.set(c, (checkCounts.get(c) ?? 0) + 1);
  const topFailingChecks = [...checkCounts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 5)
    .map(([check, count]) => ({ check, count }));

  // Autopilot: its submissions in the window, and those whose attempt ended merged.
  const autopilot = await db.query(
    `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN (SELECT c.state FROM queue_history c
         WHERE c.workspace_id = s.workspace_id AND c.queue_key = s.queue_key AND c.pr_number = s.pr_number
           AND c.state IN ('merged', 'failed', 'cancelled') AND c.occurred_at >= s.occurred_at
         ORDER BY c.occurred_at LIMIT 1) = 'merged' THEN 1 ELSE 0 END), 0) AS merged
     FROM queue_history s
     WHERE s.workspace_id = $1 AND s.queue_key = $2 AND s.state = 'submitted' AND s.submitted_by = $5
       AND s.occurred_at >= $3 AND s.occurred_at < $4`,
    [...key, AUTOPILOT_SUBMITTER],
  );

  const etaRows = await db.query(
    `SELECT error_ms FROM eta_estimates
     WHERE workspace_id = $1 AND queue_key = $2 AND merged_at >= $3 AND merged_at < $4 AND error_ms IS NOT NULL`,
    key,
  );
  const etaErrors = sortedAsc(etaRows.map((r) => Math.abs(Number(r['error_ms']))));

  const states = await queueStatesBetween(db, q.workspaceId, q.queueKey, q.from, q.to);
  let pausedOrDrainingMs = 0;
  states.forEach((s, i) => {
    if (s.state === 'running') return;
    const start = Math.max(s.occurredAt, q.from);
    const end = Math.min(states[i + 1]?.occurredAt ?? q.to, q.to);
    if (end > start) pausedOrDrainingMs += end - start;
  });

  const stats: QueueStats = {
    workspaceId: q.workspaceId,
    queueKey: q.queueKey,
    from: q.from,
    to: q.to,
    tz: q.tz,
    merged,
    kicked,
    cancelled,
    timeInQueue: withDefined(
      { known: inQueue.length },
      { p50Ms: nearestRank(inQueue, 50), p90Ms: nearestRank(inQueue, 90) },
    ),
    testing: withDefined({ known: testing.length }, { p50Ms: nearestRank(testing, 50) }),
    pausedOrDrainingMs,
    kicksByClass: byClass.map((r) => ({
      kickClass: String(r['kick_class']) as KickClass,
      count: Number(r['n']),
    })),
    topFailingChecks,
    autopilot: {
      resubmitted: Number(autopilot[0]?.['n'] ?? 0),
      merged: Number(autopilot[0]?.['merged'] ?? 0),
    },
    eta: withDefined(
      { count: etaErrors.length },
      { p50Ms: nearestRank(etaErrors, 50), p90Ms: nearestRank(etaErrors, 90) },
    ),
    days,
  };
  if (merged + kicked > 0) stats.kickRate = kicked / (merged + kicked);
  return stats;
}

function withDefined<T extends object, U extends Record<string, number | undefined>>(
  base: T,
  extra: U,
): T & { [K in keyof U]?: number } {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) out[k] = v;
  return out as T & { [K in keyof U]?: number };
}
