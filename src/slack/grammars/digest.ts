/**
 * The `/mergequeue digest …` grammar: the words after `digest`, parsed into a typed command (pure, never
 * throws). Bad input gets a message saying what was wrong and what to type, and changes nothing.
 */

import { canonicalTimeZone, parseLocalTime } from '../../core/local-time.ts';
import { parseTarget } from '../../core/target.ts';
import { type DigestRequest, MAX_TOP } from '../../digest/index.ts';
import { DIGEST_HELP } from './usage.ts';

/** What the grammar reads: a request for the digest domain, or a request for help. */
export type DigestCommand = { op: 'help' } | DigestRequest;

export type ParsedDigestCommand = { ok: true; command: DigestCommand } | { ok: false; error: string };

const ID_RE = /^d[a-z0-9]{5}$/;
/** Slack's escaped mentions, as slash commands deliver them: `<@U123|name>`, `<!subteam^S123|@team>`. */
const USER_MENTION = /^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$/;
const GROUP_MENTION = /^<!subteam\^(S[A-Z0-9]{2,})(?:\|[^>]*)?>$/;
const CODEOWNER_RE = /^@[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)?$|^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
/** A team or user name without its organization (`payments`): matches `@payments` and `@any-org/payments`. */
const BARE_OWNER_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
/** `acme/payments` is GitHub's team `@acme/payments` typed without its `@`: read as that code owner. */
const withAt = (word: string): string =>
  /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(word) ? `@${word}` : word;
const OWNER_EXAMPLE = '`/mergequeue digest add failing acme/web owner @acme/payments`';

function bad(error: string): ParsedDigestCommand {
  return { ok: false, error };
}

function parseId(word: string | undefined, usage: string): string | { error: string } {
  if (!word)
    return {
      error: `Say which digest, for example \`${usage}\`. \`/mergequeue digest list\` shows the ids.`,
    };
  const id = word.toLowerCase();
  if (!ID_RE.test(id))
    return {
      error: `\`${word.slice(0, 40)}\` is not a digest id (ids look like \`d7k2m9\`). \`/mergequeue digest list\` shows them.`,
    };
  return id;
}

function parseAdd(words: string[]): ParsedDigestCommand {
  const kindWord = words[0]?.toLowerCase();
  if (kindWord !== 'failing' && kindWord !== 'quarantined' && kindWord !== 'health')
    return bad(
      `Say which digest: \`failing\` or \`quarantined\` (tests), or \`health\` (a queue), for example \`/mergequeue digest add failing acme/web 09:00 Europe/Paris weekdays\` or \`/mergequeue digest add health acme/web:main 09:00 weekly\`.`,
    );
  const health = kindWord === 'health';
  const cmd: Extract<DigestCommand, { op: 'add' }> = { op: 'add', kind: kindWord };
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    const lower = word.toLowerCase();
    if (lower === 'owner') {
      if (health) return bad('A health digest is about a queue, not a code owner: leave out `owner`.');
      const owner = parseOwnerFilter(words[++i], cmd.owner);
      if (typeof owner !== 'string') return bad(owner.error);
      cmd.owner = owner;
      continue;
    }
    if (lower === 'daily' || lower === 'weekdays' || lower === 'weekly') {
      if (cmd.days)
        return bad(
          health ? 'Give `daily`, `weekdays` or `weekly` once.' : 'Give `daily` or `weekdays` once.',
        );
      if (lower === 'weekly' && !health)
        return bad(
          '`weekly` is for health digests (`digest add health …`); a test digest is `daily` or `weekdays`.',
        );
      cmd.days = lower;
      continue;
    }
    if (/^\d{1,2}[:.h]\d{2}$/.test(word) || /^\d{1,2}(am|pm)?$/i.test(word)) {
      const minute = parseLocalTime(word.replace(/[.h]/, ':'));
      if (minute === undefined || cmd.minuteOfDay !== undefined)
        return bad(
          `\`${word}\` is not a time of day. Write it as 24-hour HH:MM, for example \`09:00\` or \`17:30\`.`,
        );
      cmd.minuteOfDay = minute;
      continue;
    }
    // A timezone looks like Area/City too; a name Intl knows is read as a timezone
    // (write `github.com/Europe/London` for a repository that happens to be named like one).
    const tz = word.includes('/') || /^utc$/i.test(word) ? canonicalTimeZone(word) : undefined;
    if (tz && !cmd.tz && word.split('/').length <= 3 && !word.includes('.')) {
      cmd.tz = tz;
      continue;
    }
    const tzLike = /^[A-Z][A-Za-z_]+\/[A-Z][A-Za-z_+-]+/.test(word);
    if (word.includes('/') && (cmd.repo || cmd.minuteOfDay !== undefined) && tzLike)
      return bad(
        `\`${word.slice(0, 60)}\` is not a timezone this app knows. Use an IANA name such as \`Europe/Paris\`, \`America/New_York\` or \`UTC\`.`,
      );
    if (word.includes('/') && !cmd.repo) {
      const t = parseTarget(word);
      if (t.ok && t.value.repo && t.value.branch === undefined) {
        cmd.repo = t.value.repo;
        continue;
      }
      if (health && t.ok && t.value.repo) {
        cmd.repo = t.value.repo;
        if (t.value.branch !== undefined) cmd.branch = t.value.branch;
        continue;
      }
      return bad(
        `\`${word.slice(0, 60)}\` is not a repository. Write it as \`owner/repo\` (or \`gitlab.com/owner/repo\`), without a branch.`,
      );
    }
    return bad(
      `I did not understand \`${word.slice(0, 60)}\`. The form is \`/mergequeue digest add failing|quarantined [owner/repo] [HH:MM] [Area/City] [daily|weekdays] [owner @org/team]\`, or \`/mergequeue digest add health [owner/repo[:branch]] [HH:MM] [Area/City] [daily|weekdays|weekly]\`.`,
    );
  }
  return { ok: true, command: cmd };
}

