/** What a command handler answers with; slack-app sends it through respond(). */
import type { KnownBlock } from '@slack/types';

export interface SlackReply {
  text: string;
  blocks?: KnownBlock[];
  response_type?: 'ephemeral' | 'in_channel';
}
