/**
 * Link unfurls, both directions: chat.unfurl (the app attaches previews to a person's links) and the
 * link_shared event Slack sends the app when a person posts (or is composing) a link on one of its unfurl
 * domains, shaped after Slack's documented example (https://docs.slack.dev/reference/events/link_shared).
 *
 * chat.unfurl is checked the way Slack documents its arguments: `channel` and `ts` together, or `unfurl_id`
 * and `source` (`composer` | `conversations_history`) together; `unfurls` a JSON map of URL → an object
 * (blocks or attachment fields). Anything else answers `invalid_arguments` and is recorded as refused.
 */
import { err, jsonField, type Method, type SlackState, str } from './state.ts';

const SOURCES = new Set(['composer', 'conversations_history']);

export function unfurlMethods(s: SlackState): Record<string, Method> {
  return {
    'chat.unfurl': (args) => {
      const channel = str(args['channel']);
      const ts = str(args['ts']);
      const unfurlId = str(args['unfurl_id']);
      const source = str(args['source']);
      const byMessage = Boolean(channel && ts);
      const byId = Boolean(unfurlId && source);
      if (!byMessage && !byId) return err('invalid_arguments');
      if (source !== undefined && !SOURCES.has(source)) return err('invalid_arguments');
      const unfurls = jsonField(args['unfurls']);
      if (!unfurls || typeof unfurls !== 'object' || Array.isArray(unfurls)) return err('invalid_arguments');
      const entries = Object.entries(unfurls as Record<string, unknown>);
      if (entries.length === 0) return err('invalid_arguments');
      for (const [url, body] of entries) {
        if (!/^https?:\/\//.test(url)) return err('invalid_arguments');
        if (!body || typeof body !== 'object' || Array.isArray(body)) return err('invalid_arguments');
        const blocks = (body as { blocks?: unknown }).blocks;
        if (blocks !== undefined && !Array.isArray(blocks)) return err('invalid_arguments');
      }
      s.unfurls.push({
        ...(channel ? { channel } : {}),
        ...(ts ? { ts } : {}),
        ...(unfurlId ? { unfurlId } : {}),
        ...(source ? { source } : {}),
        unfurls: unfurls as Record<string, Record<string, unknown>>,
        at: s.now(),
      });
      return { body: { ok: true } };
    },
  };
}

export interface LinkSharedInput {
  user: string;
  /** The channel the message was posted in; leave out for a composer preview (Slack says `COMPOSER`). */
  channel?: string;
  /** The posted message's ts (a composer preview uses its unfurl id). */
  messageTs?: string;
  urls: string[];
  /** `is_bot_user_member`; default true. */
  botIsMember?: boolean;
  threadTs?: string;
}

/**
 * The `event` of a link_shared callback, field for field as Slack's example has it: `channel`,
 * `is_bot_user_member`, `user`, `message_ts`, `unfurl_id`, `thread_ts` (in a thread), `source`, `links` with
 * `domain` and `url`. Wrap it with signing.ts's eventCallbackBody and post it signed to /slack/events.
 */
export function linkSharedEvent(input: LinkSharedInput): Record<string, unknown> {
  const composer = input.channel === undefined;
  const messageTs = input.messageTs ?? `${(Date.now() / 1000).toFixed(6)}`;
  const channel = input.channel ?? 'COMPOSER';
  const unfurlId = composer
    ? `${input.user}-${Math.random().toString(16).slice(2, 10)}-unfurl`
    : `${channel}.${messageTs}.${Math.random().toString(16).slice(2, 18)}`;
  return {
    type: 'link_shared',
    channel,
    is_bot_user_member: input.botIsMember ?? true,
    user: input.user,
    // Slack sets message_ts to the unfurl id for a composer preview.
    message_ts: composer ? unfurlId : messageTs,
    unfurl_id: unfurlId,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    source: composer ? 'composer' : 'conversations_history',
    // Slack escapes `&`, `<`, `>` in these URLs as in message text: `?a=1&b=2` arrives as `?a=1&amp;b=2`.
    links: input.urls.map((url) => ({ domain: new URL(url).hostname, url: slackEscape(url) })),
  };
}

/** Slack's escaping of message text, which link_shared's URLs carry too. */
export function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
