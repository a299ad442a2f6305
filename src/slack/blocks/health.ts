/**
 * Slow-queue alerts (topic `health`) as Slack messages: entering and leaving the slow tier, each with the
 * figures that decided it. Pure: plain events in, Block Kit out.
 */
import type { KnownBlock } from '@slack/types';
import type { SlowFigures, WatchEvent } from '../../watch/types.ts';
import type { SlackReply } from '../reply.ts';
import { esc, link, plural, queueLabel, slackDate, trunkQueueUrl } from './format.ts';
import { context, section } from './kit.ts';
import { durationText } from './stats.ts';

export type SlowEvent = Extract<WatchEvent, { kind: 'slow' }>;

/** The figures in words: the last 6 h beside the 14 days before. */
export function slowFiguresText(f: SlowFigures): string {
  const ratio =
    f.recentMedianMs !== undefined && f.baselineMedianMs
      ? ` (${(f.recentMedianMs / f.baselineMedianMs).toFixed(1)}×)`
      : '';
  return `median time in queue ${durationText(f.recentMedianMs)} over the last 6 h (${plural(f.recentCount, 'PR')} merged)${ratio}, against ${durationText(f.baselineMedianMs)} over the 14 days before (${plural(f.baselineCount, 'PR')})`;
}

/** One sentence: what happened, with the figures. */
export function slowSentence(e: SlowEvent): string {
  const label = `*${esc(queueLabel(e.target))}*`;
  if (e.phase === 'entered')
    return `${label} is slow: ${slowFiguresText(e.figures)}. Slow means over twice the 14 days' median and over 30 min.`;
  return `${label} is no longer slow: ${slowFiguresText(e.figures)}${e.since !== undefined ? `; it had been slow since ${slackDate(e.since)}` : ''}.`;
}

export function renderSlow(e: SlowEvent, l: { appUrl?: string; orgSlug?: string } = {}): SlackReply {
  const blocks: KnownBlock[] = [
    section(`${e.phase === 'entered' ? ':snail:' : ':white_check_mark:'} ${slowSentence(e)}`),
  ];
  const more = e.phase === 'entered' ? ` · \`/mergequeue stats ${queueLabel(e.target)}\` shows the week` : '';
  blocks.push(
    context(
      `${slackDate(e.at)} · ${link(trunkQueueUrl(l.appUrl, l.orgSlug, e.target), 'Open in Trunk')}${esc(more)}`,
    ),
  );
  const label = queueLabel(e.target);
  const text =
    e.phase === 'entered'
      ? `${label} is slow: median time in queue ${durationText(e.figures.recentMedianMs)} (usually ${durationText(e.figures.baselineMedianMs)})`
      : `${label} is no longer slow: median time in queue ${durationText(e.figures.recentMedianMs)}`;
  return { text: esc(text), blocks };
}
