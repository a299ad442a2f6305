/**
 * `/mergequeue freeze …` as typed data, or a message saying what was wrong and what to type instead.
 * Pure: the person's time zone and the current instant come in, so the `once` default (today when the
 * start is still ahead there, else tomorrow) is decided here and tested without a clock.
 */

import {
  canonicalTimeZone,
  formatLocalTime,
  localParts,
  parseLocalTime,
  shiftDate,
} from '../../core/local-time.ts';
import { type ParseResult, parseTarget, type TargetSpec } from '../../core/target.ts';
import {
  type FreezeRule,
  formatDate,
  occurrenceOn,
  parseDate,
  type RepeatDays,
} from '../../freeze/schedule.ts';
import type { FreezeAction, FreezeAdd } from '../../freeze/types.ts';

export type { FreezeAdd };

export const FREEZE_ADD_USAGE =
  '/mergequeue freeze add [target] <HH:MM>-<HH:MM> [Area/City] [daily|weekdays|weekends|once YYYY-MM-DD] [pause|drain] [reason…]';
export const FREEZE_USAGE = [
  FREEZE_ADD_USAGE,
  '/mergequeue freeze list',
  '/mergequeue freeze remove <id>',
  '/mergequeue freeze skip <id>',
].join('\n');
const EXAMPLE =
  '`/mergequeue freeze add acme/web:main 18:00-08:00 Europe/Paris weekdays drain Nightly release`';
export const MAX_REASON_LENGTH = 300;

export type FreezeCommand =
  | { kind: 'help' }
  | { kind: 'add'; add: FreezeAdd }
  | { kind: 'list' }
  | { kind: 'remove'; id: string }
  | { kind: 'skip'; id: string };

export interface FreezeParseContext {
  /** The person's Slack time zone (users.info `tz`); UTC when missing or unknown. */
  tz?: string;
  now: number;
}

const DAYS: readonly string[] = ['daily', 'weekdays', 'weekends'];
const ACTIONS: readonly string[] = ['pause', 'drain'];
const ID_RE = /^f[a-z0-9]{5}$/;
const DATE_RE = /^\d{4}-\d{1,2}-\d{1,2}$/;
/** Words that are probably a mistyped option rather than the start of a reason. */
const NEAR_MISSES: Record<string, string> = {
  weekday: 'weekdays',
  weekend: 'weekends',
  everyday: 'daily',
  paused: 'pause',
  drained: 'drain',
  draining: 'drain',
};

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

/** `text` is what follows `freeze` in the command. */
export function parseFreezeCommand(text: string, ctx: FreezeParseContext): ParseResult<FreezeCommand> {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const sub = words[0]?.toLowerCase();
  const rest = words.slice(1);
  if (sub === undefined || sub === 'help') return { ok: true, value: { kind: 'help' } };
  if (sub === 'add') {
    const add = parseAdd(rest, ctx);
    return add.ok ? { ok: true, value: { kind: 'add', add: add.value } } : add;
  }
  if (sub === 'list') {
    if (rest.length > 0)
      return fail(
        `\`freeze list\` takes nothing after it (got "${rest.join(' ')}"). Type \`/mergequeue freeze list\`.`,
      );
    return { ok: true, value: { kind: 'list' } };
  }
  if (sub === 'remove' || sub === 'skip') {
    const example = `\`/mergequeue freeze ${sub} f7k2m9\``;
    if (rest.length === 0)
      return fail(`Say which window to ${sub}, e.g. ${example}. \`/mergequeue freeze list\` shows the ids.`);
    if (rest.length > 1)
      return fail(`\`freeze ${sub}\` takes one window id (got "${rest.join(' ')}"), e.g. ${example}.`);
    const id = rest[0]!.toLowerCase();
    if (!ID_RE.test(id))
      return fail(
        `"${rest[0]}" is not a freeze window id: ids are an f and five letters or digits, e.g. ${example}. \`/mergequeue freeze list\` shows them.`,
      );
    return { ok: true, value: { kind: sub, id } };
  }
  return fail(`\`freeze ${words[0]}\` is not a freeze command. Type one of:\n${FREEZE_USAGE}`);
}

function looksLikeRange(word: string): boolean {
  return /^\d{1,2}(:\d{2})?-/.test(word) || /^\d{1,2}:\d{2}$/.test(word);
}

function looksLikeZone(word: string): boolean {
  return word.includes('/') || /^(utc|gmt)$/i.test(word);
}

