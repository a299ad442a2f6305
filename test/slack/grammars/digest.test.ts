/** Parsing `/mergequeue digest …`: every form, and never a throw whatever is typed. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseMention, parseDigestCommand } from '../../../src/slack/grammars/digest.ts';

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('parseDigestCommand', () => {
  it('reads add with any subset of its options, in the documented order', () => {
    expect(parseDigestCommand(words('add failing'))).toEqual({
      ok: true,
      command: { op: 'add', kind: 'failing' },
    });
    expect(parseDigestCommand(words('add Quarantined gitlab.com/acme/web 9:30 europe/paris DAILY'))).toEqual({
      ok: true,
      command: {
        op: 'add',
        kind: 'quarantined',
        repo: { host: 'gitlab.com', owner: 'acme', name: 'web' },
        minuteOfDay: 570,
        tz: 'Europe/Paris',
        days: 'daily',
      },
    });
    expect(parseDigestCommand(words('add failing America/New_York weekdays'))).toMatchObject({
      ok: true,
      command: { tz: 'America/New_York', days: 'weekdays' },
    });
    expect(parseDigestCommand(words('add failing acme/web UTC'))).toMatchObject({
      ok: true,
      command: { tz: 'UTC' },
    });
  });

  it('reads a health digest of a queue, with its branch and `weekly`; refuses what only test digests take', () => {
    expect(parseDigestCommand(words('add health acme/web:release 08:30 Europe/Paris weekly'))).toEqual({
      ok: true,
      command: {
        op: 'add',
        kind: 'health',
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        branch: 'release',
        minuteOfDay: 510,
        tz: 'Europe/Paris',
        days: 'weekly',
      },
    });
    expect(parseDigestCommand(words('add health'))).toEqual({
      ok: true,
      command: { op: 'add', kind: 'health' },
    });
    const weekly = parseDigestCommand(words('add failing acme/web weekly'));
    expect(weekly.ok).toBe(false);
    if (!weekly.ok) expect(weekly.error).toContain('`weekly` is for health digests');
    const owner = parseDigestCommand(words('add health owner @acme/payments'));
    expect(owner.ok).toBe(false);
    if (!owner.ok) expect(owner.error).toContain('leave out `owner`');
    expect(parseDigestCommand(words('set d7k2m9 days weekly'))).toEqual({
      ok: true,
      command: { op: 'set', id: 'd7k2m9', option: 'days', value: 'weekly' },
    });
  });

  it('reads a team digest’s owner wherever it is given, as a code owner or a bare team name', () => {
    expect(parseDigestCommand(words('add failing owner @acme/payments acme/web 09:00'))).toEqual({
      ok: true,
      command: {
        op: 'add',
        kind: 'failing',
        owner: '@acme/payments',
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        minuteOfDay: 540,
      },
    });
    expect(parseDigestCommand(words('add quarantined acme/web OWNER payments'))).toMatchObject({
      ok: true,
      command: { owner: 'payments' },
    });
    expect(parseDigestCommand(words('add failing owner alice@example.com'))).toMatchObject({
      ok: true,
      command: { owner: 'alice@example.com' },
    });
    expect(parseDigestCommand(words('add failing owner <!subteam^S0PAY|@payments>'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a Slack mention/),
    });
  });

  it('says what is wrong and what to type instead', () => {
    const cases: Array<[string, RegExp]> = [
      ['add failing acme/web:main', /not a repository.*without a branch/],
      ['add failing acme/web 7pm', /not a time of day.*24-hour HH:MM/],
      ['add failing acme/web 09:00 Europe/Atlantis', /not a timezone this app knows/],
      ['add failing daily weekdays', /`daily` or `weekdays` once/],
      ['add failing acme/web other/repo', /I did not understand `other\/repo`/],
      ['set d23456 skip-empty maybe', /skip-empty on`/],
      ['set d23456 colour blue', /You can set `skip-empty on\|off`/],
      ['set d23456 top 20 30', /Only one value/],
      ['run', /Say which digest/],
      ['owners not an owner!', /not a code owner/],
      ['owners @acme/payments', /Say who to mention/],
      ['list everything', /takes nothing after it/],
    ];
    for (const [text, expected] of cases) {
      const r = parseDigestCommand(words(text));
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error, text).toMatch(expected);
    }
  });

  it('reads set, owners, run and remove', () => {
    expect(parseDigestCommand(words('set D23456 top 20'))).toEqual({
      ok: true,
      command: { op: 'set', id: 'd23456', option: 'top', value: 20 },
    });
    expect(parseDigestCommand(words('set d23456 tz asia/tokyo'))).toMatchObject({
      command: { option: 'tz', value: 'Asia/Tokyo' },
    });
    expect(
      parseDigestCommand(words('owners @Acme/Payments <@U123ABC|bob> <!subteam^S0PAY|@payments> <@U123ABC>')),
    ).toEqual({
      ok: true,
      command: { op: 'owners', owner: '@acme/payments', mentions: ['<@U123ABC>', '<!subteam^S0PAY>'] },
    });
    expect(parseDigestCommand(words('owners alice@example.com none'))).toEqual({
      ok: true,
      command: { op: 'owners', owner: 'alice@example.com', mentions: [] },
    });
    expect(parseDigestCommand(words('rm d23456'))).toEqual({
      ok: true,
      command: { op: 'remove', id: 'd23456' },
    });
    expect(parseDigestCommand([])).toEqual({ ok: true, command: { op: 'help' } });
    expect(normaliseMention('<#C123|general>')).toBeUndefined();
  });

  it('never throws, and every refusal has a message', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string(),
            fc.constantFrom('add', 'set', 'owners', 'failing', 'd23456', 'top', '09:00', 'a/b'),
          ),
          { maxLength: 8 },
        ),
        (args) => {
          const r = parseDigestCommand(args);
          if (!r.ok) expect(r.error.length).toBeGreaterThan(10);
        },
      ),
      { numRuns: 500 },
    );
  });
});
