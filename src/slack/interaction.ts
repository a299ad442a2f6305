/**
 * Small helpers every listener shares: which workspace a request belongs to, which queue a command means,
 * and how an answer reaches Slack (respond, or a channel post that falls back to respond when the bot is
 * not in the channel). Slack failures are logged and counted, never thrown at the person. (Whether the
 * person may change a queue is the queue service's question: services/queue.ts.)
 */
import type { RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { answersFirst } from '../observability/answers-first.ts';
import { isSlackApiError, slackAnswer } from './api-errors.ts';
import type { SlackDeps } from './deps.ts';
import { refusalOf } from './outbox/final-errors.ts';
import type { SlackReply } from './reply.ts';

export interface Who {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/** The team id, or the enterprise id for org-wide installs (how the store keys workspaces). */
export function workspaceIdOf(who: Who): string {
  if (who.isEnterpriseInstall && who.enterpriseId) return who.enterpriseId;
  return who.teamId ?? who.enterpriseId ?? '';
}

/** Sends a reply through response_url; ephemeral unless the reply says otherwise. */
export async function sendReply(
  deps: SlackDeps,
  respond: RespondFn,
  reply: SlackReply,
  extra: { replace_original?: boolean; delete_original?: boolean } = {},
): Promise<boolean> {
  try {
    await respond({
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      response_type: reply.response_type ?? 'ephemeral',
      ...(extra.replace_original === undefined ? {} : { replace_original: extra.replace_original }),
      ...(extra.delete_original === undefined ? {} : { delete_original: extra.delete_original }),
    });
    return true;
  } catch (err) {
    deps.metrics.slackApiErrors.inc({ method: 'response_url', error: errorCode(err) });
    deps.logger.warn({ err }, 'could not answer through response_url');
    return false;
  }
}

/**
 * Posts to the channel as the bot (so the message has a ts that chat.update can edit). If the bot
 * cannot post there (not invited to a private channel, a DM), answers in_channel through respond instead,
 * with `viaResponseUrl` when given: that copy has no ts, so it must not promise to keep itself current.
 */
export async function postToChannel(
  deps: SlackDeps,
  client: WebClient,
  channel: string,
  reply: SlackReply,
  respond: RespondFn | undefined,
  viaResponseUrl: SlackReply = reply,
): Promise<{ ts?: string; via: 'api' | 'response_url' | 'none' }> {
  // No channel (a click on the Home tab): the answer goes where respond sends it.
  if (!channel && respond) {
    const ok = await sendReply(deps, respond, { ...reply, response_type: 'in_channel' });
    return { via: ok ? 'response_url' : 'none' };
  }
  try {
    const res = await client.chat.postMessage({
      channel,
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    return res.ts ? { ts: res.ts, via: 'api' } : { via: 'api' };
  } catch (err) {
    const code = errorCode(err);
    // The channel is closed to the bot (the one list's `channel` refusals): answer in the channel through respond.
    if (respond && refusalOf(code) === 'channel') {
      const ok = await sendReply(deps, respond, { ...viaResponseUrl, response_type: 'in_channel' });
      return { via: ok ? 'response_url' : 'none' };
    }
    deps.logger.warn({ err, channel }, 'could not post to the channel');
    if (respond) {
      const ok = await sendReply(deps, respond, { ...viaResponseUrl, response_type: 'in_channel' });
      return { via: ok ? 'response_url' : 'none' };
    }
    return { via: 'none' };
  }
}

/** Edits a message in place; falls back to replace_original through response_url. */
export async function updateMessage(
  deps: SlackDeps,
  client: WebClient,
  channel: string | undefined,
  ts: string | undefined,
  reply: SlackReply,
  respond: RespondFn | undefined,
): Promise<boolean> {
  if (channel && ts) {
    try {
      await client.chat.update({
        channel,
        ts,
        text: reply.text,
        ...(reply.blocks ? { blocks: reply.blocks } : {}),
      });
      return true;
    } catch (err) {
      deps.logger.warn({ err }, 'chat.update failed; replacing through response_url');
    }
  }
  if (!respond) return false;
  return sendReply(deps, respond, { ...reply, response_type: 'in_channel' }, { replace_original: true });
}

/** Slack's error code of a failed Web API call (`not_in_channel`, `ratelimited`, …). */
export function errorCode(err: unknown): string {
  if (!isSlackApiError(err)) return 'unknown';
  return slackAnswer(err) ?? (typeof err.code === 'string' ? err.code : 'unknown');
}

/**
 * Called right after ack(): this request's work (store reads, Trunk call, rendering) waits until the
 * requests received meanwhile are answered (core/answers-first.ts), so a burst of commands is
 * acknowledged first and no ack waits behind another command's work.
 */
export function afterAck(): Promise<void> {
  return answersFirst();
}

/**
 * Answers a link_shared event with chat.unfurl: the one place the app unfurls. Like a reply, it answers what a
 * person just did (pasted a link), so it does not go through the outbox. A composer preview (Slack names no
 * channel) is addressed by `unfurl_id` and `source`, a posted message by `channel` and `ts`. A final Slack
 * error is logged and counted, never shown: the person sees their link without an unfurl.
 */
export async function unfurlLinks(
  deps: SlackDeps,
  client: WebClient,
  where: { channel: string; ts: string } | { unfurlId: string; source: string },
  unfurls: Record<string, { blocks: KnownBlock[] }>,
): Promise<boolean> {
  try {
    await client.chat.unfurl({
      ...('unfurlId' in where
        ? { unfurl_id: where.unfurlId, source: where.source as 'composer' | 'conversations_history' }
        : { channel: where.channel, ts: where.ts }),
      unfurls,
    } as Parameters<WebClient['chat']['unfurl']>[0]);
    return true;
  } catch (err) {
    deps.metrics.slackApiErrors.inc({ method: 'chat.unfurl', error: errorCode(err) });
    deps.logger.warn({ err }, 'chat.unfurl failed; the link stays without an unfurl');
    return false;
  }
}
