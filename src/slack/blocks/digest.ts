/**
 * Block Kit for digests: one header-and-summary message, then the listed tests as thread replies in
 * chunks that keep every message within Slack's limits (50 blocks, 3000 chars a section, 150 a header).
 * Pure functions: plain data in, messages out.
 */
import type { KnownBlock } from '@slack/types';
import { formatLocalTime } from '../../core/local-time.ts';
import type { Collection, FailingEntry, QuarantinedEntry } from '../../digest/collect.ts';
import { repoLabel } from '../../digest/describe.ts';
import type { DigestProblem, RenderContext } from '../../digest/surface.ts';
import type { Subscription } from '../../digest/types.ts';
import { trunkHint } from './errors.ts';
import { slackDate } from './format.ts';

/** Tests per thread reply; each is one section (plus owner headings for quarantined), far below 50 blocks. */
export const ENTRIES_PER_REPLY = 10;
const SECTION_MAX = 3000;
const HEADER_MAX = 150;

/** A digest message as Block Kit; the digest stores and posts it without reading the blocks. */
export interface RenderedDigestMessage {
  text: string;
  blocks: KnownBlock[];
}

export function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A mrkdwn link, or plain text when the URL is not a safe http(s) URL. */
function link(url: string | undefined, label: string): string {
  const text = escapeText(cut(label, 200)).replace(/\|/g, '¦');
  if (!url || url.length > 500 || !/^https?:\/\/[^\s<>|]+$/.test(url)) return text;
  return `<${url}|${text}>`;
}

export function trunkTestsUrl(appUrl: string, orgSlug: string, sub: Pick<Subscription, 'repo'>): string {
  const repo = encodeURIComponent(`${sub.repo.owner}/${sub.repo.name}`);
  return `${appUrl}/${encodeURIComponent(orgSlug)}/flaky-tests?repo=${repo}`;
}

function percent(fraction: number): string {
  const p = fraction * 100;
  return `${p > 0 && p < 1 ? p.toFixed(1) : Math.round(p)}%`;
}

function ownerText(owners: string[], mentions: Map<string, string[]>): string {
  const shown = owners.slice(0, 5).map((o) => {
    const m = mentions.get(o.toLowerCase());
    const code = `\`${escapeText(cut(o, 80)).replace(/`/g, "'")}\``;
    return m?.length ? `${m.join(' ')} (${code})` : code;
  });
  if (owners.length > 5) shown.push(`+${owners.length - 5} more`);
  return shown.join(', ');
}

function changeText(c: Collection, newWord: string, goneWord: string): string {
  if (!c.hasBaseline) return '';
  return ` (*${c.newCount}* ${newWord}, *${c.goneCount}* ${goneWord} since the last digest)`;
}

/** A team digest's owner, as its messages name it. */
function ownerLabel(sub: Subscription): string {
  return cut(sub.owner ?? '', 80);
}

/** A team digest with nothing in it: said plainly, naming the team. */
function nothingForTeam(sub: Subscription, c: Collection): string {
  const team = `\`${escapeText(ownerLabel(sub))}\``;
  const what =
    c.kind === 'failing'
      ? `no test it owns failed in \`${repoLabel(sub)}\` in the 24 hours before this digest`
      : `none of its tests are quarantined in \`${repoLabel(sub)}\``;
  return `Nothing to report for ${team}: ${what}. :tada:`;
}

function summaryText(sub: Subscription, c: Collection): string {
  if (sub.owner && c.total === 0) return nothingForTeam(sub, c);
  const owned = sub.owner ? ` owned by \`${escapeText(ownerLabel(sub))}\`` : '';
  if (c.kind === 'failing') {
    if (c.total === 0)
      return `No tests failed in \`${repoLabel(sub)}\` in the 24 hours before this digest. :tada:`;
    const q = c.quarantinedAmongFailing
      ? ` *${c.quarantinedAmongFailing}* of them ${c.quarantinedAmongFailing === 1 ? 'is' : 'are'} quarantined.`
      : '';
    return `*${c.total}* distinct test${c.total === 1 ? '' : 's'}${owned} failed in the 24 hours before this digest${changeText(c, 'new', 'recovered')}.${q}`;
  }
  if (c.total === 0) return `No tests are quarantined in \`${repoLabel(sub)}\`. :tada:`;
  return `*${c.total}* test${c.total === 1 ? '' : 's'}${owned} ${c.total === 1 ? 'is' : 'are'} quarantined${changeText(c, 'newly quarantined', 'released')}.`;
}

