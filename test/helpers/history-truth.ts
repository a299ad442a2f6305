/**
 * The ground truth of a queue's figures, computed naively from the transitions the fake Trunk seeded
 * (dev/fakes/trunk/history.ts): walk each PR's transitions, split them into attempts at each conclusion,
 * and take nearest-rank percentiles of the merged attempts' times. Independent of src/history/stats.ts.
 */
import type { SeededTransition } from '../../dev/fakes/trunk/index.ts';

export interface TruthFigures {
  merged: number;
  kicked: number;
  cancelled: number;
  p50Ms: number | undefined;
  p90Ms: number | undefined;
  testingP50Ms: number | undefined;
  /** Per reader's day (YYYY-MM-DD): merged, kicked, p50/p90 time in queue. */
  days: Map<string, { merged: number; kicked: number; p50Ms?: number; p90Ms?: number }>;
  topChecks: Array<[string, number]>;
}

export function nearestRankTruth(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1];
}

export function localDay(ms: number, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(ms));
}

export function truthOf(
  transitions: readonly SeededTransition[],
  from: number,
  to: number,
  tz: string,
): TruthFigures {
  const byPr = new Map<number, SeededTransition[]>();
  for (const t of transitions) byPr.set(t.prNumber, [...(byPr.get(t.prNumber) ?? []), t]);
  const inQueue: number[] = [];
  const testing: number[] = [];
  const days: TruthFigures['days'] = new Map();
  const perDay = new Map<string, number[]>();
  const checks = new Map<string, number>();
  const day = (at: number) => {
    const d = localDay(at, tz);
    let v = days.get(d);
    if (!v) {
      v = { merged: 0, kicked: 0 };
      days.set(d, v);
    }
    return v;
  };
  let merged = 0;
  let kicked = 0;
  let cancelled = 0;
  for (const list of byPr.values()) {
    list.sort((a, b) => a.at - b.at);
    let entered: number | undefined;
    let tested: number | undefined;
    for (const t of list) {
      const inside = t.at >= from && t.at < to;
      if (t.state === 'submitted') {
        if (entered === undefined) entered = t.at;
      } else if (t.state === 'testing') tested = t.at;
      else {
        if (inside && t.state === 'merged') {
          merged++;
          day(t.at).merged++;
          if (entered !== undefined) {
            inQueue.push(t.at - entered);
            const d = localDay(t.at, tz);
            perDay.set(d, [...(perDay.get(d) ?? []), t.at - entered]);
            if (tested !== undefined) testing.push(t.at - tested);
          }
        }
        if (inside && t.state === 'failed') {
          kicked++;
          day(t.at).kicked++;
          for (const c of new Set(t.failingChecks ?? [])) checks.set(c, (checks.get(c) ?? 0) + 1);
        }
        if (inside && t.state === 'cancelled') cancelled++;
        entered = undefined;
        tested = undefined;
      }
    }
  }
  for (const [d, values] of perDay) {
    const target = days.get(d);
    if (!target) continue;
    const p50 = nearestRankTruth(values, 50);
    const p90 = nearestRankTruth(values, 90);
    if (p50 !== undefined) target.p50Ms = p50;
    if (p90 !== undefined) target.p90Ms = p90;
  }
  return {
    merged,
    kicked,
    cancelled,
    p50Ms: nearestRankTruth(inQueue, 50),
    p90Ms: nearestRankTruth(inQueue, 90),
    testingP50Ms: nearestRankTruth(testing, 50),
    days,
    topChecks: [...checks].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5),
  };
}