/**
 * The word after `owner` in `digest add` (or `tests watch`: `what` names the thing, `example` shows the
 * command): a code owner as Trunk reports them, or a bare team name.
 */
export function parseOwnerFilter(
  typed: string | undefined,
  already: string | undefined,
  o: { what: string; example: string } = { what: 'digest', example: OWNER_EXAMPLE },
): string | { error: string } {
  if (already !== undefined) return { error: `Give \`owner\` once: a ${o.what} is for one code owner.` };
  const word = typed === undefined ? undefined : withAt(typed);
  if (!word) return { error: `Say whose tests the ${o.what} is for, for example ${o.example}.` };
  if (normaliseMention(word) || word.startsWith('<'))
    return {
      error: `\`owner\` takes a code owner as Trunk reports it (for example \`@acme/payments\`), not a Slack mention. To have a team's people mentioned, map it with \`/mergequeue digest owners @acme/payments @payments-team\`.`,
    };
  if (word.length > 200 || !(CODEOWNER_RE.test(word) || BARE_OWNER_RE.test(word)))
    return {
      error: `\`${word.slice(0, 60)}\` is not a code owner as Trunk reports them (for example \`@acme/payments\`, \`@alice\`, \`alice@example.com\`, or a team name like \`payments\`). Example: ${o.example}.`,
    };
  return word;
}