function headerMessage(sub: Subscription, c: Collection, ctx: RenderContext): RenderedDigestMessage {
  const team = sub.owner ? ` · owned by ${ownerLabel(sub)}` : '';
  const title = `${c.kind === 'failing' ? 'Failing tests' : 'Quarantined tests'} · ${repoLabel(sub)}${team}`;
  const when = `${sub.days === 'daily' ? 'Daily' : 'Weekday'} digest \`${sub.id}\` · ${formatLocalTime(sub.minuteOfDay)} ${sub.tz}`;
  const context: string[] = [when];
  if (ctx.manual) context.push('run on request');
  if (ctx.late)
    context.push(`:hourglass: late: due ${slackDate(ctx.scheduledAt)}, posted after the app was down`);
  else if (!ctx.manual) context.push(slackDate(ctx.scheduledAt));
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(title, HEADER_MAX), emoji: true } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: cut(context.join(' · '), SECTION_MAX) }] },
    { type: 'section', text: { type: 'mrkdwn', text: cut(summaryText(sub, c), SECTION_MAX) } },
  ];
  // A team digest's tests all share its owner: a tally by owner would only repeat the title.
  if (c.kind === 'quarantined' && c.byOwner.length > 0 && !sub.owner) {
    const lines = c.byOwner.slice(0, 15).map((o) => {
      const who =
        o.owner === ''
          ? '_no owner_'
          : o.owner === '*other*'
            ? '_other owners_'
            : ownerText([o.owner], ctx.mentions);
      return `• ${who}: ${o.count}${o.newCount ? ` (*${o.newCount} new*)` : ''}`;
    });
    if (c.byOwner.length > 15) lines.push(`…and ${c.byOwner.length - 15} more owners`);
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*By owner*\n${lines.join('\n')}`, SECTION_MAX) },
    });
  }
  if (c.kind === 'failing' && c.newTop.length > 0) {
    const names = c.newTop.map((e) => link(e.url, e.name));
    const more = c.newCount > names.length ? ` and ${c.newCount - names.length} more` : '';
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*Newly failing:* ${names.join(', ')}${more}`, SECTION_MAX) },
    });
  }
  if (c.gone.length > 0) {
    const word = c.kind === 'failing' ? 'Recovered' : 'Released from quarantine';
    const names = c.gone.slice(0, 10).map((g) => link(g.url, g.name));
    const more = c.gone.length > 10 ? ` and ${c.gone.length - 10} more` : '';
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: cut(`*${word}:* ${names.join(', ')}${more}`, SECTION_MAX) },
    });
  }
  const more =
    c.top.length > 0
      ? `The top ${c.top.length} ${c.kind === 'failing' ? 'by impact' : 'newest first'} are in the thread.`
      : '';
  blocks.push({
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: `${more} ${link(trunkTestsUrl(ctx.appUrl, ctx.orgSlug, sub), 'Everything else in Trunk')}`.trim(),
    },
  });
  const text =
    sub.owner && c.total === 0
      ? `${title}: nothing to report for ${ownerLabel(sub)}`
      : `${title}: ${c.total} ${c.kind === 'failing' ? 'failing' : 'quarantined'}${c.hasBaseline ? `, ${c.newCount} new` : ''}`;
  return { text: cut(text, 300), blocks };
}

function failingLine(e: FailingEntry, rank: number, ctx: RenderContext): string {
  const flags = [e.isNew ? ':new: new' : '', e.quarantined ? 'quarantined' : ''].filter(Boolean).join(' · ');
  const facts = [
    `${e.prsImpacted} PR${e.prsImpacted === 1 ? '' : 's'} impacted (7 d)`,
    `failure rate ${percent(e.rate24h)} (24 h), ${percent(e.rate7d)} (7 d)`,
  ];
  const lines = [`*${rank}.* ${link(e.url, e.name)}${flags ? `  ${flags}` : ''}`, facts.join(' · ')];
  const extra: string[] = [];
  if (e.owners.length) extra.push(`Owners: ${ownerText(e.owners, ctx.mentions)}`);
  extra.push(e.ticketUrl ? `Ticket: ${link(e.ticketUrl, 'open')}` : 'No ticket');
  lines.push(extra.join(' · '));
  return cut(lines.join('\n'), SECTION_MAX);
}

function quarantinedLine(e: QuarantinedEntry): string {
  const since =
    e.quarantinedAt && !Number.isNaN(Date.parse(e.quarantinedAt))
      ? ` · since ${slackDate(Date.parse(e.quarantinedAt))}`
      : '';
  return cut(`${e.isNew ? ':new: ' : ''}${escapeText(cut(e.name, 200))}${since}`, SECTION_MAX);
}

