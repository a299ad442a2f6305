import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, localParts, localToUtc, parseLocalTime } from '../../src/core/local-time.ts';
import { latestOccurrence, nextOccurrence } from '../../src/digest/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('occurrences in a timezone', () => {
  it('09:00 New York is 13:00 UTC in summer and 14:00 UTC in winter, once on each side of the change', () => {
    const spec = { minuteOfDay: 9 * 60, tz: 'America/New_York', days: 'daily' as const };
    // DST ended on Sunday 2026-11-01 at 02:00 local.
    const occurrences: string[] = [];
    let t = at('2026-10-30T00:00:00Z');
    for (let i = 0; i < 4; i++) {
      t = nextOccurrence(spec, t);
      occurrences.push(iso(t));
    }
    expect(occurrences).toEqual([
      '2026-10-30T13:00:00.000Z',
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('weekly falls on Mondays only, at local time across the end of summer time', () => {
    const spec = { minuteOfDay: 9 * 60, tz: 'Europe/Paris', days: 'weekly' as const };
    const occurrences: string[] = [];
    let t = at('2026-10-20T00:00:00Z');
    for (let i = 0; i < 3; i++) {
      t = nextOccurrence(spec, t);
      occurrences.push(iso(t));
    }
    // Summer time in Paris ended on Sunday 2026-10-25.
    expect(occurrences).toEqual([
      '2026-10-26T08:00:00.000Z',
      '2026-11-02T08:00:00.000Z',
      '2026-11-09T08:00:00.000Z',
    ]);
    expect(iso(latestOccurrence(spec, at('2026-11-08T12:00:00Z')))).toBe('2026-11-02T08:00:00.000Z');
  });

  it('spring forward in Europe/Paris keeps 09:00 local', () => {
    const spec = { minuteOfDay: 9 * 60, tz: 'Europe/Paris', days: 'daily' as const };
    expect(iso(nextOccurrence(spec, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T07:00:00.000Z');
    expect(iso(latestOccurrence(spec, at('2026-03-29T06:59:59Z')))).toBe('2026-03-28T08:00:00.000Z');
  });

  it('a time inside the spring-forward gap posts just after it; a repeated time posts at its first instance', () => {
    // 2026-03-08 02:30 does not exist in New York; 2026-11-01 01:30 happens twice.
    expect(iso(localToUtc('America/New_York', 2026, 3, 8, 150))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(localToUtc('America/New_York', 2026, 11, 1, 90))).toBe('2026-11-01T05:30:00.000Z');
    const spec = { minuteOfDay: 90, tz: 'America/New_York', days: 'daily' as const };
    const first = nextOccurrence(spec, at('2026-11-01T00:00:00Z'));
    expect(iso(first)).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(nextOccurrence(spec, first))).toBe('2026-11-02T06:30:00.000Z');
  });

  it('weekdays skip Saturday and Sunday in the local calendar, not the UTC one', () => {
    // 09:00 in Tokyo on Monday is Sunday 00:00 UTC.
    const spec = { minuteOfDay: 9 * 60, tz: 'Asia/Tokyo', days: 'weekdays' as const };
    expect(iso(nextOccurrence(spec, at('2026-11-20T00:00:00Z')))).toBe('2026-11-23T00:00:00.000Z');
    expect(iso(latestOccurrence(spec, at('2026-11-22T23:59:00Z')))).toBe('2026-11-20T00:00:00.000Z');
  });

  it('property: every occurrence is at HH:MM local on an allowed day, and next/latest agree', () => {
    const zones = [
      'Europe/Paris',
      'America/New_York',
      'Australia/Sydney',
      'Asia/Kolkata',
      'UTC',
      'America/Santiago',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }),
        fc.constantFrom(...zones),
        fc.integer({ min: 4 * 60, max: 1439 }), // outside every zone's DST gap
        fc.constantFrom('daily' as const, 'weekdays' as const),
        (now, tz, minuteOfDay, days) => {
          const spec = { minuteOfDay, tz, days };
          const next = nextOccurrence(spec, now);
          const latest = latestOccurrence(spec, now);
          expect(next).toBeGreaterThan(now);
          expect(latest).toBeLessThanOrEqual(now);
          expect(latestOccurrence(spec, next)).toBe(next);
          expect(nextOccurrence(spec, latest)).toBe(next);
          for (const t of [next, latest]) {
            const p = localParts(tz, t);
            expect(p.hour * 60 + p.minute).toBe(minuteOfDay);
            const weekday = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
            if (days === 'weekdays') expect([0, 6]).not.toContain(weekday);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('parses times and timezones strictly', () => {
    expect(parseLocalTime('09:00')).toBe(540);
    expect(parseLocalTime('9:05')).toBe(545);
    expect(parseLocalTime('23:59')).toBe(1439);
    for (const bad of ['24:00', '12:60', '9', '09:5', 'noon']) expect(parseLocalTime(bad)).toBeUndefined();
    expect(canonicalTimeZone('Europe/Paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeUndefined();
    expect(canonicalTimeZone('acme/web')).toBeUndefined();
  });
});
