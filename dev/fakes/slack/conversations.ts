/** conversations.* Web API methods: channel details and paged membership. */
import { channelFor, err, type Method, type SlackState, str } from './state.ts';

export function conversationMethods(s: SlackState): Record<string, Method> {
  return {
    'conversations.info': (args) => {
      const id = str(args['channel']);
      if (!id) return err('channel_not_found');
      // A channel the fake has not heard of is made up on first use, as chat.postMessage does.
      const c = channelFor(s, id);
      if (c.gone) return err('channel_not_found');
      return {
        body: {
          ok: true,
          channel: {
            id: c.id,
            name: c.name ?? c.id.toLowerCase(),
            is_channel: true,
            is_private: c.isPrivate ?? false,
            is_member: c.isMember ?? true,
            // Slack Connect: shared with another organization; org-shared: between one Grid org's workspaces.
            is_shared: Boolean(c.isShared || c.isOrgShared),
            is_ext_shared: c.isShared ?? false,
            is_org_shared: c.isOrgShared ?? false,
          },
        },
      };
    },
    'conversations.members': (args) => {
      const id = str(args['channel']);
      if (!id) return err('channel_not_found');
      const c = channelFor(s, id);
      if (c.gone) return err('channel_not_found');
      const all = c.members ?? [...s.users.keys()];
      // Paged like Slack: `limit` per page, an opaque cursor (here the offset), '' on the last page.
      const limit = Math.max(1, Math.min(1000, Number(str(args['limit']) ?? 100) || 100));
      const offset = Number(Buffer.from(str(args['cursor']) ?? '', 'base64').toString() || 0);
      const page = all.slice(offset, offset + limit);
      const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64') : '';
      return { body: { ok: true, members: page, response_metadata: { next_cursor: next } } };
    },
  };
}
