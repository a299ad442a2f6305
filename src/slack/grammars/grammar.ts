/**
 * `/mergequeue …` text → a typed command, or a usage error that says what was wrong and the exact form
 * to type. Pure and total: it never throws, whatever Slack sends (the property test checks this).
 */

import { parseTarget, type RepoRef, type TargetSpec } from '../../core/target.ts';
import {
  PRIORITIES,
  type PriorityName,
  PULL_REQUEST_STATES,
  type PullRequestState,
  QUEUE_INT_MAX,
  QUEUE_INT_MIN,
} from '../../trunk/types.ts';
import type { Principal } from '../../workspace/config.ts';
import { type AutopilotCommand, parseConfigAutopilot } from './autopilot.ts';
import { parseTests, type TestsCommand } from './tests.ts';
import { USAGE } from './usage.ts';
import {
  type MeCommand,
  type Parsed,
  parseMe,
  parseUnwatch,
  parseWatch,
  type WatchCommand,
} from './watch.ts';

export type ConfigCommand =
  | { kind: 'show' }
  /** target null = clear the default. */
  | { kind: 'channel'; target: TargetSpec | null }
  | { kind: 'workspace'; target: TargetSpec | null }
  | { kind: 'operators'; op: 'list' }
  | { kind: 'operators'; op: 'add' | 'remove'; principals: Principal[] }
  /** An operator's (verified) link of a person to a GitHub login. */
  | { kind: 'people'; userId: string; login: string }
  /** Whether pasted GitHub PR links unfurl in the workspace (Trunk links always do). */
  | { kind: 'unfurl'; what: 'github'; on: boolean }
  /** The autopilot (issue 29): what is set, on/off, the kick classes it re-submits. */
  | AutopilotCommand;

export type StateCommandName = 'pause' | 'drain' | 'resume';

export type Command =
  | { name: 'help'; topic?: string }
  | { name: 'status'; target?: TargetSpec }
  | { name: StateCommandName; target?: TargetSpec; reason?: string }
  | { name: 'concurrency'; value: number; target?: TargetSpec }
  | { name: 'settings'; target?: TargetSpec }
  | { name: 'pr'; number: number; target?: TargetSpec }
  | { name: 'run'; testRunId: string; target?: TargetSpec }
  | { name: 'flaky' | 'quarantined'; repo?: RepoRef }
  | { name: 'connect' }
  | { name: 'config'; config: ConfigCommand }
  /** The digest helper parses the rest. */
  | { name: 'digest'; args: string[] }
  /** The freeze parser (commands/freeze.ts) reads the rest: it needs the person's time zone and the time. */
  | { name: 'freeze'; text: string }
  | { name: 'watch'; watch: WatchCommand }
  | { name: 'unwatch'; target?: TargetSpec }
  | { name: 'me'; me: MeCommand }
  /** Flaky-test feeds: `tests watch|unwatch|list` (commands/tests.ts reads the rest). */
  | { name: 'tests'; tests: TestsCommand }
  /** A canvas in this channel that keeps the queue current; `off` stops it. */
  | { name: 'dashboard'; off: boolean; target?: TargetSpec }
  | PrCommand;

/** The commands that act on one PR, or list the queue's PRs. */
export type PrCommand =
  | {
      name: 'submit';
      number: number;
      target?: TargetSpec;
      /** A name, or a number 0..255 (lower is sooner). */
      priority?: PriorityName | number;
      noBatch?: boolean;
    }
  | { name: 'cancel'; number: number; target?: TargetSpec; reason?: string }
  | { name: 'restart'; number: number; target?: TargetSpec }
  | { name: 'why'; number: number; target?: TargetSpec }
  | { name: 'eta'; number: number; target?: TargetSpec }
  | { name: 'prs'; target?: TargetSpec; state?: PullRequestState }
  | { name: 'stats'; target?: TargetSpec; days: StatsDays };

/** The windows `stats` answers for, in days. */
export const STATS_DAYS = [1, 7, 30] as const;
export type StatsDays = (typeof STATS_DAYS)[number];

export type CommandName = Command['name'];

export type ParseCommandResult = { ok: true; command: Command } | { ok: false; error: string; usage: string };

/** Every command, in help order; `satisfies` fails the build if a command has no usage line. */
export const COMMAND_NAMES = Object.keys(USAGE satisfies Record<CommandName, string>) as CommandName[];

