/**
 * Reading what the app sent to Slack the way a person sees it: the visible text of a message, modal or
 * reply, the buttons on it, and the state.values Slack would send back for a modal. Tests assert on these
 * instead of on the exact Block Kit layout, so a renderer may move a line without breaking a test about
 * what people are told. block-kit.ts checks that the same payloads are valid Block Kit.
 */
import type { ViewStateValue } from '../../dev/fakes/slack/signing.ts';

type Json = Record<string, unknown>;

/** Keys whose string values a person sees (not ids, urls or button values). */
const VISIBLE_KEYS = new Set(['text', 'fallback', 'pretext', 'title', 'alt_text']);

/** Visible strings of a payload, breadth first (a message's fallback text, then its blocks in order). */
export function visibleText(v: unknown): string[] {
  const out: string[] = [];
  const queue: unknown[] = [v];
  while (queue.length) {
    const node = queue.shift();
    if (Array.isArray(node)) queue.push(...node);
    else if (node && typeof node === 'object') {
      for (const [k, x] of Object.entries(node)) {
        if (typeof x === 'string') {
          if (VISIBLE_KEYS.has(k)) out.push(x);
        } else if (x && typeof x === 'object') queue.push(x);
      }
    }
  }
  return out;
}

/**
 * The visible text of a message, reply or modal: its fallback text and its blocks, one string a line.
 * Only those two fields: a fake's record of a message also keeps earlier versions, which are not shown.
 */
export function textOf(message: { text?: unknown; blocks?: unknown } | undefined): string {
  if (!message) return '';
  return visibleText({ text: message.text, blocks: message.blocks }).join('\n');
}

/** Every string value in a payload (text, blocks, attachments, views, ids), so wording checks see all. */
export function allStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) allStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) allStrings(x, out);
  return out;
}

/** An interactive element (button, select, input…) as it sits in its block. */
export interface Action {
  type: string;
  action_id: string;
  /** The enclosing block's block_id, as Slack reports it in a click. */
  block_id: string | undefined;
  value: string | undefined;
  /** The label a person reads. */
  text: string;
  url: string | undefined;
  /** The element carries a Block Kit confirm dialog (Slack asks before the click reaches the app). */
  hasConfirm: boolean;
  /** The element itself, for checks on style, confirm wording and the like. */
  element: Json;
}
export type Button = Action;

/** Every element with an action_id, depth first in the order they are shown. */
export function actionsIn(body: unknown): Action[] {
  const out: Action[] = [];
  const walk = (v: unknown, blockId: string | undefined): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, blockId);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      const bid = typeof o['block_id'] === 'string' ? o['block_id'] : blockId;
      if (typeof o['action_id'] === 'string') {
        out.push({
          type: String(o['type'] ?? ''),
          action_id: o['action_id'],
          block_id: bid,
          value: typeof o['value'] === 'string' ? o['value'] : undefined,
          text: visibleText(o['text']).join(' ') || (typeof o['text'] === 'string' ? o['text'] : ''),
          url: typeof o['url'] === 'string' ? o['url'] : undefined,
          hasConfirm: Boolean(o['confirm'] && typeof o['confirm'] === 'object'),
          element: o,
        });
      }
      for (const x of Object.values(o)) walk(x, bid);
    }
  };
  walk(body, undefined);
  return out;
}

/** The buttons of a message or reply, in the order they are shown. */
export function buttonsIn(body: unknown): Button[] {
  return actionsIn(body).filter((a) => a.type === 'button');
}

/** The interactive element with this action_id, anywhere in the blocks. */
export function findAction(blocks: unknown, actionId: string): Json | undefined {
  return actionsIn(blocks).find((a) => a.action_id === actionId)?.element;
}

/**
 * view.state.values as Slack reports them for a modal a person submits: every input block with its
 * initial value, plus `changes` (block_id → the typed value). Tests change other fields in the result.
 */
export function stateFromView(
  view: Json,
  changes: Record<string, unknown> = {},
): Record<string, Record<string, ViewStateValue>> {
  const out: Record<string, Record<string, ViewStateValue>> = {};
  for (const block of (view['blocks'] as Json[] | undefined) ?? []) {
    if (block['type'] !== 'input') continue;
    const el = block['element'] as Json;
    const blockId = String(block['block_id']);
    const type = String(el['type']);
    let value: ViewStateValue;
    switch (type) {
      case 'static_select':
      case 'radio_buttons':
      case 'external_select':
        value = { type, selected_option: (el['initial_option'] as { value: string } | undefined) ?? null };
        break;
      case 'checkboxes':
      case 'multi_static_select':
        value = { type, selected_options: (el['initial_options'] as Array<{ value: string }>) ?? [] };
        break;
      case 'users_select':
        value = { type, selected_user: el['initial_user'] ?? null };
        break;
      case 'conversations_select':
      case 'channels_select':
        value = { type, selected_conversation: el['initial_conversation'] ?? null };
        break;
      default:
        value = { type, value: (el['initial_value'] as string | undefined) ?? null };
    }
    if (blockId in changes) value = { ...value, value: changes[blockId] };
    out[blockId] = { [String(el['action_id'])]: value };
  }
  return out;
}

/** Every interactive element with this action_id, in the order the blocks show them. */
export function findActions(blocks: unknown, actionId: string): Json[] {
  const found: Json[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === 'object') {
      const o = node as Json;
      if (o['action_id'] === actionId) found.push(o);
      for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
    }
  };
  walk(blocks);
  return found;
}
