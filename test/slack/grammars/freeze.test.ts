import { describe, expect, it } from 'vitest';
import { FREEZE_ADD_USAGE, parseFreezeCommand } from '../../../src/slack/grammars/freeze.ts';

// Monday 2026-06-01 16:00 UTC = 18:00 in Paris.
const now = Date.parse('2026-06-01T16:00:00Z');
const parse = (text: string, tz = 'Europe/Paris') => parseFreezeCommand(text, { tz, now });
const add = (text: string, tz?: string) => {
  const r = parse(text, tz);
  if (!r.ok || r.value.kind !== 'add') throw new Error(JSON.stringify(r));
  return r.value.add;
};
const error = (text: string, tz?: string) => {
  const r = parse(text, tz);
  if (r.ok) throw new Error(`expected an error for "${text}", got ${JSON.stringify(r.value)}`);
  return r.error;
};

describe('freeze add', () => {
  it('every part given', () => {
    expect(
      add(
        'add gitlab.com/acme/web:release 22:00-06:30 America/New_York weekdays pause Release 4.2 — code freeze',
      ),
    ).toEqual({
      target: { repo: { host: 'gitlab.com', owner: 'acme', name: 'web' }, branch: 'release' },
      startMinute: 22 * 60,
      endMinute: 6 * 60 + 30,
      tz: 'America/New_York',
      rule: { kind: 'repeat', days: 'weekdays' },
      action: 'pause',
      reason: 'Release 4.2 — code freeze',
    });
  });

  it('defaults: no target, the person’s zone, once today while the start is ahead, drain, no reason', () => {
    expect(add('add 19:00-20:00')).toEqual({
      startMinute: 19 * 60,
      endMinute: 20 * 60,
      tz: 'Europe/Paris',
      rule: { kind: 'once', date: '2026-06-01' },
      action: 'drain',
    });
  });

  it('once defaults to tomorrow when the start has passed in that zone (even if it is still ahead in UTC)', () => {
    // 17:00 Paris has passed (it is 18:00 there), though 17:00 UTC is still ahead.
    expect(add('add 17:00-23:00').rule).toEqual({ kind: 'once', date: '2026-06-02' });
    expect(add('add 17:00-23:00 UTC').rule).toEqual({ kind: 'once', date: '2026-06-01' });
    // In Tokyo it is already 01:00 on June 2nd.
    expect(add('add 00:30-02:00 Asia/Tokyo').rule).toEqual({ kind: 'once', date: '2026-06-03' });
  });

  it('a missing or unknown Slack zone falls back to UTC; branch-only targets; once with a date; a bare date', () => {
    expect(add('add :main 10:00-11:00 once 2026-07-14 pause', '').tz).toBe('UTC');
    expect(add('add :main 10:00-11:00 once 2026-07-14 pause', 'Mars/Olympus')).toMatchObject({
      target: { branch: 'main' },
      rule: { kind: 'once', date: '2026-07-14' },
      action: 'pause',
    });
    expect(add('add 10:00-11:00 2026-7-4').rule).toEqual({ kind: 'once', date: '2026-07-04' });
    expect(add('add 9:00-17:30 UTC weekends Hackathon').reason).toBe('Hackathon');
  });

  it.each([
    ['add', /Say when the freeze starts and ends/],
    ['add acme/web', /as `HH:MM-HH:MM` after the target/],
    ['add acme/web/x/y 10:00-11:00', /is not a valid target.*Then give the time range/],
    ['add 10:00 - 11:00', /without spaces/],
    ['add 10:00-', /without spaces/],
    ['add 10-11', /"10" is not a time of day: write 24-hour `HH:MM`/],
    ['add 10:00-24:00', /"24:00" is not a time of day/],
    ['add 10:00-11:00-12:00', /is not a time range/],
    ['add 18:00-18:00', /starts and ends at 18:00: give a different end time.*cross midnight/],
    ['add 10:00-11:00 Europe/Pariss', /"Europe\/Pariss" is not a time zone I know.*Europe\/Paris/],
    ['add 10:00-11:00 once 2026-02-30', /"2026-02-30" is not a date: write `YYYY-MM-DD`/],
    ['add 10:00-11:00 once 2026-05-31', /has already ended: give a date to come, e.g. `once 2026-06-02`/],
    ['add 10:00-11:00 once 31/12', /"31\/12" is not a date: write `YYYY-MM-DD`/],
    ['add 10:00-11:00 once 12-31', /"12-31" is not a date/],
    ['add 10:00-11:00 drain weekdays', /"weekdays" is out of place: the order is/],
    ['add 10:00-11:00 weekdays UTC', /"UTC" is out of place/],
    ['add 10:00-11:00 weekday', /"weekday" is not an option: did you mean `weekdays`\?/],
    ['add 10:00-11:00 paused for release', /did you mean `pause`\?/],
    [`add 10:00-11:00 drain ${'x'.repeat(301)}`, /keep it under 300/],
  ])('"%s" is refused with a message saying what to type', (text, message) => {
    expect(error(text)).toMatch(message);
  });

  it('a word that looks like an option can start the reason once the action is given', () => {
    expect(add('add 10:00-11:00 drain paused deploys').reason).toBe('paused deploys');
    expect(error('add 10:00-11:00 drain weekdays')).toContain(FREEZE_ADD_USAGE);
  });
});

describe('freeze list, remove, skip', () => {
  it('parses', () => {
    expect(parse('list')).toEqual({ ok: true, value: { kind: 'list' } });
    expect(parse('remove F7K2M9')).toEqual({ ok: true, value: { kind: 'remove', id: 'f7k2m9' } });
    expect(parse('skip f7k2m9')).toEqual({ ok: true, value: { kind: 'skip', id: 'f7k2m9' } });
    expect(parse('')).toEqual({ ok: true, value: { kind: 'help' } });
    expect(parse('help')).toEqual({ ok: true, value: { kind: 'help' } });
  });

  it.each([
    ['list all', /`freeze list` takes nothing after it \(got "all"\)/],
    ['remove', /Say which window to remove, e.g. `\/mergequeue freeze remove f7k2m9`.*freeze list/],
    ['skip', /Say which window to skip/],
    ['skip f7k2m9 f7k2m8', /takes one window id/],
    ['remove d7k2m9', /"d7k2m9" is not a freeze window id/],
    ['remove f7k', /is not a freeze window id/],
    ['pause', /`freeze pause` is not a freeze command. Type one of:\n\/mergequeue freeze add/],
  ])('"%s" is refused: %s', (text, message) => {
    expect(error(text)).toMatch(message);
  });
});