const MAX_TEXT = 4000;
const MAX_REASON = 500;
const MAX_RUN_ID = 200;

export function parseCommand(text: unknown): ParseCommandResult {
  try {
    return parse(typeof text === 'string' ? text : '');
  } catch {
    // Defence in depth: the parser is written not to throw; a bug must still not crash a listener.
    return usageError('help', 'Sorry, that command could not be read.');
  }
}

function parse(raw: string): ParseCommandResult {
  if (raw.length > MAX_TEXT)
    return usageError('help', `That command is too long (${raw.length} characters; at most ${MAX_TEXT}).`);
  const words = splitWords(raw);
  const first = words[0];
  if (first === undefined) return ok({ name: 'help' });
  const name = first.toLowerCase();
  const rest = words.slice(1);
  switch (name) {
    case 'help':
      return parseHelp(rest);
    case 'status':
    case 'settings':
      return parseTargetOnly(name, rest);
    case 'pause':
    case 'drain':
    case 'resume':
      return parseStateChange(name, rest);
    case 'concurrency':
      return parseConcurrency(rest);
    case 'pr':
    case 'restart':
    case 'why':
    case 'eta':
      return parsePrAndTarget(name, rest);
    case 'run':
      return parseRun(rest);
    case 'submit':
      return parseSubmit(rest);
    case 'cancel':
      return parseCancel(rest);
    case 'prs':
      return parsePrs(rest);
    case 'stats':
      return parseStats(rest);
    case 'flaky':
    case 'quarantined':
      return parseRepoOnly(name, rest);
    case 'connect':
      if (rest.length > 0)
        return usageError('connect', '`connect` takes no arguments: it opens a form for the Trunk token.');
      return ok({ name: 'connect' });
    case 'config':
      return parseConfig(rest);
    case 'digest':
      return ok({ name: 'digest', args: rest });
    case 'freeze':
      return ok({ name: 'freeze', text: rest.join(' ') });
    case 'watch':
      return wrap('watch', parseWatch(rest), (watch) => ({ name: 'watch', watch }));
    case 'unwatch':
      return wrap('unwatch', parseUnwatch(rest), (target) =>
        target ? { name: 'unwatch', target } : { name: 'unwatch' },
      );
    case 'me':
      return wrap('me', parseMe(rest), (me) => ({ name: 'me', me }));
    case 'tests':
      return wrap('tests', parseTests(rest), (tests) => ({ name: 'tests', tests }));
    case 'dashboard':
      return parseDashboard(rest);
    default:
      return {
        ok: false,
        error: `\`${clip(first, 40)}\` is not a /mergequeue command. Commands: ${COMMAND_NAMES.join(', ')}.`,
        usage: USAGE.help,
      };
  }
}

/** `dashboard [target]` · `dashboard off [target]`. */
function parseDashboard(rest: string[]): ParseCommandResult {
  const off = rest[0]?.toLowerCase() === 'off';
  const words = off ? rest.slice(1) : rest;
  if (words.length > 1)
    return usageError(
      'dashboard',
      `\`dashboard\` takes at most one queue, for example \`/mergequeue dashboard${off ? ' off' : ''} acme/web:main\`.`,
    );
  if (words.length === 0) return ok({ name: 'dashboard', off });
  const t = parseTarget(words[0]!);
  if (!t.ok) return usageError('dashboard', t.error);
  return ok({ name: 'dashboard', off, target: t.value });
}

/** Splits on any whitespace, including the non-breaking spaces Slack clients sometimes send. */
function splitWords(text: string): string[] {
  return text.split(/[\s\u00a0\u2000-\u200b\u3000]+/u).filter((w) => w.length > 0);
}

function ok(command: Command): ParseCommandResult {
  return { ok: true, command };
}

function wrap<T>(name: CommandName, p: Parsed<T>, make: (v: T) => Command): ParseCommandResult {
  return p.ok ? ok(make(p.value)) : usageError(name, p.error);
}

function usageError(name: CommandName, error: string): ParseCommandResult {
  return { ok: false, error, usage: USAGE[name] };
}

function clip(s: string, n: number): string {
  const chars = Array.from(s);
  return chars.length > n ? `${chars.slice(0, n).join('')}…` : s;
}

