/**
 * A health digest's message: how one queue did over the digest's window (the last day, or the last 7 days
 * for a weekly one) beside the window before, every figure in words (the queue history's figures,
 * history/stats.ts). Pure: figures in, Block Kit out.
 */
import type { KnownBlock } from '@slack/types';
import type { DigestMessage, Subscription } from '../../digest/index.ts';
import type { QueueStats } from '../../history/stats.ts';
import { esc, link, plural, slackDate, trunkQueueUrl } from './format.ts';
import { formatDuration } from './health.ts';
import { context, header, section } from './kit.ts';

export interface HealthDigestContext {
  scheduledAt: number;
  late: boolean;
  manual: boolean;
  appUrl?: string;
  orgSlug?: string;
}

/** `42 (38 before, +4)`: a count beside the window before. */
function count(now: number, before: number): string {
  const d = now - before;
  return `*${now}* (${before} before${d === 0 ? '' : `, ${d > 0 ? '+' : '−'}${Math.abs(d)}`})`;
}

function duration(now: number | undefined, before: number | undefined): string {
  return `*${formatDuration(now)}* (${formatDuration(before)} before)`;
}

function pct(x: number | undefined): string {
  return x === undefined ? 'none' : `${Math.round(x * 1000) / 10} %`;
}

/** The figures as lines, each beside the window before. */
export function healthLines(now: QueueStats, before: QueueStats): string[] {
  const days = Math.max(1, Math.round((now.to - now.from) / 86_400_000));
  const lines = [
    `• Merged: ${count(now.merged, before.merged)}${days > 1 ? ` · ${(now.merged / days).toFixed(1)} a day` : ''}`,
    `• Kicked out: ${count(now.kicked, before.kicked)} · kick rate *${pct(now.kickRate)}* (${pct(before.kickRate)} before)`,
    `• Cancelled: ${count(now.cancelled, before.cancelled)}`,
    `• Time in queue: p50 ${duration(now.timeInQueue.p50Ms, before.timeInQueue.p50Ms)}, p90 ${duration(now.timeInQueue.p90Ms, before.timeInQueue.p90Ms)} · over ${plural(now.timeInQueue.known, 'merged PR')} whose whole stay is known`,
    `• Time testing: p50 ${duration(now.testing.p50Ms, before.testing.p50Ms)}`,
    `• Paused or draining: ${duration(now.pausedOrDrainingMs, before.pausedOrDrainingMs)}`,
  ];
  if (now.kicksByClass.length)
    lines.push(
      `• Kicks by class: ${now.kicksByClass.map((k) => `${esc(k.kickClass)} ${k.count}`).join(', ')}`,
    );
  if (now.topFailingChecks.length)
    lines.push(
      `• Top failing checks: ${now.topFailingChecks
        .slice(0, 5)
        .map((c) => `\`${esc(c.check.slice(0, 80))}\` ${c.count}`)
        .join(', ')}`,
    );
  if (now.autopilot.resubmitted || before.autopilot.resubmitted)
    lines.push(
      `• Re-submitted by the autopilot: ${count(now.autopilot.resubmitted, before.autopilot.resubmitted)}, ${now.autopilot.merged} of them merged`,
    );
  if (now.eta.count)
    lines.push(
      `• ETA error: p50 ${formatDuration(now.eta.p50Ms)}, p90 ${formatDuration(now.eta.p90Ms)} over ${plural(now.eta.count, 'estimate')}`,
    );
  return lines;
}

export function renderHealthDigest(
  sub: Pick<Subscription, 'repo' | 'branch' | 'days'>,
  now: QueueStats,
  before: QueueStats,
  ctx: HealthDigestContext,
): DigestMessage {
  const queue = { repo: sub.repo, branch: sub.branch ?? 'main' };
  const label = `${sub.repo.host === 'github.com' ? '' : `${sub.repo.host}/`}${sub.repo.owner}/${sub.repo.name}:${queue.branch}`;
  const span = sub.days === 'weekly' ? 'the last 7 days' : 'the last day';
  const blocks: KnownBlock[] = [
    header(`Queue health · ${label}`.slice(0, 150)),
    section(
      `How *${esc(label)}* did over ${span} (to ${slackDate(now.to)}), beside the ${sub.days === 'weekly' ? '7 days' : 'day'} before:`,
    ),
    section(healthLines(now, before).join('\n')),
    context(
      `${ctx.manual ? 'Run by hand' : ctx.late ? `Late: due ${slackDate(ctx.scheduledAt)}` : slackDate(ctx.scheduledAt)} · ${link(trunkQueueUrl(ctx.appUrl, ctx.orgSlug, queue), 'Open in Trunk')} · \`/mergequeue stats ${esc(label)}\` for the charts`,
    ),
  ];
  const text = `Queue health of ${label} over ${span}: ${now.merged} merged, ${now.kicked} kicked, time in queue p50 ${formatDuration(now.timeInQueue.p50Ms)}`;
  return { text: esc(text), blocks };
}
