/**
 * What a modal's submission answers its submitter alone: a modal has no response_url, so the answer is an
 * ephemeral message in the channel the modal came from, or a direct message when the bot cannot post there.
 */
import type { WebClient } from '@slack/web-api';
import type { SlackDeps } from '../deps.ts';
import type { SlackReply } from '../reply.ts';

/** An ephemeral message in the channel the modal came from; a DM if the bot cannot post there. */
export async function tellPrivately(
  deps: SlackDeps,
  client: WebClient,
  channel: string,
  user: string,
  reply: SlackReply,
): Promise<void> {
  const args = { text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) };
  try {
    await client.chat.postEphemeral({ channel, user, ...args });
    return;
  } catch {
    // Counted by the instrumented fetch (observability/slack-metrics.ts); fall back to a DM.
  }
  try {
    await client.chat.postMessage({ channel: user, ...args });
  } catch (err) {
    deps.logger.warn({ err }, 'could not tell the user the result of a modal');
  }
}