function parseAdd(words: string[], ctx: FreezeParseContext): ParseResult<FreezeAdd> {
  let i = 0;
  if (words.length === 0)
    return fail(`Say when the freeze starts and ends, e.g. ${EXAMPLE}. The form is \`${FREEZE_ADD_USAGE}\`.`);

  let target: TargetSpec | undefined;
  if (!looksLikeRange(words[0]!)) {
    const parsed = parseTarget(words[0]!);
    if (!parsed.ok) return fail(`${parsed.error} Then give the time range, e.g. ${EXAMPLE}.`);
    target = parsed.value;
    i++;
  }

  const rangeWord = words[i];
  if (rangeWord === undefined)
    return fail(`Say when the freeze starts and ends, as \`HH:MM-HH:MM\` after the target, e.g. ${EXAMPLE}.`);
  if (words[i + 1] === '-' || words[i + 1]?.startsWith('-') || rangeWord.endsWith('-'))
    return fail(`Write the time range without spaces, e.g. \`18:00-20:00\`, as in ${EXAMPLE}.`);
  const range = /^([^-]+)-([^-]+)$/.exec(rangeWord);
  if (!range)
    return fail(
      `"${rangeWord}" is not a time range: write it as \`HH:MM-HH:MM\` in 24-hour time, e.g. \`18:00-20:00\`.`,
    );
  const startMinute = parseLocalTime(range[1]!);
  const endMinute = parseLocalTime(range[2]!);
  for (const [text, value] of [
    [range[1]!, startMinute],
    [range[2]!, endMinute],
  ] as const) {
    if (value === undefined)
      return fail(
        `"${text}" is not a time of day: write 24-hour \`HH:MM\` (00:00 to 23:59), e.g. \`18:00-20:00\`.`,
      );
  }
  if (startMinute === endMinute)
    return fail(
      `The window starts and ends at ${formatLocalTime(startMinute!)}: give a different end time (a window may cross midnight, e.g. \`22:00-06:00\`).`,
    );
  i++;

  let tz = canonicalTimeZone(ctx.tz ?? '') ?? 'UTC';
  if (words[i] !== undefined && looksLikeZone(words[i]!)) {
    const zone = canonicalTimeZone(words[i]!);
    if (!zone)
      return fail(
        `"${words[i]}" is not a time zone I know: use an Area/City name such as \`Europe/Paris\` or \`America/New_York\` (or leave it out to use yours, ${tz}).`,
      );
    tz = zone;
    i++;
  }

  const spec = { startMinute: startMinute!, endMinute: endMinute!, tz };
  let rule: FreezeRule | undefined;
  const dayWord = words[i]?.toLowerCase();
  if (dayWord !== undefined && DAYS.includes(dayWord)) {
    rule = { kind: 'repeat', days: dayWord as RepeatDays };
    i++;
  } else if (dayWord === 'once' || (dayWord !== undefined && DATE_RE.test(dayWord))) {
    if (dayWord === 'once') i++;
    const dateWord = words[i];
    if (dateWord !== undefined && DATE_RE.test(dateWord)) {
      const date = parseDate(normaliseDate(dateWord));
      if (!date) return fail(`"${dateWord}" is not a date: write \`YYYY-MM-DD\`, e.g. \`once 2026-12-24\`.`);
      const occ = occurrenceOn(
        { ...spec, rule: { kind: 'once', date: formatDate(date) } },
        date.y,
        date.m,
        date.d,
      );
      if (!occ || occ.end <= ctx.now)
        return fail(
          `The window on ${formatDate(date)} ${formatLocalTime(startMinute!)}-${formatLocalTime(endMinute!)} (${tz}) ${occ ? 'has already ended' : 'does not happen (the clocks skip that hour)'}: give a date to come, e.g. \`once ${defaultOnceDate(spec, ctx.now)}\`.`,
        );
      rule = { kind: 'once', date: formatDate(date) };
      i++;
    } else if (dateWord !== undefined && /^\d/.test(dateWord)) {
      return fail(`"${dateWord}" is not a date: write \`YYYY-MM-DD\`, e.g. \`once 2026-12-24\`.`);
    }
  }
  rule ??= { kind: 'once', date: defaultOnceDate(spec, ctx.now) };

  let action: FreezeAction = 'drain';
  const actionWord = words[i]?.toLowerCase();
  const actionGiven = actionWord !== undefined && ACTIONS.includes(actionWord);
  if (actionGiven) {
    action = actionWord as FreezeAction;
    i++;
  }

  const reasonWords = words.slice(i);
  const first = reasonWords[0];
  if (first !== undefined) {
    const lowered = first.toLowerCase();
    if (
      DAYS.includes(lowered) ||
      lowered === 'once' ||
      ACTIONS.includes(lowered) ||
      looksLikeZone(first) ||
      looksLikeRange(first)
    )
      return fail(
        `"${first}" is out of place: the order is \`${FREEZE_ADD_USAGE}\`, e.g. ${EXAMPLE}. Anything after the options is the reason.`,
      );
    // With the action typed out, what follows is plainly the reason.
    const meant = actionGiven ? undefined : NEAR_MISSES[lowered];
    if (meant)
      return fail(
        `"${first}" is not an option: did you mean \`${meant}\`? The form is \`${FREEZE_ADD_USAGE}\`. (To start the reason with that word, put \`${action}\` before it.)`,
      );
  }
  const reason = reasonWords.join(' ');
  if (reason.length > MAX_REASON_LENGTH)
    return fail(`The reason is ${reason.length} characters long; keep it under ${MAX_REASON_LENGTH}.`);
  const value: FreezeAdd = { startMinute: startMinute!, endMinute: endMinute!, tz, rule, action };
  if (target) value.target = target;
  if (reason) value.reason = reason;
  return { ok: true, value };
}

/** `2026-1-5` → `2026-01-05`. */
function normaliseDate(text: string): string {
  const [y, m, d] = text.split('-');
  return `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
}

/** Today in the zone when the start is still ahead there, else tomorrow. */
export function defaultOnceDate(
  spec: { startMinute: number; endMinute: number; tz: string },
  now: number,
): string {
  const today = localParts(spec.tz, now);
  const occ = occurrenceOn({ ...spec, rule: { kind: 'once', date: '' } }, today.year, today.month, today.day);
  const ahead = occ !== undefined && occ.start > now;
  const date = shiftDate(today.year, today.month, today.day, ahead ? 0 : 1);
  return formatDate(date);
}