function replies(sub: Subscription, c: Collection, ctx: RenderContext): RenderedDigestMessage[] {
  const out: RenderedDigestMessage[] = [];
  if (c.kind === 'failing') {
    for (let i = 0; i < c.top.length; i += ENTRIES_PER_REPLY) {
      const chunk = c.top.slice(i, i + ENTRIES_PER_REPLY);
      out.push({
        text: `Failing tests ${i + 1}–${i + chunk.length} of ${c.total} in ${repoLabel(sub)}`,
        blocks: chunk.map((e, j) => ({
          type: 'section',
          text: { type: 'mrkdwn', text: failingLine(e, i + j + 1, ctx) },
        })),
      });
    }
    return out;
  }
  // Quarantined: grouped by first owner, groups with newly quarantined tests first.
  const groups = new Map<string, QuarantinedEntry[]>();
  for (const e of c.top) {
    const key = e.owners[0] ?? '';
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const ordered = [...groups.entries()].sort(
    (a, b) =>
      Number(b[1].some((e) => e.isNew)) - Number(a[1].some((e) => e.isNew)) || a[0].localeCompare(b[0]),
  );
  let blocks: KnownBlock[] = [];
  let entries = 0;
  const flush = () => {
    if (blocks.length) out.push({ text: `Quarantined tests in ${repoLabel(sub)}, by owner`, blocks });
    blocks = [];
    entries = 0;
  };
  for (const [owner, list] of ordered) {
    const head = `*${owner ? ownerText([owner], ctx.mentions) : '_no owner_'}*`;
    let lines: string[] = [];
    let size = head.length;
    const section = () => {
      if (lines.length)
        blocks.push({
          type: 'section',
          text: { type: 'mrkdwn', text: cut(`${head}\n${lines.join('\n')}`, SECTION_MAX) },
        });
      lines = [];
      size = head.length;
    };
    for (const e of list) {
      if (entries >= ENTRIES_PER_REPLY) {
        section();
        flush();
      }
      const line = `• ${quarantinedLine(e)}`;
      // A long list of one owner continues in another section rather than being cut.
      if (size + line.length + 1 > SECTION_MAX) section();
      lines.push(line);
      size += line.length + 1;
      entries++;
    }
    section();
  }
  flush();
  return out;
}

/** The header message, then the thread replies. */
export function renderDigest(sub: Subscription, c: Collection, ctx: RenderContext): RenderedDigestMessage[] {
  return [headerMessage(sub, c, ctx), ...replies(sub, c, ctx)];
}

/** One clear message in the channel when a digest cannot be made. */
export function renderFailure(
  sub: Subscription,
  problem: DigestProblem,
  scheduledAt: number,
): RenderedDigestMessage {
  const [what, hint] =
    problem.kind === 'no_trunk_token'
      ? ['this workspace has no Trunk API token.', 'An admin can store one with `/mergequeue connect`.']
      : [problem.error.userMessage, trunkHint(problem.error)];
  const text = `The ${sub.kind} tests digest \`${sub.id}\` for ${repoLabel(sub)} could not be made: ${what}`;
  return {
    text: cut(text, 300),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: cut(`:warning: ${escapeText(text)}\n${escapeText(hint)}`, SECTION_MAX),
        },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Due ${slackDate(scheduledAt)}` }] },
    ],
  };
}

/** Why a digest could not be posted, in a few words for the log and the run's outcome. */
export function describePostFailure(code: string): string {
  switch (code) {
    case 'token_revoked':
    case 'invalid_auth':
    case 'account_inactive':
    case 'not_authed':
      return 'the app was uninstalled or its token revoked';
    case 'no_installation':
      return 'the app is not installed in this workspace';
    case 'not_in_channel':
      return 'the app is not in this channel; invite it with /invite @mergequeue';
    case 'channel_not_found':
    case 'is_archived':
      return 'the channel is gone or archived';
    default:
      return `Slack answered ${code}`;
  }
}

/** What the creator should do, in words, for a final error (or a Slack that never came back). */
function fixFor(code: string, sub: Pick<Subscription, 'id' | 'channelId'>): string {
  const rerun = `then \`/mergequeue digest run ${sub.id}\``;
  switch (code) {
    case 'not_in_channel':
      return `invite @mergequeue to <#${sub.channelId}> (\`/invite @mergequeue\` there), ${rerun}.`;
    case 'channel_not_found':
    case 'is_archived':
      return `<#${sub.channelId}> is gone or archived: remove this digest with \`/mergequeue digest remove ${sub.id}\` and add it in a channel that is in use.`;
    case 'invalid_auth':
    case 'token_revoked':
    case 'account_inactive':
    case 'not_authed':
    case 'no_installation':
      return 'the app was uninstalled or its token revoked: ask a workspace admin to reinstall mergequeue.';
    case 'missing_scope':
      return 'the app lacks a permission it needs: ask a workspace admin to reinstall mergequeue.';
    default:
      return `Slack kept failing (${code}); ${rerun} once Slack is back.`;
  }
}

/** The direct message to a digest's creator when Slack refused it for good: what happened and the fix. */
export function renderCreatorNotice(sub: Pick<Subscription, 'id' | 'channelId'>, code: string): string {
  return `Your digest \`${sub.id}\` for <#${sub.channelId}> was not posted (Slack said \`${code}\`). To fix it: ${fixFor(code, sub)}`;
}
