/**
 * Sends the app what Slack sends it: slash commands, button clicks, view submissions and Events API
 * callbacks, signed with the app's signing secret and posted to its /slack/events, timing the ack. The
 * bodies are built by dev/fakes/slack/signing.ts (which the sandbox uses too), so every suite speaks the
 * same wire format; which fake Slack receives the replies is the caller's business.
 */
import {
  type Actor,
  type ButtonClickInput,
  blockActionsPayload,
  eventCallbackBody,
  interactiveBody,
  type SlashCommandInput,
  signedHeaders,
  slashCommandBody,
  type ViewSubmissionInput,
  viewSubmissionPayload,
} from '../../dev/fakes/slack/signing.ts';
import { type Action, actionsIn, type Button } from './block-kit-reading.ts';

/** Where the app listens and the secret it verifies requests with. */
export interface AppEndpoint {
  url: string;
  signingSecret: string;
}

export interface SendOptions {
  /** Sign with another secret (forged requests). */
  signingSecret?: string;
  /** Sign for another moment, in seconds (replay protection). */
  timestampSeconds?: number;
  /** Send this x-slack-signature instead of the right one. */
  signature?: string;
  omitSignature?: boolean;
  contentType?: string;
}

export interface Sent {
  status: number;
  /** The raw ack body (empty for a plain ack). */
  text: string;
  /** Milliseconds from sending to the complete ack. */
  ackMs: number;
}

/** POSTs `body` to /slack/events, signed as Slack signs it unless told otherwise. */
export async function postSigned(app: AppEndpoint, body: string, o: SendOptions = {}): Promise<Sent> {
  const contentType = o.contentType ?? 'application/x-www-form-urlencoded';
  const headers: Record<string, string> = o.omitSignature
    ? { 'content-type': contentType }
    : signedHeaders(o.signingSecret ?? app.signingSecret, body, {
        ...(o.timestampSeconds !== undefined ? { timestampSeconds: o.timestampSeconds } : {}),
        contentType,
      });
  if (o.signature !== undefined) headers['x-slack-signature'] = o.signature;
  const t0 = performance.now();
  const res = await fetch(`${app.url}/slack/events`, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, text, ackMs: performance.now() - t0 };
}

export function sendCommand(app: AppEndpoint, input: SlashCommandInput, o?: SendOptions): Promise<Sent> {
  return postSigned(app, slashCommandBody(input), o);
}

export function sendClick(app: AppEndpoint, input: ButtonClickInput, o?: SendOptions): Promise<Sent> {
  return postSigned(app, interactiveBody(blockActionsPayload(input)), o);
}

/** A view_submission; `json` is the parsed ack when the app answered with one (response_action). */
export async function sendSubmission(
  app: AppEndpoint,
  input: ViewSubmissionInput,
  o?: SendOptions,
): Promise<Sent & { json: Record<string, unknown> | undefined }> {
  const sent = await postSigned(app, interactiveBody(viewSubmissionPayload(input)), o);
  let json: Record<string, unknown> | undefined;
  try {
    json = sent.text ? (JSON.parse(sent.text) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { ...sent, json };
}

export function sendEvent(
  app: AppEndpoint,
  input: { teamId: string; enterpriseId?: string; event: Record<string, unknown> },
  o: SendOptions = {},
): Promise<Sent> {
  return postSigned(app, eventCallbackBody(input), { ...o, contentType: 'application/json' });
}

/** A message with buttons, as the fake Slack that received it holds it. */
export interface MessageOnScreen {
  channel: string;
  ts: string;
  text?: unknown;
  blocks?: unknown;
}

/**
 * The click on a button of `message`: its action, block, value and label as rendered, so the app gets
 * back exactly what it drew. `value` overrides the button's own (tampering tests).
 */
export function clickOn(
  actor: Actor,
  message: MessageOnScreen,
  button: Pick<Button, 'action_id'> & Partial<Pick<Button, 'block_id' | 'value' | 'text'>>,
  rest: { responseUrl: string; triggerId?: string; value?: string; ephemeral?: boolean; apiAppId?: string },
): ButtonClickInput {
  const value = rest.value ?? button.value;
  return {
    ...actor,
    channelId: message.channel,
    messageTs: message.ts,
    message: {
      ...(typeof message.text === 'string' ? { text: message.text } : {}),
      blocks: Array.isArray(message.blocks) ? message.blocks : [],
    },
    actionId: button.action_id,
    ...(button.block_id ? { blockId: button.block_id } : {}),
    ...(value !== undefined ? { value } : {}),
    ...(button.text ? { buttonText: button.text } : {}),
    responseUrl: rest.responseUrl,
    ...(rest.triggerId ? { triggerId: rest.triggerId } : {}),
    ...(rest.ephemeral !== undefined ? { ephemeral: rest.ephemeral } : {}),
    ...(rest.apiAppId ? { apiAppId: rest.apiAppId } : {}),
  };
}

/** The element with this action_id on a message (a button, or an overflow or select), or undefined. */
export function actionOn(message: MessageOnScreen, actionId: string): Action | undefined {
  return actionsIn(message.blocks ?? []).find((b) => b.action_id === actionId);
}
