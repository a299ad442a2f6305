/**
 * Local wall-clock time in an IANA zone, with Intl offsets: the maths digests and freeze windows share.
 * Pure functions of (zone, instant), so tests drive them with any clock and replicas agree on instants.
 * DST rules: a local time in a spring-forward gap maps to the same wall-clock distance after the gap; a
 * local time that happens twice (fall back) maps to its first occurrence.
 */

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's canonical name, or undefined when Intl does not know it. */
export function canonicalTimeZone(tz: string): string | undefined {
  if (!tz || tz.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(tz)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function localParts(tz: string, ms: number): LocalParts {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out['year'] ?? 1970,
    month: out['month'] ?? 1,
    day: out['day'] ?? 1,
    hour: out['hour'] ?? 0,
    minute: out['minute'] ?? 0,
    second: out['second'] ?? 0,
  };
}

/** Offset of local time from UTC at the instant ms (local = utc + offset). */
export function offsetAt(tz: string, ms: number): number {
  const p = localParts(tz, ms);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(ms / 1000) * 1000;
}

/** The UTC instant of a local wall-clock time (see the DST rules above). */
export function localToUtc(tz: string, y: number, m: number, d: number, minuteOfDay: number): number {
  const wall = Date.UTC(y, m - 1, d, Math.floor(minuteOfDay / 60), minuteOfDay % 60);
  // Offsets can only be one of the two on either side of a transition near this wall time.
  const before = offsetAt(tz, wall - 14 * 3_600_000);
  const after = offsetAt(tz, wall + 14 * 3_600_000);
  const valid = [before, after].map((o) => wall - o).filter((t) => wall - offsetAt(tz, t) === t);
  if (valid.length > 0) return Math.min(...valid);
  // In a spring-forward gap: keep the offset from before the change, which lands after the gap.
  return wall - before;
}

/** The calendar date `days` after y-m-d, with its weekday (0 = Sunday). */
export function shiftDate(y: number, m: number, d: number, days: number) {
  const t = new Date(Date.UTC(y, m - 1, d) + days * DAY_MS);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), weekday: t.getUTCDay() };
}

/** "HH:MM" (or "H:MM") → minutes after midnight, or undefined. */
export function parseLocalTime(text: string): number | undefined {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 60 + Number(m[2]);
}

export function formatLocalTime(minuteOfDay: number): string {
  const h = Math.floor(minuteOfDay / 60);
  const m = minuteOfDay % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}
