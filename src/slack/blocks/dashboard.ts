/**
 * Dashboards in words: the answers to `dashboard` and `dashboard off`, the announcement in the channel, and
 * the canvas itself (canvas markdown: headings, lists, a table; no Block Kit). Pure.
 */
import type { QueueRef } from '../../core/target.ts';
import type { Dashboard } from '../../dashboard/index.ts';
import type { DashboardAnswer } from '../../services/dashboard.ts';
import type { SlackReply } from '../reply.ts';
import { esc, escTrim, mention, queueLabel, trunkQueueUrl } from './format.ts';
import { context, section } from './kit.ts';
import { durationText } from './stats.ts';

function reply(icon: string, main: string, hint?: string): SlackReply {
  return {
    text: escTrim(main.replace(/[*`]/g, ''), 2900),
    blocks: hint ? [section(`${icon} ${main}`), context(hint)] : [section(`${icon} ${main}`)],
    response_type: 'ephemeral',
  };
}

const where = (d: Dashboard) =>
  d.channelCanvas
    ? "this channel's canvas (its tab)"
    : 'a canvas shared with this channel (the channel already had its own canvas)';

/** The answer to the person who asked (refusals and errors are rendered by the shared error renderers). */
export function renderDashboardAnswer(
  a: Extract<
    DashboardAnswer,
    { answer: 'exists' | 'too_many' | 'canvas_refused' | 'created' | 'none' | 'stopped' }
  >,
): SlackReply {
  switch (a.answer) {
    case 'created':
      return reply(
        ':bar_chart:',
        `The dashboard of *${esc(queueLabel(a.dashboard.target))}* is in ${where(a.dashboard)}: its state, its PRs in order and the last 7 days, kept current.`,
        '`/mergequeue dashboard off` stops it.',
      );
    case 'exists':
      return reply(
        ':bar_chart:',
        `This channel already has a dashboard of *${esc(queueLabel(a.dashboard.target))}*: ${where(a.dashboard)}.`,
        '`/mergequeue dashboard off` stops it.',
      );
    case 'too_many':
      return reply(
        ':warning:',
        `This channel has ${a.max} dashboards already, the most it may hold.`,
        '`/mergequeue dashboard off <queue>` stops one.',
      );
    case 'canvas_refused':
      return a.code === 'missing_scope'
        ? reply(
            ':warning:',
            `Slack did not let the app make a canvas for *${esc(a.target)}*: it lacks the \`canvases:write\` permission.`,
            'An admin must re-authorise the app (install it again) so it gets the canvases permission. Nothing was changed.',
          )
        : reply(
            ':warning:',
            `Slack did not make the canvas for *${esc(a.target)}* (\`${esc(a.code)}\`).`,
            a.code === 'not_in_channel' || a.code === 'channel_not_found'
              ? 'Invite the app to this channel (`/invite @mergequeue`) and try again.'
              : 'Canvases may be turned off for this workspace or channel. Nothing was changed.',
          );
    case 'none':
      return reply(
        ':information_source:',
        `This channel has no dashboard of *${esc(a.target)}*.`,
        '`/mergequeue dashboard` starts one.',
      );
    case 'stopped':
      return reply(
        ':wave:',
        `The dashboard of *${esc(queueLabel(a.dashboard.target))}* is stopped: the canvas stays, but is no longer kept current.`,
      );
  }
}

/** Told in the channel when a dashboard starts or stops. */
export function renderDashboardAnnouncement(
  kind: 'started' | 'stopped',
  d: Dashboard,
  userId: string,
): SlackReply {
  const queue = `*${esc(queueLabel(d.target))}*`;
  const main =
    kind === 'started'
      ? `${mention(userId)} started a dashboard of ${queue} in ${where(d)}: its state, its PRs and the last 7 days, kept current.`
      : `${mention(userId)} stopped the dashboard of ${queue}: its canvas is no longer kept current.`;
  const hint =
    kind === 'started'
      ? '`/mergequeue dashboard off` stops it.'
      : `\`/mergequeue dashboard ${esc(queueLabel(d.target))}\` starts it again.`;
  return { ...reply(kind === 'started' ? ':bar_chart:' : ':wave:', main, hint), response_type: 'in_channel' };
}

/** One PR as the canvas lists it. */
export interface CanvasPr {
  number: number;
  title: string;
  author: string;
  state?: string;
}

/** The last 7 days' figures the canvas shows (the queue history's). */
export interface CanvasWeek {
  merged: number;
  p50Ms?: number;
  p90Ms?: number;
  /** Merged PRs whose whole stay is known (the percentiles are over these). */
  known: number;
  kicked?: number;
}

export interface CanvasInput {
  target: QueueRef;
  /** Undefined until the queue was read. */
  state?: string;
  prs: CanvasPr[];
  week?: CanvasWeek;
  slow?: { since: number; recentMedianMs?: number; baselineMedianMs?: number };
  appUrl?: string;
  orgSlug?: string;
}

/** Canvas markdown keeps `|` for tables and `*_` for emphasis: a PR title must not break out of its cell. */
function cell(text: string, max = 80): string {
  const t = text
    .replace(/[\r\n|]+/g, ' ')
    .replace(/_/g, ' ')
    .replace(/[*`~<>]/g, '');
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The canvas: the queue's state, its PRs in order, the last 7 days. Same input, same markdown. */
export function renderDashboardMarkdown(c: CanvasInput): string {
  const label = queueLabel(c.target);
  const out: string[] = [`# Merge queue ${cell(label, 120)}`];
  out.push(`**State:** ${c.state ? cell(c.state) : 'not read yet'} · **PRs in the queue:** ${c.prs.length}`);
  if (c.slow)
    out.push(
      `**Slow:** median time in queue ${durationText(c.slow.recentMedianMs)} over the last 6 h, usually ${durationText(c.slow.baselineMedianMs)}`,
    );
  out.push('', '## PRs in order');
  if (c.prs.length === 0) out.push('The queue is empty.');
  else {
    out.push('| # | PR | Author | State |', '| --- | --- | --- | --- |');
    const shown = c.prs.slice(0, 100);
    for (const [i, p] of shown.entries())
      out.push(
        `| ${i + 1} | #${p.number} ${cell(p.title)} | ${cell(p.author, 40)} | ${cell(p.state ?? '', 20)} |`,
      );
    if (c.prs.length > shown.length) out.push('', `…and ${c.prs.length - shown.length} more.`);
  }
  out.push('', '## Last 7 days');
  if (!c.week) out.push('No history yet.');
  else {
    out.push(`- Merged: ${c.week.merged}`);
    if (c.week.kicked !== undefined) out.push(`- Kicked out: ${c.week.kicked}`);
    out.push(
      `- Time in queue: p50 ${durationText(c.week.p50Ms)}, p90 ${durationText(c.week.p90Ms)} (over ${c.week.known} merged PRs whose whole stay is known)`,
    );
  }
  out.push('', `[Open in Trunk](${trunkQueueUrl(c.appUrl, c.orgSlug, c.target)})`);
  return out.join('\n');
}
