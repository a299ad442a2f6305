/** chat.* Web API methods: messages posted, updated, and shown to one person. */
import {
  channelFor,
  editMessage,
  err,
  identityOf,
  jsonField,
  type Method,
  nextTs,
  refusesBlocks,
  type SlackState,
  str,
} from './state.ts';
import type { FakeEphemeral, FakeMessage } from './types.ts';

export function chatMethods(s: SlackState): Record<string, Method> {
  return {
    'chat.postMessage': (args, token) => {
      const channel = str(args['channel']);
      if (!channel) return err('channel_not_found');
      if (!args['text'] && !args['blocks'] && !args['attachments']) return err('no_text');
      const c = channelFor(s, channel);
      if (c.isMember === false) return err('not_in_channel');
      if (refusesBlocks(s, jsonField(args['blocks']))) return err('invalid_blocks');
      const id = identityOf(s, token);
      const ts = nextTs(s);
      const m: FakeMessage = { channel, ts, via: 'api', history: [] };
      const text = str(args['text']);
      if (text !== undefined) m.text = text;
      const blocks = jsonField(args['blocks']);
      if (Array.isArray(blocks)) m.blocks = blocks;
      const threadTs = str(args['thread_ts']);
      if (threadTs) m.threadTs = threadTs;
      if (typeof id !== 'string') m.user = id.userId;
      s.messages.push(m);
      return {
        body: {
          ok: true,
          channel,
          ts,
          message: {
            type: 'message',
            text: m.text,
            blocks: m.blocks,
            ts,
            thread_ts: m.threadTs,
            user: m.user,
          },
        },
      };
    },
    'chat.update': (args) => {
      const channel = str(args['channel']);
      const ts = str(args['ts']);
      const m = s.messages.find((x) => x.channel === channel && x.ts === ts);
      if (!m) return err('message_not_found');
      if (refusesBlocks(s, jsonField(args['blocks']))) return err('invalid_blocks');
      editMessage(s, m, args);
      return { body: { ok: true, channel, ts, text: m.text, message: { text: m.text, blocks: m.blocks } } };
    },
    'chat.postEphemeral': (args) => {
      const channel = str(args['channel']);
      const user = str(args['user']);
      if (!channel) return err('channel_not_found');
      if (!user) return err('user_not_found');
      if (channelFor(s, channel).isMember === false) return err('not_in_channel');
      if (refusesBlocks(s, jsonField(args['blocks']))) return err('invalid_blocks');
      const e: FakeEphemeral = { channel, user, via: 'api', at: s.now() };
      const text = str(args['text']);
      if (text !== undefined) e.text = text;
      const blocks = jsonField(args['blocks']);
      if (Array.isArray(blocks)) e.blocks = blocks;
      s.ephemerals.push(e);
      return { body: { ok: true, message_ts: nextTs(s) } };
    },
  };
}
