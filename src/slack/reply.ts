/**
 * The one reply: every answer to a person's own action (a command, a click, a form, opening the Home,
 * pasting a link) reaches Slack through this module, as everything the app says on its own initiative goes
 * through the outbox (outbox/outbox.ts). Only these two call Slack's write methods
 * (test/production/request-context.test.ts). A reply answers at once, unpaced: the person is waiting.
 *
 * A failed write is logged here and never thrown at the person; Slack's error itself is counted once, by
 * the client's instrumented fetch (observability/slack-metrics.ts). What is closed for good is judged by the
 * outbox's one list (outbox/final-errors.ts): a channel the bot cannot post in falls back to response_url.
 *
 * `createReply` binds these to one request (its client and respond()): that is `context.reply` (context.ts).
 */
import type { RespondFn } from '@slack/bolt';
import type { KnownBlock, ModalView, View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Notifier } from '../core/notifier.ts';
import type { Logger } from '../observability/log.ts';
import { errorCode } from './api-errors.ts';
import { refusalOf } from './outbox/final-errors.ts';

/** What a command handler answers with; sent through respond() or posted. */
export interface SlackReply {
  text: string;
  blocks?: KnownBlock[];
  response_type?: 'ephemeral' | 'in_channel';
}

/** What the reply functions need: where to log, and the outbox for a private answer's DM fallback. */
export interface ReplyDeps {
  logger: Logger;
  outbox?: Pick<Notifier, 'post'>;
}

/** Options of a response_url answer. */
export interface RespondOptions {
  replace_original?: boolean;
  delete_original?: boolean;
}

/** Sends a reply through response_url; ephemeral unless the reply says otherwise. */
export async function sendReply(
  deps: ReplyDeps,
  respond: RespondFn,
  reply: SlackReply,
  extra: RespondOptions = {},
): Promise<boolean> {
  return logged(deps, 'could not answer through response_url', () =>
    respond({
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      response_type: reply.response_type ?? 'ephemeral',
      ...(extra.replace_original === undefined ? {} : { replace_original: extra.replace_original }),
      ...(extra.delete_original === undefined ? {} : { delete_original: extra.delete_original }),
    }),
  );
}

/**
 * Sends a reply holding charts through response_url; if Slack refuses its blocks (`invalid_blocks`: HTTP 400
 * from a response URL, or `ok: false` in its answer), sends `fallback` (the same answer without the charts).
 */
export async function sendChartReply(
  deps: ReplyDeps,
  respond: RespondFn,
  reply: SlackReply,
  fallback: SlackReply,
  extra: RespondOptions = {},
): Promise<boolean> {
  let refused = false;
  try {
    const res: unknown = await respond({
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      response_type: reply.response_type ?? 'ephemeral',
      ...(extra.replace_original === undefined ? {} : { replace_original: extra.replace_original }),
    });
    const body = await (res as { clone?: () => { json(): Promise<unknown> } })
      ?.clone?.()
      .json()
      .catch(() => undefined);
    refused = (body as { error?: unknown } | undefined)?.error === 'invalid_blocks';
  } catch (err) {
    // A response URL answers a refused block with HTTP 400 (Bolt does not hand its text back).
    refused = (err as { statusCode?: unknown })?.statusCode === 400;
    if (!refused) {
      deps.logger.warn({ err }, 'could not answer through response_url');
      return false;
    }
  }
  if (!refused) return true;
  deps.logger.info('Slack refused the charts of a reply; answered without them');
  return sendReply(deps, respond, fallback, extra);
}

/** Runs one write; a failure is logged with `failed` (Slack's error is counted by the client) and answers false. */
async function logged(deps: ReplyDeps, failed: string, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    deps.logger.warn({ err }, failed);
    return false;
  }
}

/**
 * Posts to the channel as the bot (so the message has a ts that chat.update can edit), in a thread when
 * `threadTs` is given. If the bot cannot post there (not invited to a private channel, a DM), answers
 * in_channel through respond instead, with `viaResponseUrl` when given: that copy has no ts, so it must not
 * promise to keep itself current.
 */
