/**
 * When a freeze window is open, as UTC instants: a pure function of (spec, instant), so every replica
 * computes the same occurrence start (the claim key) and a tick after downtime sees what it missed.
 *
 * An occurrence belongs to the local date its start falls on (the days rule is read on that date); when
 * the end time is not after the start time the window crosses midnight and ends on the next date.
 * Daylight saving follows the digests' rules (digest/schedule.ts localToUtc): a start or end in the
 * spring-forward gap moves to the same wall-clock distance after the gap, a repeated fall-back time means
 * its first instance. An occurrence that the gap reduces to nothing (02:00–03:00 on the night the clocks
 * jump from 02:00 to 03:00) does not happen.
 */
import { localParts, localToUtc, shiftDate } from '../core/local-time.ts';

export type RepeatDays = 'daily' | 'weekdays' | 'weekends';

export type FreezeRule = { kind: 'repeat'; days: RepeatDays } | { kind: 'once'; date: string };

export interface WindowSpec {
  /** Minutes after local midnight, 0..1439. */
  startMinute: number;
  endMinute: number;
  /** IANA zone. */
  tz: string;
  rule: FreezeRule;
  /** Start instant of one occurrence that will not happen (`freeze skip`). */
  skipStartAt?: number;
}

export interface Occurrence {
  /** UTC ms, inclusive. */
  start: number;
  /** UTC ms, exclusive. */
  end: number;
}

/** How far back an open occurrence can have started: a window lasts under 24 h, plus a DST hour. */
const LOOK_BACK_DAYS = 2;
/** A weekly rule always has an occurrence within a week; a few days more cover gaps and skips. */
const LOOK_AHEAD_DAYS = 10;

function allowed(days: RepeatDays, weekday: number): boolean {
  if (days === 'daily') return true;
  const weekend = weekday === 0 || weekday === 6;
  return days === 'weekends' ? weekend : !weekend;
}

/** `YYYY-MM-DD` → its parts, or undefined when it is not a real calendar date. */
export function parseDate(text: string): { y: number; m: number; d: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return undefined;
  return { y, m: mo, d };
}

export function formatDate(p: { y: number; m: number; d: number }): string {
  return `${p.y}-${String(p.m).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** The local date of an instant in a zone, as `YYYY-MM-DD`. */
export function localDate(tz: string, ms: number): string {
  const p = localParts(tz, ms);
  return formatDate({ y: p.year, m: p.month, d: p.day });
}

/** The occurrence that starts on one local date (ignoring the days rule and skips). */
export function occurrenceOn(spec: WindowSpec, y: number, m: number, d: number): Occurrence | undefined {
  const start = localToUtc(spec.tz, y, m, d, spec.startMinute);
  const endDate = spec.endMinute > spec.startMinute ? { y, m, d } : shiftDate(y, m, d, 1);
  const end = localToUtc(spec.tz, endDate.y, endDate.m, endDate.d, spec.endMinute);
  return end > start ? { start, end } : undefined;
}

/** Occurrences starting from LOOK_BACK_DAYS before `at`'s local date to LOOK_AHEAD_DAYS after, in order. */
function occurrencesAround(spec: WindowSpec, at: number): Occurrence[] {
  const out: Occurrence[] = [];
  const push = (o: Occurrence | undefined) => {
    if (o && o.start !== spec.skipStartAt) out.push(o);
  };
  if (spec.rule.kind === 'once') {
    const date = parseDate(spec.rule.date);
    if (date) push(occurrenceOn(spec, date.y, date.m, date.d));
    return out;
  }
  const today = localParts(spec.tz, at);
  for (let k = -LOOK_BACK_DAYS; k <= LOOK_AHEAD_DAYS; k++) {
    const date = shiftDate(today.year, today.month, today.day, k);
    if (allowed(spec.rule.days, date.weekday)) push(occurrenceOn(spec, date.y, date.m, date.d));
  }
  return out;
}

/** The occurrence open at `at` (start <= at < end), if any. */
export function activeOccurrence(spec: WindowSpec, at: number): Occurrence | undefined {
  // Occurrences of one window never overlap (each is under 24 h and starts on a different date), but the
  // latest-starting one wins should a DST hour ever make two touch.
  return occurrencesAround(spec, at)
    .filter((o) => o.start <= at && at < o.end)
    .pop();
}

/** The first occurrence starting strictly after `after`, if any (a `once` window that has passed has none). */
export function nextWindowOccurrence(spec: WindowSpec, after: number): Occurrence | undefined {
  return occurrencesAround(spec, after).find((o) => o.start > after);
}

/** The open occurrence, else the next one. */
export function activeOrNext(
  spec: WindowSpec,
  at: number,
): { occurrence: Occurrence; active: boolean } | undefined {
  const active = activeOccurrence(spec, at);
  if (active) return { occurrence: active, active: true };
  const next = nextWindowOccurrence(spec, at);
  return next ? { occurrence: next, active: false } : undefined;
}
