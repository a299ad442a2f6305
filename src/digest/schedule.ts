/**
 * Occurrence math: when does a "09:00 Europe/Paris on weekdays" digest fall, as UTC instants.
 *
 * Done with Intl offsets rather than node-cron's own timezone support because the scheduler only asks
 * "which occurrence is the latest one at or before now?" — a pure function of (spec, now) that tests can
 * drive with any clock, that stays correct across daylight-saving changes and after missed ticks or
 * downtime, and that lets every replica agree on the exact instant used as the claim key.
 *
 * DST rules: a local time that does not exist (spring forward, e.g. 02:30) is posted at the same
 * wall-clock distance after the gap (03:30); a local time that happens twice (fall back, 01:30) is posted
 * at its first occurrence only. Either way each local date has exactly one occurrence.
 */

import { localParts, localToUtc, shiftDate } from '../core/local-time.ts';

/** `weekly`: Mondays (health digests: the last 7 days). */
export type DaysRule = 'daily' | 'weekdays' | 'weekly';

export interface ScheduleSpec {
  /** Minutes after local midnight, 0..1439. */
  minuteOfDay: number;
  /** IANA zone, e.g. Europe/Paris. */
  tz: string;
  days: DaysRule;
}

function allowed(days: DaysRule, weekday: number): boolean {
  if (days === 'weekly') return weekday === 1;
  return days === 'daily' || (weekday >= 1 && weekday <= 5);
}

/** The first occurrence strictly after afterMs. */
export function nextOccurrence(spec: ScheduleSpec, afterMs: number): number {
  const today = localParts(spec.tz, afterMs);
  for (let k = -1; k <= 9; k++) {
    const date = shiftDate(today.year, today.month, today.day, k);
    if (!allowed(spec.days, date.weekday)) continue;
    const t = localToUtc(spec.tz, date.y, date.m, date.d, spec.minuteOfDay);
    if (t > afterMs) return t;
  }
  throw new Error('no occurrence within 10 days');
}

/** The latest occurrence at or before atMs. */
export function latestOccurrence(spec: ScheduleSpec, atMs: number): number {
  const today = localParts(spec.tz, atMs);
  for (let k = 1; k >= -9; k--) {
    const date = shiftDate(today.year, today.month, today.day, k);
    if (!allowed(spec.days, date.weekday)) continue;
    const t = localToUtc(spec.tz, date.y, date.m, date.d, spec.minuteOfDay);
    if (t <= atMs) return t;
  }
  throw new Error('no occurrence within 10 days');
}
