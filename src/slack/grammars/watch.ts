/**
 * The words of `watch`, `unwatch` and `me`: channel feeds of a queue and a person's GitHub login. Pure and
 * total like grammar.ts, which wraps these answers with the usage line of the command.
 */
import { parseTarget, type TargetSpec } from '../../core/target.ts';
import { DEFAULT_TOPICS, TOPICS, type Topic } from '../../watch/types.ts';

export type WatchCommand =
  | { kind: 'list' }
  | { kind: 'add'; target?: TargetSpec; topics: Topic[]; stuckMinutes?: number };

export type MeCommand =
  | { kind: 'show' }
  | { kind: 'github'; login: string }
  | { kind: 'forget' }
  | { kind: 'notify'; on: boolean };

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** STUCK_MINUTES' own bounds: a minute to a week. */
export const STUCK_MIN = 1;
export const STUCK_MAX = 10_080;

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
const isTargetWord = (w: string) => w.startsWith(':') || w.includes('/');

export function parseWatch(words: string[]): Parsed<WatchCommand> {
  const [first, ...rest] = words;
  if (first?.toLowerCase() === 'list') {
    if (rest.length > 0) return { ok: false, error: '`watch list` takes no arguments.' };
    return { ok: true, value: { kind: 'list' } };
  }
  let target: TargetSpec | undefined;
  let i = 0;
  if (first !== undefined && isTargetWord(first)) {
    const t = parseTarget(first);
    if (!t.ok) return { ok: false, error: t.error };
    target = t.value;
    i = 1;
  }
  const topics = new Set<Topic>();
  let stuckMinutes: number | undefined;
  for (; i < words.length; i++) {
    const w = words[i]!.toLowerCase();
    if (w === 'stuck') {
      const n = words[i + 1];
      if (n === undefined || !/^\d{1,5}$/.test(n) || Number(n) < STUCK_MIN || Number(n) > STUCK_MAX)
        return {
          ok: false,
          error: `\`stuck\` needs a number of minutes from ${STUCK_MIN} to ${STUCK_MAX}, for example \`stuck 30\`${n === undefined ? '' : `; got \`${clip(n)}\``}.`,
        };
      stuckMinutes = Number(n);
      i++;
      continue;
    }
    if (!(TOPICS as readonly string[]).includes(w))
      return {
        ok: false,
        error: `\`${clip(words[i]!)}\` is not something to watch. Topics: ${TOPICS.join(', ')}${i === 0 ? '; a queue is written like `acme/web:main`' : ''}.`,
      };
    topics.add(w as Topic);
  }
  const chosen = topics.size > 0 ? [...topics] : [...DEFAULT_TOPICS];
  // A stuck threshold only matters to health alerts, so asking for one asks for them.
  if (stuckMinutes !== undefined && !chosen.includes('health')) chosen.push('health');
  const value: WatchCommand = { kind: 'add', topics: TOPICS.filter((t) => chosen.includes(t)) };
  if (target) value.target = target;
  if (stuckMinutes !== undefined) value.stuckMinutes = stuckMinutes;
  return { ok: true, value };
}

export function parseUnwatch(words: string[]): Parsed<TargetSpec | undefined> {
  if (words.length === 0) return { ok: true, value: undefined };
  if (words.length > 1) return { ok: false, error: '`unwatch` takes at most one queue.' };
  const t = parseTarget(words[0]!);
  return t.ok ? { ok: true, value: t.value } : { ok: false, error: t.error };
}

export function parseMe(words: string[]): Parsed<MeCommand> {
  const [sub, ...rest] = words;
  const what = sub?.toLowerCase();
  if (what === undefined) return { ok: true, value: { kind: 'show' } };
  if (what === 'github') {
    if (rest.length !== 1)
      return { ok: false, error: 'Say your GitHub login, for example `/mergequeue me github octocat`.' };
    return { ok: true, value: { kind: 'github', login: rest[0]! } };
  }
  if (what === 'forget') {
    if (rest.length > 0) return { ok: false, error: '`me forget` takes no arguments.' };
    return { ok: true, value: { kind: 'forget' } };
  }
  if (what === 'notify') {
    const v = rest[0]?.toLowerCase();
    if (rest.length !== 1 || (v !== 'on' && v !== 'off'))
      return {
        ok: false,
        error: 'Say `on` or `off`: `/mergequeue me notify off` stops notes about your PRs.',
      };
    return { ok: true, value: { kind: 'notify', on: v === 'on' } };
  }
  return {
    ok: false,
    error: `\`${clip(sub!)}\` is not a \`me\` action: use \`me\`, \`me github <login>\`, \`me forget\` or \`me notify on|off\`.`,
  };
}