function parseHelp(rest: string[]): ParseCommandResult {
  const topic = rest[0]?.toLowerCase();
  if (topic === undefined) return ok({ name: 'help' });
  if (!(COMMAND_NAMES as string[]).includes(topic))
    return usageError(
      'help',
      `There is no help topic \`${clip(rest[0]!, 40)}\`. Topics: ${COMMAND_NAMES.join(', ')}.`,
    );
  return ok({ name: 'help', topic });
}

/** A word is read as a target only if it looks like one: it has a '/' or starts with ':'. */
function looksLikeTarget(word: string): boolean {
  return word.startsWith(':') || word.includes('/');
}

function target(
  name: CommandName,
  word: string,
): { ok: true; value: TargetSpec } | { ok: false; result: ParseCommandResult } {
  const parsed = parseTarget(word);
  if (!parsed.ok) return { ok: false, result: usageError(name, parsed.error) };
  return parsed;
}

function parseTargetOnly(name: 'status' | 'settings', rest: string[]): ParseCommandResult {
  if (rest.length === 0) return ok({ name });
  if (rest.length > 1)
    return usageError(name, `\`${name}\` takes at most one target; got ${rest.length} words.`);
  const t = target(name, rest[0]!);
  return t.ok ? ok({ name, target: t.value }) : t.result;
}

function parseStateChange(name: StateCommandName, rest: string[]): ParseCommandResult {
  let words = rest;
  let spec: TargetSpec | undefined;
  const first = words[0];
  if (first !== undefined && looksLikeTarget(first)) {
    const parsed = parseTarget(first);
    // A word like "build/test/deploy" opening a reason is not a target: only a parseable one is taken as such.
    if (parsed.ok) {
      spec = parsed.value;
      words = words.slice(1);
    } else if (first.startsWith(':') || words.length === 1) {
      return usageError(name, parsed.error);
    }
  }
  const reason = slackTextToPlain(words.join(' '));
  if (Array.from(reason).length > MAX_REASON)
    return usageError(name, `The reason is too long (at most ${MAX_REASON} characters).`);
  const command: { name: StateCommandName; target?: TargetSpec; reason?: string } = { name };
  if (spec) command.target = spec;
  if (reason) command.reason = reason;
  return ok(command);
}

/** A whole number in 1..4294967295, written in plain decimal digits. */
export function parseQueueInt(word: string): number | undefined {
  if (!/^\d{1,10}$/.test(word)) return undefined;
  const n = Number(word);
  return n >= QUEUE_INT_MIN && n <= QUEUE_INT_MAX ? n : undefined;
}

function parseConcurrency(rest: string[]): ParseCommandResult {
  const [value, where, ...extra] = rest;
  if (value === undefined) return usageError('concurrency', 'Say how many PRs to test at once.');
  if (/^-\d+$/.test(value))
    return usageError(
      'concurrency',
      `Concurrency must be at least ${QUEUE_INT_MIN}; got ${clip(value, 40)}.`,
    );
  if (!/^[+]?\d+$/.test(value))
    return usageError('concurrency', `\`${clip(value, 40)}\` is not a whole number.`);
  const n = parseQueueInt(value.replace(/^\+/, '').replace(/^0+(?=\d)/, ''));
  if (n === undefined)
    return usageError(
      'concurrency',
      `Concurrency must be between ${QUEUE_INT_MIN} and ${QUEUE_INT_MAX}; got ${clip(value, 40)}.`,
    );
  if (extra.length > 0) return usageError('concurrency', 'Too many words after the number.');
  if (where === undefined) return ok({ name: 'concurrency', value: n });
  const t = target('concurrency', where);
  return t.ok ? ok({ name: 'concurrency', value: n, target: t.value }) : t.result;
}

type PrNumberCommand = 'pr' | 'submit' | 'cancel' | 'restart' | 'why' | 'eta';

/** The PR number every PR command starts with: `123` or `#123`. */
function prNumber(
  name: PrNumberCommand,
  num: string | undefined,
): { ok: true; value: number } | { ok: false; result: ParseCommandResult } {
  if (num === undefined)
    return { ok: false, result: usageError(name, `Say which PR, for example \`/mergequeue ${name} 123\`.`) };
  const digits = num.startsWith('#') ? num.slice(1) : num;
  const n = /^\d{1,10}$/.test(digits) ? Number(digits) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > QUEUE_INT_MAX)
    return {
      ok: false,
      result: usageError(name, `\`${clip(num, 40)}\` is not a PR number; write it like \`123\` or \`#123\`.`),
    };
  return { ok: true, value: n };
}

