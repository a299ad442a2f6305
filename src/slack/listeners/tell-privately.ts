/**
 * What a modal's submission answers its submitter alone: a modal has no response_url, so the answer is an
 * ephemeral message in the channel the modal came from, or a direct message when the bot cannot post there.
 */
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from '../deps.ts';
import type { SlackReply } from '../reply.ts';

/** Whom to tell, and where the modal came from. */
export interface PrivateReplyTarget {
  workspaceId: string;
  /** The channel the modal was opened from: the ephemeral message goes there. */
  channel: string;
  userId: string;
}

/**
 * An ephemeral message in the channel the modal came from (Slack's answer to the person's own action); if
 * the bot cannot post there, a direct message through the app's Slack outbox (paced and retried with every
 * other message the app sends on its own).
 */
export async function tellPrivately(
  deps: SlackDeps,
  client: WebClient,
  to: PrivateReplyTarget,
  reply: SlackReply,
): Promise<void> {
  const message = { text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) };
  try {
    await client.chat.postEphemeral({ channel: to.channel, user: to.userId, ...message });
    return;
  } catch {
    // Counted by the instrumented fetch (observability/slack-metrics.ts); fall back to a DM.
  }
  const dm = await deps.outbox.post({ workspaceId: to.workspaceId, channel: to.userId }, message, 'notice');
  if (!dm.ok) deps.logger.warn({ code: dm.code }, 'could not tell the user the result of a modal');
}
