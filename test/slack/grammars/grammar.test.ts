import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, parseCommand, parsePrincipal } from '../../../src/slack/grammars/grammar.ts';
import { USAGE } from '../../../src/slack/grammars/usage.ts';

const repo = { host: 'github.com', owner: 'acme', name: 'web' };

function okCommand(text: string) {
  const r = parseCommand(text);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${r.error}`);
  return r.command;
}
function usage(text: string) {
  const r = parseCommand(text);
  if (r.ok)
    throw new Error(`expected ${JSON.stringify(text)} to be a usage error, got ${JSON.stringify(r.command)}`);
  return r;
}

describe('parseCommand', () => {
  it('empty text and help', () => {
    expect(okCommand('')).toEqual({ name: 'help' });
    expect(okCommand('   \n ')).toEqual({ name: 'help' });
    expect(okCommand('HELP Pause')).toEqual({ name: 'help', topic: 'pause' });
    expect(usage('help nonsense').error).toContain('no help topic');
  });

  it('status and settings with optional targets', () => {
    expect(okCommand('status')).toEqual({ name: 'status' });
    expect(okCommand('status acme/web')).toEqual({ name: 'status', target: { repo } });
    expect(okCommand('status :release')).toEqual({ name: 'status', target: { branch: 'release' } });
    expect(okCommand('settings gitlab.com/a/b:dev')).toEqual({
      name: 'settings',
      target: { repo: { host: 'gitlab.com', owner: 'a', name: 'b' }, branch: 'dev' },
    });
    const bad = usage('status acme');
    expect(bad.error).toContain('not a valid target');
    expect(bad.usage).toBe(USAGE.status);
    expect(usage('status a/b c/d').error).toContain('at most one target');
  });

  it('pause/drain/resume: a first word is a target only if it parses as one', () => {
    expect(okCommand('pause')).toEqual({ name: 'pause' });
    expect(okCommand('pause acme/web:main main is red')).toEqual({
      name: 'pause',
      target: { repo, branch: 'main' },
      reason: 'main is red',
    });
    expect(okCommand('drain release freeze')).toEqual({ name: 'drain', reason: 'release freeze' });
    expect(okCommand('resume :main')).toEqual({ name: 'resume', target: { branch: 'main' } });
    // A first word with a slash that does not parse as a target stays in the reason.
    expect(okCommand('pause build/test/deploy is down again')).toEqual({
      name: 'pause',
      reason: 'build/test/deploy is down again',
    });
    expect(okCommand('pause a/b/c/d broken')).toEqual({ name: 'pause', reason: 'a/b/c/d broken' });
    // A lone word meant as a target that does not parse is an error, not a reason.
    expect(usage('pause acme/').usage).toBe(USAGE.pause);
    expect(usage('pause :bad..branch oops').error).toContain('not a valid');
    expect(usage(`pause ${'r'.repeat(600)}`).error).toContain('too long');
    // Slack escapes &, < and > and sends mentions in <…> form: the reason keeps the words people typed.
    expect(
      okCommand('pause deploy &lt;v2&gt; &amp; <@U1|alice> says <!channel> see <https://x.io/a|the log>'),
    ).toEqual({
      name: 'pause',
      reason: 'deploy <v2> & @alice says @channel see the log',
    });
  });

  it('concurrency accepts 1..4294967295 only', () => {
    expect(okCommand('concurrency 1')).toEqual({ name: 'concurrency', value: 1 });
    expect(okCommand('concurrency 4294967295 acme/web')).toEqual({
      name: 'concurrency',
      value: 4294967295,
      target: { repo },
    });
    expect(okCommand('concurrency 007')).toEqual({ name: 'concurrency', value: 7 });
    for (const bad of [
      '0',
      '4294967296',
      '99999999999999999999',
      '-1',
      '1.5',
      'two',
      '1e3',
      '0x10',
      'Infinity',
      'NaN',
    ]) {
      const r = usage(`concurrency ${bad}`);
      expect(r.usage).toBe(USAGE.concurrency);
    }
    expect(usage('concurrency 0').error).toContain('between 1 and 4294967295');
    expect(usage('concurrency').error).toContain('how many');
    expect(usage('concurrency 3 acme').error).toContain('not a valid target');
    expect(usage('concurrency 3 a/b extra').error).toContain('Too many');
  });

  it('pr and run', () => {
    expect(okCommand('pr 123')).toEqual({ name: 'pr', number: 123 });
    expect(okCommand('pr #123 acme/web:main')).toEqual({
      name: 'pr',
      number: 123,
      target: { repo, branch: 'main' },
    });
    for (const bad of ['pr', 'pr abc', 'pr #', 'pr 0', 'pr -3', 'pr 12345678901', 'pr 1.0'])
      expect(usage(bad).usage).toBe(USAGE.pr);
    expect(okCommand('run 5d1c7e0a-1b2c-4d5e-8f90-123456789abc')).toEqual({
      name: 'run',
      testRunId: '5d1c7e0a-1b2c-4d5e-8f90-123456789abc',
    });
    expect(usage('run').usage).toBe(USAGE.run);
    expect(usage('run <script>').error).toContain('not a test run id');
  });

  it('flaky and quarantined take a repository, not a branch', () => {
    expect(okCommand('flaky')).toEqual({ name: 'flaky' });
    expect(okCommand('quarantined acme/web')).toEqual({ name: 'quarantined', repo });
    expect(usage('flaky :main').error).toContain('repository');
    expect(usage('flaky acme/web:main').error).toContain('leave out');
  });

  it('connect, digest and unknown commands', () => {
    expect(okCommand('connect')).toEqual({ name: 'connect' });
    expect(usage('connect now').usage).toBe(USAGE.connect);
    expect(okCommand('digest add failing acme/web 09:00 Europe/Berlin')).toEqual({
      name: 'digest',
      args: ['add', 'failing', 'acme/web', '09:00', 'Europe/Berlin'],
    });
    expect(okCommand('digest')).toEqual({ name: 'digest', args: [] });
    const r = usage('frobnicate the queue');
    expect(r.error).toContain('`frobnicate` is not a /mergequeue command');
    expect(r.usage).toBe(USAGE.help);
  });

  it('config channel/workspace/operators', () => {
    expect(okCommand('config')).toEqual({ name: 'config', config: { kind: 'show' } });
    expect(okCommand('config channel acme/web:main')).toEqual({
      name: 'config',
      config: { kind: 'channel', target: { repo, branch: 'main' } },
    });
    expect(okCommand('config channel clear')).toEqual({
      name: 'config',
      config: { kind: 'channel', target: null },
    });
    expect(okCommand('config workspace acme/web')).toEqual({
      name: 'config',
      config: { kind: 'workspace', target: { repo } },
    });
    expect(usage('config channel :main').error).toContain('must name a repository');
    expect(usage('config channel').error).toContain('clear');
    expect(okCommand('config operators')).toEqual({
      name: 'config',
      config: { kind: 'operators', op: 'list' },
    });
    expect(
      okCommand('config operators add <@U123ABC|alice> <!subteam^S999|@release> @bob <@U123ABC>'),
    ).toEqual({
      name: 'config',
      config: {
        kind: 'operators',
        op: 'add',
        principals: [
          { kind: 'user', id: 'U123ABC', label: 'alice' },
          { kind: 'usergroup', id: 'S999', label: 'release' },
          { kind: 'name', name: 'bob' },
        ],
      },
    });
    expect(okCommand('config operators remove <@W42>')).toEqual({
      name: 'config',
      config: { kind: 'operators', op: 'remove', principals: [{ kind: 'user', id: 'W42' }] },
    });
    expect(usage('config operators add').error).toContain('Mention who');
    expect(usage('config operators add alice').error).toContain('mention them with @');
    expect(usage('config operators promote <@U1>').error).toContain('list, add or remove');
    expect(usage('config colour blue').error).toContain('not a config setting');
  });

  it('watch, unwatch, me and config people', () => {
    expect(okCommand('watch')).toEqual({
      name: 'watch',
      watch: { kind: 'add', topics: ['state', 'failed', 'health'] },
    });
    expect(okCommand('watch acme/web:main merged FAILED stuck 30')).toEqual({
      name: 'watch',
      watch: {
        kind: 'add',
        target: { repo, branch: 'main' },
        topics: ['merged', 'failed', 'health'],
        stuckMinutes: 30,
      },
    });
    expect(okCommand('watch list')).toEqual({ name: 'watch', watch: { kind: 'list' } });
    const bogus = usage('watch acme/web bogus');
    expect(bogus.error).toContain('Topics: state, submitted, testing, merged, failed, health');
    expect(bogus.usage).toBe(USAGE.watch);
    expect(usage('watch stuck 0').error).toContain('from 1 to 10080');
    expect(usage('watch stuck').error).toContain('number of minutes');
    expect(usage('watch list extra').error).toContain('no arguments');
    expect(okCommand('unwatch')).toEqual({ name: 'unwatch' });
    expect(okCommand('unwatch acme/web:main')).toEqual({ name: 'unwatch', target: { repo, branch: 'main' } });
    expect(usage('unwatch a/b c/d').usage).toBe(USAGE.unwatch);
    expect(okCommand('dashboard')).toEqual({ name: 'dashboard', off: false });
    expect(okCommand('dashboard acme/web:main')).toEqual({
      name: 'dashboard',
      off: false,
      target: { repo, branch: 'main' },
    });
    expect(okCommand('dashboard OFF')).toEqual({ name: 'dashboard', off: true });
    expect(okCommand('dashboard off acme/web:main')).toEqual({
      name: 'dashboard',
      off: true,
      target: { repo, branch: 'main' },
    });
    expect(usage('dashboard a/b c/d').usage).toBe(USAGE.dashboard);
    expect(usage('dashboard off a/b c/d').error).toContain('dashboard off acme/web:main');
    expect(okCommand('me')).toEqual({ name: 'me', me: { kind: 'show' } });
    expect(okCommand('me github octocat')).toEqual({ name: 'me', me: { kind: 'github', login: 'octocat' } });
    expect(okCommand('me notify OFF')).toEqual({ name: 'me', me: { kind: 'notify', on: false } });
    expect(okCommand('me forget')).toEqual({ name: 'me', me: { kind: 'forget' } });
    expect(usage('me github').error).toContain('me github octocat');
    expect(usage('me notify sometimes').usage).toBe(USAGE.me);
    expect(usage('me dance').error).toContain('not a `me` action');
    expect(okCommand('config people <@U123|alice> alice-gh')).toEqual({
      name: 'config',
      config: { kind: 'people', userId: 'U123', login: 'alice-gh' },
    });
    expect(usage('config people @alice alice-gh').error).toContain('Mention one person');
    expect(usage('config people <!subteam^S1> x').error).toContain('Mention one person');
  });

  it('config unfurl github on|off; anything else says what to type', () => {
    expect(okCommand('config unfurl github on')).toEqual({
      name: 'config',
      config: { kind: 'unfurl', what: 'github', on: true },
    });
    expect(okCommand('config UNFURL GitHub Off')).toEqual({
      name: 'config',
      config: { kind: 'unfurl', what: 'github', on: false },
    });
    for (const bad of [
      'config unfurl',
      'config unfurl github',
      'config unfurl github maybe',
      'config unfurl github on now',
    ])
      expect(usage(bad).error).toContain('/mergequeue config unfurl github on');
    expect(usage('config unfurl trunk off').error).toContain('Trunk links always unfurl');
    expect(usage('config dance').error).toContain('unfurl');
  });

  it('parsePrincipal rejects look-alikes', () => {
    for (const bad of [
      '<@u123>',
      '<@U123',
      '<#C123|general>',
      '<!here>',
      '<!subteam^X1>',
      '@',
      'U123',
      '<@U1|x>y',
    ])
      expect(parsePrincipal(bad)).toBeUndefined();
  });

  it('never throws and always answers a command or a usage error (property)', () => {
    const word = fc.oneof(
      fc.constantFrom(
        ...COMMAND_NAMES,
        'config',
        'operators',
        'add',
        'remove',
        'channel',
        'clear',
        'list',
        '#12',
        ':main',
      ),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
      fc.double().map(String),
      fc.constantFrom(
        '<@U123|alice>',
        '<!subteam^S1|@team>',
        '<@>',
        '<!subteam^>',
        '@@',
        '\u0000',
        '\u200b',
        '🚀/🚀:🚀',
      ),
      fc
        .tuple(fc.stringMatching(/^[a-z0-9.-]{0,12}$/), fc.stringMatching(/^[a-z0-9/:._-]{0,20}$/))
        .map(([a, b]) => `${a}/${b}`),
    );
    const text = fc.oneof(
      fc
        .array(word, { maxLength: 8 })
        .chain((ws) => fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0').map((sep) => ws.join(sep))),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ maxLength: 5000 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        const r = parseCommand(t);
        if (r.ok) {
          expect((COMMAND_NAMES as string[]).includes(r.command.name)).toBe(true);
          if (r.command.name === 'concurrency') {
            expect(Number.isInteger(r.command.value)).toBe(true);
            expect(r.command.value).toBeGreaterThanOrEqual(1);
            expect(r.command.value).toBeLessThanOrEqual(4294967295);
          }
        } else {
          expect(typeof r.error).toBe('string');
          expect(r.error.length).toBeGreaterThan(0);
          expect(r.error.length).toBeLessThan(1000);
          expect(Object.values(USAGE)).toContain(r.usage);
        }
      }),
      { numRuns: 5000 },
    );
    // Non-strings from a malformed payload are still answered.
    expect(parseCommand(undefined as unknown as string)).toEqual({ ok: true, command: { name: 'help' } });
  });
});

// Issue 14: the PR commands.
describe('PR commands', () => {
  it('submit: a number, then a target, a priority and nobatch in any order', () => {
    expect(okCommand('submit 12')).toEqual({ name: 'submit', number: 12 });
    expect(okCommand('submit #12 acme/web:main HIGH nobatch')).toEqual({
      name: 'submit',
      number: 12,
      target: { repo, branch: 'main' },
      priority: 'high',
      noBatch: true,
    });
    expect(okCommand('submit 12 nobatch 0 :release')).toEqual({
      name: 'submit',
      number: 12,
      target: { branch: 'release' },
      priority: 0,
      noBatch: true,
    });
    expect(okCommand('submit 12 255')).toMatchObject({ priority: 255 });
  });

  it('submit: clear errors with the form to type', () => {
    const r = usage('submit 12 256');
    expect(r.error).toMatch(/from 0 to 255; got 256/);
    expect(r.usage).toMatch(/^\/mergequeue submit <pr>/);
    expect(usage('submit').error).toMatch(/Say which PR/);
    expect(usage('submit twelve').error).toMatch(/not a PR number/);
    expect(usage('submit 12 high low').error).toMatch(/one priority/);
    expect(usage('submit 12 nobatch nobatch').error).toMatch(/twice/);
    expect(usage('submit 12 asap').error).toMatch(/not a target, a priority/);
  });

  it('cancel: an optional target, then the reason as typed', () => {
    expect(okCommand('cancel 7')).toEqual({ name: 'cancel', number: 7 });
    expect(okCommand('cancel 7 acme/web:main wrong base <@U1|ann>')).toEqual({
      name: 'cancel',
      number: 7,
      target: { repo, branch: 'main' },
      reason: 'wrong base @ann',
    });
    expect(okCommand('cancel 7 :main flaky')).toEqual({
      name: 'cancel',
      number: 7,
      target: { branch: 'main' },
      reason: 'flaky',
    });
    expect(usage(`cancel 7 ${'x'.repeat(501)}`).error).toMatch(/too long/);
  });

  it('restart: a number and an optional target', () => {
    expect(okCommand('restart 9 :main')).toEqual({ name: 'restart', number: 9, target: { branch: 'main' } });
    expect(usage('restart 9 :main again').error).toMatch(/Too many words/);
  });

  it('prs: a target and a state in either order', () => {
    expect(okCommand('prs')).toEqual({ name: 'prs' });
    expect(okCommand('prs pending-failure acme/web')).toEqual({
      name: 'prs',
      state: 'pending_failure',
      target: { repo },
    });
    expect(okCommand('prs acme/web:main FAILED')).toEqual({
      name: 'prs',
      state: 'failed',
      target: { repo, branch: 'main' },
    });
    expect(usage('prs broken').error).toMatch(/not a target or a PR state/);
    expect(usage('prs a/b c/d e').error).toMatch(/at most a target and a state/);
  });
});
