/**
 * A health digest's message: how one queue did over the digest's window (the last day, or the last 7 days
 * for a weekly one) beside the window before, in the words and charts of `stats` (stats.ts: every figure as
 * text, then the two charts). Pure: figures in, Block Kit out.
 */
import type { KnownBlock } from '@slack/types';
import { DEFAULT_BRANCH } from '../../core/target.ts';
import type { DigestMessage, Subscription } from '../../digest/index.ts';
import type { QueueStats } from '../../history/stats.ts';
import { esc, link, queueLabel, slackDate, trunkQueueUrl } from './format.ts';
import { context, header, section } from './kit.ts';
import { durationText, statsCharts, statsLines, withoutCharts } from './stats.ts';

export interface HealthDigestContext {
  scheduledAt: number;
  late: boolean;
  manual: boolean;
  appUrl?: string;
  orgSlug?: string;
}

export function renderHealthDigest(
  sub: Pick<Subscription, 'repo' | 'branch' | 'days' | 'tz'>,
  current: QueueStats,
  previous: QueueStats,
  ctx: HealthDigestContext,
): DigestMessage {
  const ref = { repo: sub.repo, branch: sub.branch ?? DEFAULT_BRANCH };
  const label = queueLabel(ref);
  const days = sub.days === 'weekly' ? 7 : 1;
  const span = days === 7 ? 'the last 7 days' : 'the last day';
  const view = {
    ref,
    days,
    tz: sub.tz,
    current,
    previous,
    past: { readback: 'done' as const, withV2: true },
  };
  const lines = statsLines(view);
  const when = ctx.manual
    ? 'Run by hand'
    : ctx.late
      ? `Late: it was due ${slackDate(ctx.scheduledAt)}`
      : slackDate(ctx.scheduledAt);
  const blocks: KnownBlock[] = [
    header(`Queue health · ${label}`.slice(0, 150)),
    section(`How *${esc(label)}* did over ${span}, beside the ${days === 7 ? '7 days' : 'day'} before:`),
    section(lines.join('\n')),
    ...(statsCharts(view) as unknown as KnownBlock[]),
    context(
      `${when} · days in ${esc(sub.tz)} · ${link(trunkQueueUrl(ctx.appUrl, ctx.orgSlug, ref), 'Open in Trunk')} · \`/mergequeue stats ${esc(label)}\` for any window`,
    ),
  ];
  const text = `Queue health of ${label} over ${span}: ${current.merged} merged, ${current.kicked} kicked, time in queue p50 ${durationText(current.timeInQueue.p50Ms)}`;
  return { text: esc(text), blocks };
}

/** The same digest without its charts (Slack answered invalid_blocks); undefined when it has none. */
export function healthDigestWithoutCharts(m: DigestMessage): DigestMessage | undefined {
  if (!m.blocks.some((b) => b.type === 'data_visualization')) return undefined;
  const plain = withoutCharts({ text: m.text, blocks: m.blocks as KnownBlock[] });
  return { text: plain.text ?? m.text, blocks: plain.blocks ?? [] };
}
