/**
 * The direct message to a feed's creator when Slack refuses the feed's channel for good (archived, the app
 * removed, the channel gone): what happened, and the exact command that starts the feed again. Pure.
 */
import { formatQueueRef } from '../../core/target.ts';
import type { Watch } from '../../watch/types.ts';
import type { SlackReply } from '../reply.ts';
import { section } from './kit.ts';

const WHY: Record<string, string> = {
  is_archived: 'the channel is archived',
  not_in_channel: 'the app is no longer in the channel',
  channel_not_found: 'the channel no longer exists, or the app cannot see it',
  restricted_action: 'the channel does not let the app post',
};

export function renderFeedPaused(watch: Watch, code: string): SlackReply {
  const queue = formatQueueRef(watch.target);
  const why = WHY[code] ?? `Slack refuses the app's messages there (\`${code}\`)`;
  const command = [
    '/mergequeue watch',
    queue,
    ...watch.topics,
    ...(watch.stuckMinutes !== undefined ? ['stuck', String(watch.stuckMinutes)] : []),
  ].join(' ');
  const text =
    `:double_vertical_bar: Your feed of \`${queue}\` in <#${watch.channelId}> is paused: ${why}. ` +
    `To start it again, add the app to the channel (\`/invite @mergequeue\`) if needed and type \`${command}\` there.`;
  return { text, blocks: [section(text)] };
}