export async function postToChannel(
  deps: ReplyDeps,
  client: WebClient,
  channel: string,
  reply: SlackReply,
  respond: RespondFn | undefined,
  viaResponseUrl: SlackReply = reply,
  threadTs?: string,
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
      ...(threadTs ? { thread_ts: threadTs } : {}),
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

/** Edits a message in place; falls back to replace_original through response_url (when given). */
export async function updateMessage(
  deps: ReplyDeps,
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

/** An ephemeral message to one person in a channel; false (logged) when Slack would not take it. */
export async function postEphemeral(
  deps: ReplyDeps,
  client: WebClient,
  to: { channel: string; userId: string },
  reply: SlackReply,
  quiet = false,
): Promise<boolean> {
  try {
    await client.chat.postEphemeral({
      channel: to.channel,
      user: to.userId,
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
    });
    return true;
  } catch (err) {
    if (!quiet) deps.logger.warn({ err }, 'could not send an ephemeral answer');
    return false;
  }
}

/** Whom to tell privately, and where the modal came from. */
export interface PrivateReplyTarget {
  workspaceId: string;
  /** The channel the modal was opened from: the ephemeral message goes there. */
  channel: string;
  userId: string;
}

/**
 * A modal's answer to its submitter alone (a modal has no response_url): an ephemeral message in the
 * channel the modal came from; if the bot cannot post there, a direct message through the app's Slack
 * outbox (paced and retried with every other message the app sends on its own).
 */
export async function tellPrivately(
  deps: ReplyDeps,
  client: WebClient,
  to: PrivateReplyTarget,
  reply: SlackReply,
): Promise<void> {
  if (await postEphemeral(deps, client, to, reply, true)) return;
  if (!deps.outbox) return;
  const message = { text: reply.text, ...(reply.blocks ? { blocks: reply.blocks } : {}) };
  const dm = await deps.outbox.post({ workspaceId: to.workspaceId, channel: to.userId }, message, 'notice');
  if (!dm.ok) deps.logger.warn({ code: dm.code }, 'could not tell the user the result of a modal');
}

/** A modal opened, updated or pushed: its view id, or Slack's error code (logged). */
export type ModalResult = { ok: true; viewId?: string } | { ok: false; code: string };

/** Opens a modal for a trigger (it lives 3 s: open before anything slow). */
export async function openModal(
  deps: ReplyDeps,
  client: WebClient,
  triggerId: string,
  view: ModalView,
  what = 'a modal',
): Promise<ModalResult> {
  return shown(deps, `could not open ${what}`, () => client.views.open({ trigger_id: triggerId, view }));
}

/** Replaces an open modal's view (a placeholder filled in once Trunk answered). */
export async function updateModal(
  deps: ReplyDeps,
  client: WebClient,
  viewId: string,
  view: ModalView,
  what = 'a modal',
): Promise<boolean> {
  return logged(deps, `could not update ${what}`, () => client.views.update({ view_id: viewId, view }));
}

/** Pushes a view on top of an open modal's stack. */
export async function pushModal(
  deps: ReplyDeps,
  client: WebClient,
  triggerId: string,
  view: ModalView,
): Promise<ModalResult> {
  return shown(deps, 'could not push a modal view', () => client.views.push({ trigger_id: triggerId, view }));
}

/** A modal shown (opened or pushed): its view id, or Slack's error code, logged. */
async function shown(
  deps: ReplyDeps,
  failed: string,
  show: () => Promise<{ view?: { id?: string } }>,
): Promise<ModalResult> {
  try {
    const res = await show();
    return res.view?.id ? { ok: true, viewId: res.view.id } : { ok: true };
  } catch (err) {
    deps.logger.warn({ err }, failed);
    return { ok: false, code: errorCode(err) };
  }
}

/** Publishes a person's Home tab; false (logged) when Slack refused it. */
export async function publishView(
  deps: ReplyDeps,
  client: WebClient,
  userId: string,
  view: View,
): Promise<boolean> {
  return logged(deps, 'could not publish the Home tab', () =>
    client.views.publish({ user_id: userId, view }),
  );
}

/**
 * Answers a link_shared event with chat.unfurl: the one place the app unfurls. Like a reply, it answers what a
 * person just did (pasted a link), so it does not go through the outbox. A composer preview (Slack names no
 * channel) is addressed by `unfurl_id` and `source`, a posted message by `channel` and `ts`. A final Slack
 * error is logged, never shown: the person sees their link without an unfurl.
 */
export async function unfurlLinks(
  deps: ReplyDeps,
  client: WebClient,
  where: { channel: string; ts: string } | { unfurlId: string; source: string },
  unfurls: Record<string, { blocks: KnownBlock[] }>,
): Promise<boolean> {
  return logged(deps, 'chat.unfurl failed; the link stays without an unfurl', () =>
    client.chat.unfurl({
      ...('unfurlId' in where
        ? { unfurl_id: where.unfurlId, source: where.source as 'composer' | 'conversations_history' }
        : { channel: where.channel, ts: where.ts }),
      unfurls,
    } as Parameters<WebClient['chat']['unfurl']>[0]),
  );
}

/** The reply of one request, bound to its client and respond(): `context.reply` (slack/context.ts). */
export interface Reply {
  /** response_url: ephemeral unless the reply says otherwise. */
  respond(reply: SlackReply, extra?: RespondOptions): Promise<boolean>;
  /** response_url, a reply with charts: `fallback` (without them) if Slack refuses its blocks. */
  respondWithCharts(reply: SlackReply, fallback: SlackReply, extra?: RespondOptions): Promise<boolean>;
  post(
    channel: string,
    reply: SlackReply,
    viaResponseUrl?: SlackReply,
  ): Promise<{ ts?: string; via: 'api' | 'response_url' | 'none' }>;
  update(channel: string | undefined, ts: string | undefined, reply: SlackReply): Promise<boolean>;
  ephemeral(to: { channel: string; userId: string }, reply: SlackReply): Promise<boolean>;
  tellPrivately(to: PrivateReplyTarget, reply: SlackReply): Promise<void>;
  openModal(triggerId: string, view: ModalView, what?: string): Promise<ModalResult>;
  updateModal(viewId: string, view: ModalView, what?: string): Promise<boolean>;
  pushModal(triggerId: string, view: ModalView): Promise<ModalResult>;
  publishHome(userId: string, view: View): Promise<boolean>;
  unfurl(
    where: { channel: string; ts: string } | { unfurlId: string; source: string },
    unfurls: Record<string, { blocks: KnownBlock[] }>,
  ): Promise<boolean>;
}

export function createReply(deps: ReplyDeps, client: WebClient, respond: RespondFn | undefined): Reply {
  const noRespond = async () => false;
  return {
    respond: (reply, extra) => (respond ? sendReply(deps, respond, reply, extra) : noRespond()),
    respondWithCharts: (reply, fallback, extra) =>
      respond ? sendChartReply(deps, respond, reply, fallback, extra) : noRespond(),
    post: (channel, reply, via) => postToChannel(deps, client, channel, reply, respond, via),
    update: (channel, ts, reply) => updateMessage(deps, client, channel, ts, reply, respond),
    ephemeral: (to, reply) => postEphemeral(deps, client, to, reply),
    tellPrivately: (to, reply) => tellPrivately(deps, client, to, reply),
    openModal: (triggerId, view, what) => openModal(deps, client, triggerId, view, what),
    updateModal: (viewId, view, what) => updateModal(deps, client, viewId, view, what),
    pushModal: (triggerId, view) => pushModal(deps, client, triggerId, view),
    publishHome: (userId, view) => publishView(deps, client, userId, view),
    unfurl: (where, unfurls) => unfurlLinks(deps, client, where, unfurls),
  };
}