function parseSet(words: string[]): ParsedDigestCommand {
  const id = parseId(words[0], 'digest set d7k2m9 top 20');
  if (typeof id !== 'string') return bad(id.error);
  const option = words[1]?.toLowerCase();
  const value = words[2];
  const extra = words.length > 3 ? words.slice(3).join(' ') : '';
  if (extra) return bad(`Only one value is expected after \`${option}\`; remove \`${extra.slice(0, 40)}\`.`);
  switch (option) {
    case 'skip-empty': {
      const v = value?.toLowerCase();
      if (v !== 'on' && v !== 'off')
        return bad('Write `digest set <id> skip-empty on` or `… skip-empty off`.');
      return { ok: true, command: { op: 'set', id, option, value: v === 'on' } };
    }
    case 'top': {
      const n = value && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
      if (!(n >= 1 && n <= MAX_TOP))
        return bad(
          `\`top\` takes a number of tests from 1 to ${MAX_TOP}, for example \`digest set ${id} top 20\`.`,
        );
      return { ok: true, command: { op: 'set', id, option, value: n } };
    }
    case 'time': {
      const m = value ? parseLocalTime(value) : undefined;
      if (m === undefined)
        return bad(`\`time\` takes a 24-hour HH:MM time, for example \`digest set ${id} time 08:30\`.`);
      return { ok: true, command: { op: 'set', id, option, value: m } };
    }
    case 'tz':
    case 'timezone': {
      const tz = value ? canonicalTimeZone(value) : undefined;
      if (!tz)
        return bad(
          `\`${(value ?? '').slice(0, 60)}\` is not a timezone this app knows. Use an IANA name such as \`Europe/Paris\` or \`UTC\`.`,
        );
      return { ok: true, command: { op: 'set', id, option: 'tz', value: tz } };
    }
    case 'days': {
      const v = value?.toLowerCase();
      if (v !== 'daily' && v !== 'weekdays' && v !== 'weekly')
        return bad('`days` is `daily`, `weekdays` or (health digests) `weekly`.');
      return { ok: true, command: { op: 'set', id, option, value: v } };
    }
    default:
      return bad(
        'You can set `skip-empty on|off`, `top <n>`, `time HH:MM`, `tz Area/City` or `days daily|weekdays`, for example `digest set d7k2m9 top 20`.',
      );
  }
}

/** Normalises `<@U1|bob>` to `<@U1>` and `<!subteam^S1|@t>` to `<!subteam^S1>`; undefined when not a mention. */
export function normaliseMention(word: string): string | undefined {
  const u = USER_MENTION.exec(word);
  if (u) return `<@${u[1]}>`;
  const g = GROUP_MENTION.exec(word);
  if (g) return `<!subteam^${g[1]}>`;
  return undefined;
}

function parseOwners(words: string[]): ParsedDigestCommand {
  if (words.length === 0) return { ok: true, command: { op: 'owners' } };
  const owner = withAt(words[0]!);
  if (!CODEOWNER_RE.test(owner) || owner.length > 200)
    return bad(
      `\`${owner.slice(0, 60)}\` is not a code owner as Trunk reports them (for example \`@acme/payments\`, \`@alice\` or \`alice@example.com\`).`,
    );
  const rest = words.slice(1);
  if (rest.length === 0)
    return bad(
      `Say who to mention for \`${owner}\`, for example \`digest owners ${owner} @alice @payments-team\`, or \`none\`.`,
    );
  if (rest.length === 1 && rest[0]!.toLowerCase() === 'none')
    return { ok: true, command: { op: 'owners', owner: owner.toLowerCase(), mentions: [] } };
  const mentions: string[] = [];
  for (const w of rest) {
    const m = normaliseMention(w);
    if (!m)
      return bad(
        `\`${w.slice(0, 60)}\` is not a Slack user or user group mention. Pick them with @ in the message box, so Slack sends \`<@U…>\` or \`<!subteam^S…>\`.`,
      );
    if (!mentions.includes(m)) mentions.push(m);
  }
  if (mentions.length > 10) return bad('Mention at most 10 users or groups per code owner.');
  return { ok: true, command: { op: 'owners', owner: owner.toLowerCase(), mentions } };
}

/** Parses the words after `digest`. */
export function parseDigestCommand(args: readonly string[]): ParsedDigestCommand {
  const words = args.map((a) => a.trim()).filter(Boolean);
  const sub = words[0]?.toLowerCase();
  const rest = words.slice(1);
  switch (sub) {
    case undefined:
    case 'help':
      return { ok: true, command: { op: 'help' } };
    case 'add':
      return parseAdd(rest);
    case 'list':
    case 'ls':
      return rest.length
        ? bad('`digest list` takes nothing after it.')
        : { ok: true, command: { op: 'list' } };
    case 'remove':
    case 'rm':
    case 'delete':
    case 'run': {
      const id = parseId(rest[0], `digest ${sub} d7k2m9`);
      if (typeof id !== 'string') return bad(id.error);
      return { ok: true, command: { op: sub === 'run' ? 'run' : 'remove', id } };
    }
    case 'set':
      return parseSet(rest);
    case 'owners':
    case 'owner':
      return parseOwners(rest);
    default:
      return bad(`\`digest ${sub.slice(0, 30)}\` is not a digest command.\n${DIGEST_HELP}`);
  }
}
