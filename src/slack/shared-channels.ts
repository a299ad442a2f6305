/**
 * Whether a channel is shared with another organization (Slack Connect), for the watch service's rule that
 * only operators manage a shared channel's feeds (and, with whether it is private, for link unfurls):
 * conversations.info's `is_ext_shared` / `is_pending_ext_shared` / `is_shared` (see sharedWithAnotherOrg).
 */
import type { WebClient } from '@slack/web-api';
import type { ChannelFacts } from '../services/unfurls.ts';
import type { SharedChannels } from '../services/watch.ts';
import { slackAnswer } from './api-errors.ts';

interface SharingFlags {
  is_ext_shared?: boolean;
  is_pending_ext_shared?: boolean;
  is_shared?: boolean;
  is_org_shared?: boolean;
}

/**
 * Shared with another organization, or about to be (an invitation pending). Slack's `is_shared` is also true
 * for a channel shared between workspaces of one Enterprise Grid organization (`is_org_shared`): that one
 * holds only the organization's own people, so it is not shared in this sense.
 */
function sharedWithAnotherOrg(c: SharingFlags | undefined): boolean {
  if (!c) return false;
  return Boolean(c.is_ext_shared || c.is_pending_ext_shared || (c.is_shared && !c.is_org_shared));
}

/** Read through the request's client; a channel the bot cannot see (private, not invited) is not known to be shared. */
export function sharedChannels(client: WebClient): SharedChannels {
  return {
    async isShared(channelId) {
      try {
        const { channel } = await client.conversations.info({ channel: channelId });
        return sharedWithAnotherOrg(channel as SharingFlags | undefined);
      } catch (err) {
        // The bot is not in that private channel: its feed could not post there either, and people of
        // another organization are refused before this is asked.
        if (slackAnswer(err) === 'channel_not_found') return false;
        return undefined;
      }
    },
  };
}

/**
 * For link unfurls (services/unfurls.ts): whether the channel is shared with another organization, and
 * whether it is private. A channel the bot cannot see (a private conversation it was not invited to) reads as
 * private; undefined when Slack would not answer (nothing unfurls then).
 */
export function channelFacts(client: WebClient): ChannelFacts {
  return {
    async about(channelId) {
      try {
        const { channel } = await client.conversations.info({ channel: channelId });
        const c = channel as
          | (SharingFlags & { is_private?: boolean; is_im?: boolean; is_mpim?: boolean })
          | undefined;
        return {
          shared: sharedWithAnotherOrg(c),
          private: Boolean(c?.is_private || c?.is_im || c?.is_mpim),
        };
      } catch (err) {
        if (slackAnswer(err) === 'channel_not_found') return { shared: false, private: true };
        return undefined;
      }
    },
  };
}