/** `<pr> [target]`: the commands about one PR that take nothing else. */
function parsePrAndTarget(name: 'pr' | 'restart' | 'why' | 'eta', rest: string[]): ParseCommandResult {
  const [num, where, ...extra] = rest;
  const n = prNumber(name, num);
  if (!n.ok) return n.result;
  if (extra.length > 0) return usageError(name, 'Too many words after the PR number.');
  if (where === undefined) return ok({ name, number: n.value });
  const t = target(name, where);
  return t.ok ? ok({ name, number: n.value, target: t.value }) : t.result;
}

const PRIORITY_NAMES = Object.keys(PRIORITIES) as PriorityName[];

/** After the number, in any order and each at most once: a target, a priority, `nobatch`. */
function parseSubmit(rest: string[]): ParseCommandResult {
  const n = prNumber('submit', rest[0]);
  if (!n.ok) return n.result;
  const command: Extract<Command, { name: 'submit' }> = { name: 'submit', number: n.value };
  for (const word of rest.slice(1)) {
    const lower = word.toLowerCase();
    if (lower === 'nobatch' || lower === 'no-batch') {
      if (command.noBatch) return usageError('submit', '`nobatch` is given twice.');
      command.noBatch = true;
    } else if ((PRIORITY_NAMES as string[]).includes(lower) || /^\d+$/.test(word)) {
      if (command.priority !== undefined) return usageError('submit', 'Give one priority, not two.');
      if (/^\d+$/.test(word)) {
        const p = word.length <= 3 ? Number(word) : Number.NaN;
        if (!(p >= 0 && p <= 255))
          return usageError(
            'submit',
            `A priority is a name (${PRIORITY_NAMES.join(', ')}) or a number from 0 to 255; got ${clip(word, 40)}.`,
          );
        command.priority = p;
      } else {
        command.priority = lower as PriorityName;
      }
    } else if (looksLikeTarget(word)) {
      if (command.target) return usageError('submit', 'Give one target, not two.');
      const t = target('submit', word);
      if (!t.ok) return t.result;
      command.target = t.value;
    } else {
      return usageError(
        'submit',
        `\`${clip(word, 40)}\` is not a target, a priority (${PRIORITY_NAMES.join(', ')} or 0–255) or \`nobatch\`.`,
      );
    }
  }
  return ok(command);
}

function parseCancel(rest: string[]): ParseCommandResult {
  const n = prNumber('cancel', rest[0]);
  if (!n.ok) return n.result;
  const command: Extract<Command, { name: 'cancel' }> = { name: 'cancel', number: n.value };
  let words = rest.slice(1);
  const first = words[0];
  if (first !== undefined && looksLikeTarget(first)) {
    const parsed = parseTarget(first);
    // As for pause: a reason may start with a word like "ci/cd"; only a parseable target is taken as one.
    if (parsed.ok) {
      command.target = parsed.value;
      words = words.slice(1);
    } else if (first.startsWith(':') || words.length === 1) {
      return usageError('cancel', parsed.error);
    }
  }
  const reason = slackTextToPlain(words.join(' '));
  if (Array.from(reason).length > MAX_REASON)
    return usageError('cancel', `The reason is too long (at most ${MAX_REASON} characters).`);
  if (reason) command.reason = reason;
  return ok(command);
}

/** `pending-failure` and `pending_failure` both name the state. */
function prState(word: string): PullRequestState | undefined {
  const w = word.toLowerCase().replaceAll('-', '_');
  return (PULL_REQUEST_STATES as readonly string[]).includes(w) ? (w as PullRequestState) : undefined;
}

/** A target and a state, in either order, each optional. */
function parsePrs(rest: string[]): ParseCommandResult {
  if (rest.length > 2) return usageError('prs', '`prs` takes at most a target and a state.');
  const command: Extract<Command, { name: 'prs' }> = { name: 'prs' };
  for (const word of rest) {
    const state = prState(word);
    if (state && !command.state) {
      command.state = state;
    } else if (looksLikeTarget(word) && !command.target) {
      const t = target('prs', word);
      if (!t.ok) return t.result;
      command.target = t.value;
    } else {
      return usageError(
        'prs',
        `\`${clip(word, 40)}\` is not a target or a PR state (${PULL_REQUEST_STATES.join(', ')}).`,
      );
    }
  }
  return ok(command);
}

