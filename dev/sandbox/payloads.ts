/**
 * The interactive payloads Slack would send for what a person did on the sandbox page: a click or a
 * selection on a message or in a modal (block_actions), and a modal submission (view_submission, with
 * view.state.values built from the form). Also the checks Slack's own client makes before it lets a modal
 * be submitted (required fields, number format and range), so the app sees only what Slack would send.
 */
import { newTriggerId, viewSubmissionPayload } from '../fakes/slack/signing.ts';
import { elementAt } from './public/blockkit.js';

type Json = Record<string, unknown>;

export interface ActorInfo {
  teamId: string;
  teamDomain: string;
  userId: string;
  userName: string;
  apiAppId: string;
}

interface Option {
  text: unknown;
  value: string;
  description?: unknown;
}

/** Slack fills in block_ids the app left out; the same position always gets the same id here. */
export function withBlockIds(blocks: unknown[] | undefined): Json[] {
  return (blocks ?? []).map((b, i) => {
    const block = b as Json;
    return typeof block['block_id'] === 'string' ? block : { ...block, block_id: `sbx${i}` };
  });
}

function optionsOf(el: Json): Option[] {
  const direct = Array.isArray(el['options']) ? (el['options'] as Option[]) : [];
  const grouped = Array.isArray(el['option_groups'])
    ? (el['option_groups'] as Array<{ options?: Option[] }>).flatMap((g) => g.options ?? [])
    : [];
  return [...direct, ...grouped];
}

function pickOptions(el: Json, values: readonly string[]): Option[] {
  const all = optionsOf(el);
  return values.map((v) => all.find((o) => o.value === v)).filter((o): o is Option => o !== undefined);
}

function actionTs(): string {
  return (Date.now() / 1000).toFixed(6);
}

export class UnknownElementError extends Error {}

/** The action object for the element at `path`, as Slack reports it. */
export function actionFor(blocks: Json[], path: string, selected: readonly string[] = []): Json {
  const found = elementAt(blocks, path);
  if (!found || typeof found.element['type'] !== 'string')
    throw new UnknownElementError(`Nothing to click at ${path}: the message changed. Try again.`);
  const { block, element } = found;
  const base: Json = {
    type: element['type'],
    action_id: element['action_id'],
    block_id: block['block_id'],
    action_ts: actionTs(),
  };
  switch (element['type']) {
    case 'button':
      return {
        ...base,
        text: element['text'],
        ...(element['value'] !== undefined ? { value: element['value'] } : {}),
        ...(element['style'] !== undefined ? { style: element['style'] } : {}),
      };
    case 'static_select':
    case 'overflow':
    case 'radio_buttons': {
      const [option] = pickOptions(element, selected);
      if (!option) throw new UnknownElementError('That option is no longer offered. Try again.');
      return { ...base, selected_option: option };
    }
    case 'multi_static_select':
    case 'checkboxes':
      return { ...base, selected_options: pickOptions(element, selected) };
    default:
      return base;
  }
}

export interface MessageActionInput extends ActorInfo {
  channelId: string;
  channelName: string;
  message: {
    ts: string;
    text?: string;
    blocks: Json[];
    botUserId: string;
    botId: string;
    ephemeral: boolean;
  };
  action: Json;
  responseUrl: string;
  triggerId: string;
}

/** block_actions for a click on a message (ephemeral messages carry no `message`, as in Slack). */
export function messageActionPayload(input: MessageActionInput): Json {
  const payload: Json = {
    type: 'block_actions',
    user: { id: input.userId, username: input.userName, name: input.userName, team_id: input.teamId },
    api_app_id: input.apiAppId,
    token: 'deprecated-verification-token',
    container: {
      type: 'message',
      message_ts: input.message.ts,
      channel_id: input.channelId,
      is_ephemeral: input.message.ephemeral,
    },
    trigger_id: input.triggerId,
    team: { id: input.teamId, domain: input.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: input.channelId, name: input.channelName },
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [input.action],
  };
  if (!input.message.ephemeral)
    payload['message'] = {
      type: 'message',
      subtype: 'bot_message',
      user: input.message.botUserId,
      bot_id: input.message.botId,
      ts: input.message.ts,
      text: input.message.text ?? '',
      blocks: input.message.blocks,
    };
  return payload;
}

