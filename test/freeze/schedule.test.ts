import { describe, expect, it } from 'vitest';
import {
  activeOccurrence,
  activeOrNext,
  nextWindowOccurrence,
  type WindowSpec,
} from '../../src/freeze/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (o: { start: number; end: number } | undefined) =>
  o && { start: new Date(o.start).toISOString(), end: new Date(o.end).toISOString() };
const spec = (s: Partial<WindowSpec> & Pick<WindowSpec, 'startMinute' | 'endMinute'>): WindowSpec => ({
  tz: 'UTC',
  rule: { kind: 'repeat', days: 'daily' },
  ...s,
});
const hm = (h: number, m = 0) => h * 60 + m;

describe('freeze window occurrences', () => {
  it('a daily window is active between its start (inclusive) and end (exclusive) and next the day after', () => {
    const w = spec({ startMinute: hm(10), endMinute: hm(12) });
    expect(activeOccurrence(w, at('2026-06-03T09:59:59Z'))).toBeUndefined();
    expect(iso(activeOccurrence(w, at('2026-06-03T10:00:00Z')))).toEqual({
      start: '2026-06-03T10:00:00.000Z',
      end: '2026-06-03T12:00:00.000Z',
    });
    expect(activeOccurrence(w, at('2026-06-03T12:00:00Z'))).toBeUndefined();
    expect(iso(nextWindowOccurrence(w, at('2026-06-03T10:00:00Z')))?.start).toBe('2026-06-04T10:00:00.000Z');
  });

  it('a window crossing midnight belongs to the date it starts on, and the days rule is read on that date', () => {
    // Weekdays 22:00-06:00 Paris (CEST, +2): Friday night runs into Saturday; Saturday night does not happen.
    const w = spec({
      startMinute: hm(22),
      endMinute: hm(6),
      tz: 'Europe/Paris',
      rule: { kind: 'repeat', days: 'weekdays' },
    });
    expect(iso(activeOccurrence(w, at('2026-06-06T03:00:00Z')))).toEqual({
      start: '2026-06-05T20:00:00.000Z',
      end: '2026-06-06T04:00:00.000Z',
    });
    expect(activeOccurrence(w, at('2026-06-06T21:00:00Z'))).toBeUndefined();
    expect(iso(nextWindowOccurrence(w, at('2026-06-06T12:00:00Z')))?.start).toBe('2026-06-08T20:00:00.000Z');
  });

  it('weekends: Saturday and Sunday only', () => {
    const w = spec({ startMinute: hm(10), endMinute: hm(12), rule: { kind: 'repeat', days: 'weekends' } });
    const starts: string[] = [];
    let t = at('2026-06-04T00:00:00Z'); // a Thursday
    for (let i = 0; i < 4; i++) {
      const o = nextWindowOccurrence(w, t)!;
      starts.push(new Date(o.start).toISOString());
      t = o.start;
    }
    expect(starts).toEqual([
      '2026-06-06T10:00:00.000Z',
      '2026-06-07T10:00:00.000Z',
      '2026-06-13T10:00:00.000Z',
      '2026-06-14T10:00:00.000Z',
    ]);
  });

  it('once: one occurrence on its date, none after it', () => {
    const w = spec({
      startMinute: hm(18),
      endMinute: hm(2),
      tz: 'America/New_York',
      rule: { kind: 'once', date: '2026-12-24' },
    });
    expect(iso(activeOrNext(w, at('2026-06-01T00:00:00Z'))?.occurrence)).toEqual({
      start: '2026-12-24T23:00:00.000Z',
      end: '2026-12-25T07:00:00.000Z',
    });
    expect(activeOrNext(w, at('2026-12-25T06:00:00Z'))?.active).toBe(true);
    expect(activeOrNext(w, at('2026-12-25T07:00:00Z'))).toBeUndefined();
  });

  it('a skipped occurrence neither opens nor counts as next; the one after it does', () => {
    const w = spec({ startMinute: hm(10), endMinute: hm(12), skipStartAt: at('2026-06-04T10:00:00Z') });
    expect(activeOccurrence(w, at('2026-06-04T11:00:00Z'))).toBeUndefined();
    expect(iso(nextWindowOccurrence(w, at('2026-06-03T12:00:00Z')))?.start).toBe('2026-06-05T10:00:00.000Z');
    expect(activeOccurrence(w, at('2026-06-05T11:00:00Z'))).toBeDefined();
  });

  it('spring forward (Europe/Paris, 2026-03-29 02:00→03:00): an end in the gap moves past it; the offsets change', () => {
    const w = spec({ startMinute: hm(1, 30), endMinute: hm(2, 30), tz: 'Europe/Paris' });
    // 01:30 CET = 00:30Z; 02:30 does not exist and is read as 03:30 CEST = 01:30Z.
    expect(iso(activeOccurrence(w, at('2026-03-29T01:00:00Z')))).toEqual({
      start: '2026-03-29T00:30:00.000Z',
      end: '2026-03-29T01:30:00.000Z',
    });
    // The day before and after: one hour long, at +1 then +2.
    expect(iso(nextWindowOccurrence(w, at('2026-03-28T00:00:00Z')))?.start).toBe('2026-03-28T00:30:00.000Z');
    expect(iso(nextWindowOccurrence(w, at('2026-03-29T12:00:00Z')))).toEqual({
      start: '2026-03-29T23:30:00.000Z',
      end: '2026-03-30T00:30:00.000Z',
    });
  });

  it('spring forward: a window lying wholly in the skipped hour does not happen that night', () => {
    const w = spec({ startMinute: hm(2), endMinute: hm(3), tz: 'Europe/Paris' });
    expect(iso(nextWindowOccurrence(w, at('2026-03-28T12:00:00Z')))?.start).toBe('2026-03-30T00:00:00.000Z');
  });

  it('fall back (America/New_York, 2026-11-01 02:00→01:00): a repeated start means its first instance', () => {
    const w = spec({ startMinute: hm(1, 30), endMinute: hm(3), tz: 'America/New_York' });
    // 01:30 EDT (-4) = 05:30Z, 03:00 EST (-5) = 08:00Z: the window lasts 2 h 30 that night.
    expect(iso(activeOccurrence(w, at('2026-11-01T06:10:00Z')))).toEqual({
      start: '2026-11-01T05:30:00.000Z',
      end: '2026-11-01T08:00:00.000Z',
    });
    // The second 01:30 (06:30Z) is inside that same occurrence, not a new one.
    expect(iso(nextWindowOccurrence(w, at('2026-11-01T05:30:00Z')))?.start).toBe('2026-11-02T06:30:00.000Z');
  });

  it('across a whole year in a DST zone, each local date has exactly one occurrence of the local length', () => {
    const w = spec({ startMinute: hm(20), endMinute: hm(7), tz: 'Europe/Paris' });
    let t = at('2026-01-01T00:00:00Z');
    const lengths = new Set<number>();
    for (let i = 0; i < 365; i++) {
      const o = nextWindowOccurrence(w, t)!;
      expect(o.start - t).toBeLessThanOrEqual(25 * 3_600_000);
      lengths.add((o.end - o.start) / 3_600_000);
      t = o.start;
    }
    expect([...lengths].sort()).toEqual([10, 11, 12]);
  });
});