/** A target and a window (`1d`, `7d`, `30d`; default 7 days), in either order, each optional. */
function parseStats(rest: string[]): ParseCommandResult {
  if (rest.length > 2) return usageError('stats', '`stats` takes at most a target and a window.');
  const command: Extract<Command, { name: 'stats' }> = { name: 'stats', days: 7 };
  let window = false;
  for (const word of rest) {
    const days = /^(\d{1,2})d$/i.exec(word);
    if (days && !window) {
      const n = Number(days[1]);
      if (!(STATS_DAYS as readonly number[]).includes(n))
        return usageError('stats', `The window is \`1d\`, \`7d\` or \`30d\`; got \`${clip(word, 10)}\`.`);
      command.days = n as StatsDays;
      window = true;
    } else if (looksLikeTarget(word) && !command.target) {
      const t = target('stats', word);
      if (!t.ok) return t.result;
      command.target = t.value;
    } else {
      return usageError('stats', `\`${clip(word, 40)}\` is not a target or a window (1d, 7d, 30d).`);
    }
  }
  return ok(command);
}

function parseRun(rest: string[]): ParseCommandResult {
  const [id, where, ...extra] = rest;
  if (id === undefined) return usageError('run', 'Say which test run, for example `/mergequeue run 7f3c…`.');
  if (id.length > MAX_RUN_ID || !/^[A-Za-z0-9_.:-]+$/.test(id))
    return usageError(
      'run',
      `\`${clip(id, 40)}\` is not a test run id (letters, digits, "-", "_", ".", ":").`,
    );
  if (extra.length > 0) return usageError('run', 'Too many words after the test run id.');
  if (where === undefined) return ok({ name: 'run', testRunId: id });
  const t = target('run', where);
  return t.ok ? ok({ name: 'run', testRunId: id, target: t.value }) : t.result;
}

function parseRepoOnly(name: 'flaky' | 'quarantined', rest: string[]): ParseCommandResult {
  if (rest.length === 0) return ok({ name });
  if (rest.length > 1) return usageError(name, `\`${name}\` takes at most one repository.`);
  const t = target(name, rest[0]!);
  if (!t.ok) return t.result;
  if (!t.value.repo) return usageError(name, 'Name a repository like `owner/repo`, not a branch.');
  if (t.value.branch !== undefined)
    return usageError(name, 'Flaky tests are per repository: leave out the `:branch` part.');
  return ok({ name, repo: t.value.repo });
}

function parseConfig(rest: string[]): ParseCommandResult {
  const [sub, ...args] = rest;
  const what = sub?.toLowerCase();
  if (what === undefined || what === 'show') {
    if (args.length > 0) return usageError('config', '`config show` takes no arguments.');
    return ok({ name: 'config', config: { kind: 'show' } });
  }
  if (what === 'channel' || what === 'workspace') {
    const [value, ...extra] = args;
    if (value === undefined)
      return usageError(
        'config',
        `Say which queue to use by default, or \`clear\`: \`/mergequeue config ${what} acme/web:main\`.`,
      );
    if (extra.length > 0) return usageError('config', `\`config ${what}\` takes one target.`);
    if (value.toLowerCase() === 'clear') return ok({ name: 'config', config: { kind: what, target: null } });
    const t = target('config', value);
    if (!t.ok) return t.result;
    if (!t.value.repo)
      return usageError(
        'config',
        'A default must name a repository, like `owner/repo` or `owner/repo:branch`.',
      );
    return ok({ name: 'config', config: { kind: what, target: t.value } });
  }
  if (what === 'operators') {
    const [op, ...who] = args;
    const verb = op?.toLowerCase();
    if (verb === undefined || verb === 'list') {
      if (who.length > 0) return usageError('config', '`config operators list` takes no arguments.');
      return ok({ name: 'config', config: { kind: 'operators', op: 'list' } });
    }
    if (verb !== 'add' && verb !== 'remove')
      return usageError(
        'config',
        `\`${clip(op!, 40)}\` is not an operators action: use list, add or remove.`,
      );
    if (who.length === 0)
      return usageError(
        'config',
        `Mention who to ${verb}: \`/mergequeue config operators ${verb} @alice @release-team\`.`,
      );
    if (who.length > 50) return usageError('config', 'At most 50 people or groups at a time.');
    const principals: Principal[] = [];
    for (const word of who) {
      const p = parsePrincipal(word);
      if (!p)
        return usageError(
          'config',
          `\`${clip(word, 40)}\` is not a person or user group; mention them with @ so Slack links the name.`,
        );
      if (!principals.some((q) => samePrincipal(p, q))) principals.push(p);
    }
    return ok({ name: 'config', config: { kind: 'operators', op: verb, principals } });
  }
  if (what === 'people') return parseConfigPeople(args);
  if (what === 'unfurl') return parseConfigUnfurl(args);
  if (what === 'autopilot') {
    const p = parseConfigAutopilot(args);
    return p.ok ? ok({ name: 'config', config: p.value }) : usageError('config', p.error);
  }
  return usageError(
    'config',
    `\`${clip(sub!, 40)}\` is not a config setting: use channel, workspace, operators, people, unfurl or autopilot.`,
  );
}