export interface OpenView {
  id: string;
  view: Json;
  hash: string;
  rootId: string;
  previousId: string | null;
}

/** Page form values: data-path → text (inputs) or the chosen option values (selects, checkboxes). */
export type PageValues = Record<string, string | string[] | null | undefined>;

/** view.state.values: block_id → action_id → value, for every input block of the view. */
export function viewState(blocks: Json[], values: PageValues): Record<string, Record<string, Json>> {
  const state: Record<string, Record<string, Json>> = {};
  blocks.forEach((block, i) => {
    if (block['type'] !== 'input') return;
    const el = block['element'] as Json | undefined;
    if (!el || typeof el['action_id'] !== 'string') return;
    const raw = values[`${i}.e`];
    const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
    const text = typeof raw === 'string' ? raw : null;
    let value: Json;
    switch (el['type']) {
      case 'plain_text_input':
      case 'number_input':
        value = { type: el['type'], value: text === '' ? null : text };
        break;
      case 'static_select':
      case 'radio_buttons':
        value = { type: el['type'], selected_option: pickOptions(el, list)[0] ?? null };
        break;
      case 'multi_static_select':
      case 'checkboxes':
        value = { type: el['type'], selected_options: pickOptions(el, list) };
        break;
      default:
        value = { type: el['type'] };
    }
    state[String(block['block_id'])] = { [el['action_id']]: value };
  });
  return state;
}

/** What Slack's client says before submitting: block_id → message. Empty when the form may be sent. */
export function clientSideErrors(blocks: Json[], values: PageValues): Record<string, string> {
  const errors: Record<string, string> = {};
  blocks.forEach((block, i) => {
    if (block['type'] !== 'input') return;
    const el = (block['element'] ?? {}) as Json;
    const id = String(block['block_id']);
    const raw = values[`${i}.e`];
    const empty = raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0);
    if (empty) {
      if (block['optional'] !== true) errors[id] = 'Please complete this required field.';
      return;
    }
    if (el['type'] === 'number_input' && typeof raw === 'string') {
      const decimal = el['is_decimal_allowed'] === true;
      if (!(decimal ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(raw.trim())) {
        errors[id] = decimal ? 'Please enter a number.' : 'Please enter a whole number.';
        return;
      }
      const n = Number(raw);
      const min = el['min_value'] !== undefined ? Number(el['min_value']) : undefined;
      const max = el['max_value'] !== undefined ? Number(el['max_value']) : undefined;
      if (min !== undefined && n < min) errors[id] = `Please enter a number of ${min} or more.`;
      else if (max !== undefined && n > max) errors[id] = `Please enter a number of ${max} or less.`;
    }
    if (el['type'] === 'plain_text_input' && typeof raw === 'string') {
      const minLength = Number(el['min_length'] ?? 0);
      if (raw.length < minLength) errors[id] = `Please enter at least ${minLength} characters.`;
    }
  });
  return errors;
}

export interface SubmissionInput extends ActorInfo {
  view: OpenView;
  values: PageValues;
  botId: string;
}

/** view_submission with the full view Slack would send back, state included. */
export function submissionPayload(input: SubmissionInput): Json {
  const blocks = withBlockIds(input.view.view['blocks'] as unknown[]);
  const payload = viewSubmissionPayload({
    teamId: input.teamId,
    teamDomain: input.teamDomain,
    userId: input.userId,
    userName: input.userName,
    apiAppId: input.apiAppId,
    callbackId: String(input.view.view['callback_id'] ?? ''),
    viewId: input.view.id,
    privateMetadata: String(input.view.view['private_metadata'] ?? ''),
    values: viewState(blocks, input.values) as never,
    blocks,
    triggerId: newTriggerId(),
  });
  const v = input.view.view;
  payload['view'] = {
    ...(payload['view'] as Json),
    title: v['title'] ?? null,
    submit: v['submit'] ?? null,
    close: v['close'] ?? null,
    hash: input.view.hash,
    clear_on_close: v['clear_on_close'] ?? false,
    notify_on_close: v['notify_on_close'] ?? false,
    external_id: v['external_id'] ?? '',
    previous_view_id: input.view.previousId,
    root_view_id: input.view.rootId,
    bot_id: input.botId,
  };
  return payload;
}
