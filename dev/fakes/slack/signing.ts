/**
 * What Slack sends to an app, built and signed the way Slack does: v0 HMAC-SHA256 over
 * `v0:<timestamp>:<body>`, slash commands and interactivity as x-www-form-urlencoded (interactive
 * payloads as one `payload` JSON field), Events API as JSON. Used by tests, benchmarks and the sandbox.
 */
import { createHmac } from 'node:crypto';

/** x-slack-signature, x-slack-request-timestamp and content-type. */
export type SignedHeaders = Record<string, string>;

/** The v0 signature of a raw body at a timestamp (seconds). */
export function signature(signingSecret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${body}`).digest('hex');
  return `v0=${mac}`;
}

/** Headers for a body; `timestampSeconds` defaults to now (pass an old one to test replay protection). */
export function signedHeaders(
  signingSecret: string,
  body: string,
  opts: { timestampSeconds?: number; contentType?: string } = {},
): SignedHeaders {
  const ts = opts.timestampSeconds ?? Math.floor(Date.now() / 1000);
  return {
    'x-slack-signature': signature(signingSecret, ts, body),
    'x-slack-request-timestamp': String(ts),
    'content-type': opts.contentType ?? 'application/x-www-form-urlencoded',
  };
}

export interface Actor {
  teamId: string;
  userId: string;
  /** The user's own team when it is not the workspace's (a Slack Connect stranger); interactive payloads. */
  userTeamId?: string;
  userName?: string;
  enterpriseId?: string;
  teamDomain?: string;
}

export interface SlashCommandInput extends Actor {
  text: string;
  channelId: string;
  channelName?: string;
  command?: string;
  responseUrl: string;
  triggerId?: string;
  apiAppId?: string;
}

let triggerSeq = 0;
export function newTriggerId(): string {
  triggerSeq += 1;
  return `${Date.now()}.${triggerSeq}.${Math.random().toString(16).slice(2, 10)}`;
}

/** A slash command body exactly as Slack posts it. */
export function slashCommandBody(input: SlashCommandInput): string {
  const params = new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: input.teamId,
    team_domain: input.teamDomain ?? input.teamId.toLowerCase(),
    channel_id: input.channelId,
    channel_name: input.channelName ?? input.channelId.toLowerCase(),
    user_id: input.userId,
    user_name: input.userName ?? input.userId.toLowerCase(),
    command: input.command ?? '/mergequeue',
    text: input.text,
    api_app_id: input.apiAppId ?? 'A0FAKEAPP',
    is_enterprise_install: 'false',
    response_url: input.responseUrl,
    trigger_id: input.triggerId ?? newTriggerId(),
  });
  if (input.enterpriseId) params.set('enterprise_id', input.enterpriseId);
  return params.toString();
}

const userJson = (a: Actor) => ({
  id: a.userId,
  username: a.userName ?? a.userId.toLowerCase(),
  name: a.userName ?? a.userId.toLowerCase(),
  team_id: a.userTeamId ?? a.teamId,
});
const teamJson = (a: Actor) => ({ id: a.teamId, domain: a.teamDomain ?? a.teamId.toLowerCase() });

/** What every interactive payload starts with: its type, who sent it from where, and a trigger id. */
function envelope(type: string, a: Actor & { triggerId?: string; apiAppId?: string }) {
  return {
    type,
    team: teamJson(a),
    user: userJson(a),
    api_app_id: a.apiAppId ?? 'A0FAKEAPP',
    token: 'deprecated-verification-token',
    trigger_id: a.triggerId ?? newTriggerId(),
    enterprise: a.enterpriseId ? { id: a.enterpriseId } : null,
    is_enterprise_install: false,
  };
}

/** The clicked button as `actions[0]` of a block_actions payload. */
function clickedButton(i: { actionId: string; blockId?: string; value?: string; buttonText?: string }) {
  return {
    type: 'button',
    action_id: i.actionId,
    block_id: i.blockId ?? 'actions',
    text: { type: 'plain_text', text: i.buttonText ?? i.actionId, emoji: true },
    ...(i.value !== undefined ? { value: i.value } : {}),
    action_ts: (Date.now() / 1000).toFixed(6),
  };
}

export interface ButtonClickInput extends Actor {
  channelId: string;
  /** The message the button is on. */
  messageTs: string;
  message?: { text?: string; blocks?: unknown[] };
  actionId: string;
  blockId?: string;
  value?: string;
  buttonText?: string;
  responseUrl: string;
  triggerId?: string;
  apiAppId?: string;
  /** The message is ephemeral (only its recipient sees it; the app cannot chat.update it). */
  ephemeral?: boolean;
}

/** The `payload` JSON of a block_actions click on a message button. */
export function blockActionsPayload(input: ButtonClickInput): Record<string, unknown> {
  return {
    ...envelope('block_actions', input),
    container: {
      type: 'message',
      message_ts: input.messageTs,
      channel_id: input.channelId,
      is_ephemeral: input.ephemeral ?? false,
    },
    channel: { id: input.channelId, name: input.channelId.toLowerCase() },
    message: {
      type: 'message',
      ts: input.messageTs,
      text: input.message?.text ?? '',
      blocks: input.message?.blocks ?? [],
    },
    response_url: input.responseUrl,
    actions: [clickedButton(input)],
  };
}

export interface HomeClickInput extends Actor {
  /** The published Home view the button is on. */
  viewId: string;
  view?: Record<string, unknown>;
  actionId: string;
  blockId?: string;
  value?: string;
  triggerId?: string;
  apiAppId?: string;
}

/**
 * The `payload` JSON of a click on a button of the app's Home tab: the container is the view, and there
 * is no channel, no message and no response_url.
 */
export function homeActionsPayload(input: HomeClickInput): Record<string, unknown> {
  return {
    ...envelope('block_actions', input),
    container: { type: 'view', view_id: input.viewId },
    view: {
      ...viewJson(input, input.viewId, 'home'),
      blocks: input.view?.['blocks'] ?? [],
      private_metadata: '',
      callback_id: '',
      state: { values: {} },
    },
    actions: [clickedButton(input)],
  };
}

/** The fields every view in a payload carries. */
function viewJson(a: Actor & { apiAppId?: string }, id: string, type: 'home' | 'modal') {
  return {
    id,
    team_id: a.teamId,
    type,
    hash: 'fakehash',
    app_id: a.apiAppId ?? 'A0FAKEAPP',
    external_id: '',
    app_installed_team_id: a.teamId,
    bot_id: 'B0BOT',
  };
}

/** One input's value as Slack reports it in view.state.values. */
export type ViewStateValue =
  | { type: 'plain_text_input'; value: string | null }
  | { type: 'static_select'; selected_option: { value: string; text?: unknown } | null }
  | { type: 'checkboxes'; selected_options: Array<{ value: string }> }
  | { type: 'radio_buttons'; selected_option: { value: string } | null }
  | { type: 'number_input'; value: string | null }
  | { type: string; [k: string]: unknown };

export interface ViewSubmissionInput extends Actor {
  callbackId: string;
  viewId?: string;
  privateMetadata?: string;
  /** block_id → action_id → value */
  values: Record<string, Record<string, ViewStateValue>>;
  /** The submitted view's blocks (optional; Slack sends them). */
  blocks?: unknown[];
  triggerId?: string;
  apiAppId?: string;
}

/** The `payload` JSON of a modal submission. */
export function viewSubmissionPayload(input: ViewSubmissionInput): Record<string, unknown> {
  return {
    ...envelope('view_submission', input),
    view: {
      ...viewJson(input, input.viewId ?? 'V0FAKEVIEW', 'modal'),
      blocks: input.blocks ?? [],
      private_metadata: input.privateMetadata ?? '',
      callback_id: input.callbackId,
      state: { values: input.values },
      title: { type: 'plain_text', text: 'Modal' },
      close: null,
      submit: null,
      previous_view_id: null,
      root_view_id: input.viewId ?? 'V0FAKEVIEW',
    },
    response_urls: [],
  };
}

/** Interactive payloads travel as one form field named `payload`. */
export function interactiveBody(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export interface EventEnvelopeInput {
  teamId: string;
  enterpriseId?: string;
  event: Record<string, unknown>;
  apiAppId?: string;
  /** The app is installed organization-wide (`authorizations[].is_enterprise_install`). */
  enterpriseInstall?: boolean;
}

/** An Events API envelope (sent as JSON). */
export function eventCallbackBody(input: EventEnvelopeInput): string {
  return JSON.stringify(eventEnvelope(input));
}

/** The Events API envelope around an event, as an object. */
export function eventEnvelope(input: EventEnvelopeInput): Record<string, unknown> {
  return {
    token: 'deprecated-verification-token',
    team_id: input.teamId,
    ...(input.enterpriseId ? { enterprise_id: input.enterpriseId } : {}),
    api_app_id: input.apiAppId ?? 'A0FAKEAPP',
    event: { event_ts: (Date.now() / 1000).toFixed(6), ...input.event },
    type: 'event_callback',
    event_id: `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: input.enterpriseId ?? null,
        team_id: input.teamId,
        user_id: 'U0BOT',
        is_bot: true,
        is_enterprise_install: input.enterpriseInstall === true,
      },
    ],
    is_ext_shared_channel: false,
  };
}