/** `config unfurl github on|off`. */
function parseConfigUnfurl(args: string[]): ParseCommandResult {
  const [what, value, ...extra] = args.map((a) => a.toLowerCase());
  const how = 'Say whether pasted GitHub PR links unfurl: `/mergequeue config unfurl github on` or `off`.';
  if (what !== 'github')
    return usageError(
      'config',
      what === undefined
        ? how
        : `Only GitHub links can be turned on or off (Trunk links always unfurl). ${how}`,
    );
  if ((value !== 'on' && value !== 'off') || extra.length > 0) return usageError('config', how);
  return ok({ name: 'config', config: { kind: 'unfurl', what: 'github', on: value === 'on' } });
}

function parseConfigPeople(args: string[]): ParseCommandResult {
  const [who, login, ...extra] = args;
  const person = who === undefined ? undefined : parsePrincipal(who);
  if (person?.kind !== 'user' || login === undefined || extra.length > 0)
    return usageError(
      'config',
      'Mention one person and their GitHub login: `/mergequeue config people @alice alice-gh`.',
    );
  return ok({ name: 'config', config: { kind: 'people', userId: person.id, login } });
}

/** `<@U123|alice>`, `<@U123>`, `<!subteam^S123|@team>`, `<!subteam^S123>`, or a bare `@name`. */
export function parsePrincipal(word: string): Principal | undefined {
  const user = /^<@([UW][A-Z0-9]{1,30})(?:\|([^>]{0,80}))?>$/.exec(word);
  if (user) return withLabel({ kind: 'user', id: user[1]! }, user[2]);
  const group = /^<!subteam\^(S[A-Z0-9]{1,30})(?:\|([^>]{0,80}))?>$/.exec(word);
  if (group) return withLabel({ kind: 'usergroup', id: group[1]! }, group[2]);
  const name = /^@([\p{L}\p{N}._-]{1,80})$/u.exec(word);
  if (name) return { kind: 'name', name: name[1]! };
  return undefined;
}

function withLabel<P extends { kind: 'user' | 'usergroup'; id: string; label?: string }>(
  p: P,
  label?: string,
): P {
  if (label) p.label = label.replace(/^@/, '');
  return p;
}

function samePrincipal(a: Principal, b: Principal): boolean {
  if (a.kind === 'name') return b.kind === 'name' && a.name === b.name;
  return b.kind !== 'name' && a.kind === b.kind && a.id === b.id;
}

/**
 * Slash-command text arrives in Slack's escaped form: `&lt;` for `<`, mentions as `<@U1|alice>`, links as
 * `<https://…|label>`. A reason is shown back later (escaped again), so it is kept as the words people
 * typed: mentions become `@name`, and nothing in it can ping a channel.
 */
export function slackTextToPlain(text: string): string {
  return text
    .replace(/<@([A-Z0-9]+)(?:\|([^>]*))?>/g, (_m, id: string, name?: string) => `@${name || id}`)
    .replace(/<!subteam\^([A-Z0-9]+)(?:\|@?([^>]*))?>/g, (_m, id: string, name?: string) => `@${name || id}`)
    .replace(/<#([A-Z0-9]+)(?:\|([^>]*))?>/g, (_m, id: string, name?: string) => `#${name || id}`)
    .replace(
      /<!([a-z]+)(?:\^[^|>]*)?(?:\|([^>]*))?>/g,
      (_m, word: string, label?: string) => label || `@${word}`,
    )
    .replace(/<((?:https?|mailto):[^|>]*)(?:\|([^>]*))?>/g, (_m, url: string, label?: string) => label || url)
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}
