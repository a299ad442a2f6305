/**
 * Whether a channel is shared with another organization (Slack Connect), for the watch service's rule that
 * only operators manage a shared channel's feeds: conversations.info's `is_ext_shared` / `is_shared`.
 */
import type { WebClient } from '@slack/web-api';
import type { SharedChannels } from '../services/watch.ts';
import { slackAnswer } from './api-errors.ts';

/** Read through the request's client; a channel the bot cannot see (private, not invited) is not known to be shared. */
export function sharedChannels(client: WebClient): SharedChannels {
  return {
    async isShared(channelId) {
      try {
        const { channel } = await client.conversations.info({ channel: channelId });
        const c = channel as { is_ext_shared?: boolean; is_shared?: boolean } | undefined;
        return Boolean(c?.is_ext_shared || c?.is_shared);
      } catch (err) {
        // The bot is not in that private channel: its feed could not post there either, and people of
        // another organization are refused before this is asked.
        if (slackAnswer(err) === 'channel_not_found') return false;
        return undefined;
      }
    },
  };
}
