/** Small text helpers shared by the renderers: escaping, trimming to Slack's limits, dates and links. */
import { formatQueueRef, type QueueRef, type RepoRef } from '../../core/target.ts';

export const LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  sectionText: 3000,
  fieldText: 2000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  id: 255,
  contextElements: 10,
  modalTitle: 24,
  fallbackText: 3000,
} as const;

/** A word joiner: invisible, and enough to keep `@here` typed as plain text from ever reading as one. */
const WORD_JOINER = '\u2060';

/**
 * Escapes the three characters Slack's mrkdwn treats as control characters, so people's words (reasons,
 * logins, team names) never become a mention: `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^…>` and
 * `<@U…>` show as the text that was typed. Plain `@here`, `@channel` and `@everyone` get an invisible word
 * joiner after the `@`, so no client or setting (`link_names`) ever turns them into a broadcast.
 */
export function esc(text: unknown): string {
  return String(text ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/@(here|channel|everyone)\b/gi, `@${WORD_JOINER}$1`);
}

/** Cuts to at most `max` characters (by code point), ending with "…" when cut. */
export function trim(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  let out = chars.slice(0, Math.max(0, max - 1)).join('');
  // Code points can still be two UTF-16 units: keep cutting until it fits Slack's count.
  while (out.length > max - 1) out = Array.from(out).slice(0, -1).join('');
  return `${out}…`;
}

/** Escaped and trimmed, without cutting an escape sequence in half. */
export function escTrim(text: unknown, max: number): string {
  const e = esc(text);
  if (e.length <= max) return e;
  const cut = trim(e, max);
  // Drop a dangling partial entity like "&am…".
  return cut.replace(/&[a-z]{0,3}…$/, '…');
}

/** Inline code with backticks removed (they cannot be escaped inside code spans). */
export function code(text: unknown, max = 200): string {
  const t = escTrim(String(text ?? '').replaceAll('`', "'"), max);
  return t ? `\`${t}\`` : '';
}

/** `<!date^unix^{date_short_pretty} {time}|fallback>`: each reader sees their own local time. */
export function slackDate(ms: number, format = '{date_short_pretty} {time}'): string {
  if (!Number.isFinite(ms)) return 'an unknown time';
  const unix = Math.floor(ms / 1000);
  const fallback = new Date(unix * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/:\d\d\.\d{3}Z$/, ' UTC');
  return `<!date^${unix}^${format}|${fallback}>`;
}

/** Parses Trunk's timestamps (ISO 8601; some deployments send epoch seconds or ms). */
export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value !== 'string' || value === '') return undefined;
  if (/^\d+$/.test(value)) return parseTime(Number(value));
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}

/** A Trunk time as a Slack date, or the raw text (escaped) when it cannot be read. */
export function trunkDate(value: unknown): string {
  const t = parseTime(value);
  if (t !== undefined) return slackDate(t);
  return value ? esc(String(value)) : 'unknown';
}

/** A mrkdwn link; the label escaped, the URL accepted only if http(s). */
export function link(url: unknown, label: string): string {
  const safe = safeUrl(url);
  return safe ? `<${safe}|${esc(label).replaceAll('|', '¦')}>` : esc(label);
}

export function safeUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length > 2900) return undefined;
  try {
    const u = new URL(url);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    return u.toString().replaceAll('|', '%7C').replaceAll('>', '%3E').replaceAll('<', '%3C');
  } catch {
    return undefined;
  }
}

export function prUrl(repo: RepoRef, n: number): string | undefined {
  return safeUrl(`https://${repo.host}/${repo.owner}/${repo.name}/pull/${n}`);
}

/** The queue's page in Trunk's web app; the app's home when the org slug is unknown. */
export function trunkQueueUrl(
  appUrl: string | undefined,
  orgSlug: string | undefined,
  ref: QueueRef,
): string {
  const base = (safeUrl(appUrl) ?? 'https://app.trunk.io').replace(/\/+$/, '');
  if (!orgSlug) return base;
  const e = encodeURIComponent;
  return `${base}/${e(orgSlug)}/merge-queue/${e(ref.repo.owner)}/${e(ref.repo.name)}?branch=${e(ref.branch)}`;
}

export function trunkFlakyUrl(
  appUrl: string | undefined,
  orgSlug: string | undefined,
  repo: RepoRef,
): string {
  const base = (safeUrl(appUrl) ?? 'https://app.trunk.io').replace(/\/+$/, '');
  if (!orgSlug) return base;
  const e = encodeURIComponent;
  return `${base}/${e(orgSlug)}/flaky-tests/${e(repo.owner)}/${e(repo.name)}`;
}

export function queueLabel(ref: QueueRef): string {
  return formatQueueRef(ref);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

export function percent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '?';
  const p = fraction * 100;
  return `${p >= 10 || p === 0 ? Math.round(p) : p.toFixed(1)}%`;
}

/** Slack user mention, only for ids that look like Slack ids (never arbitrary text). */
export function mention(userId: string): string {
  return /^[UW][A-Z0-9]{1,30}$/.test(userId) ? `<@${userId}>` : esc(userId);
}
