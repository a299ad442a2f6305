/** Tiny typed constructors for the blocks the renderers use; each enforces its own length limit. */
import type {
  ActionsBlock,
  ActionsBlockElement,
  Button,
  ContextBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
} from '@slack/types';
import { LIMITS, trim } from './format.ts';

export function plain(text: string, max: number = LIMITS.sectionText): PlainTextElement {
  return { type: 'plain_text', text: trim(text || ' ', max), emoji: true };
}

export function mrkdwn(text: string, max: number = LIMITS.sectionText): MrkdwnElement {
  return { type: 'mrkdwn', text: trim(text || ' ', max) };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(text, LIMITS.headerText) };
}

/** `text` must already be escaped mrkdwn. */
export function section(text: string, blockId?: string): SectionBlock {
  const b: SectionBlock = { type: 'section', text: mrkdwn(text) };
  if (blockId) b.block_id = blockId;
  return b;
}

export function fields(items: string[]): SectionBlock {
  return { type: 'section', fields: items.slice(0, 10).map((t) => mrkdwn(t, LIMITS.fieldText)) };
}

export function context(...texts: string[]): ContextBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => mrkdwn(t)) };
}

export function divider(): DividerBlock {
  return { type: 'divider' };
}

export function actions(elements: ActionsBlockElement[], blockId?: string): ActionsBlock {
  const b: ActionsBlock = { type: 'actions', elements: elements.slice(0, 25) };
  if (blockId) b.block_id = blockId;
  return b;
}

export interface ButtonOptions {
  value?: string;
  url?: string;
  style?: 'primary' | 'danger';
  confirm?: { title: string; text: string; confirm: string; deny?: string; style?: 'primary' | 'danger' };
}

export function button(text: string, actionId: string, o: ButtonOptions = {}): Button {
  const b: Button = { type: 'button', text: plain(text, LIMITS.buttonText), action_id: actionId };
  if (o.value) b.value = o.value;
  if (o.url) b.url = o.url;
  if (o.style) b.style = o.style;
  if (o.confirm) {
    b.confirm = {
      title: plain(o.confirm.title, 100),
      text: plain(o.confirm.text, 300),
      confirm: plain(o.confirm.confirm, 30),
      deny: plain(o.confirm.deny ?? 'Cancel', 30),
    };
    if (o.confirm.style) b.confirm.style = o.confirm.style;
  }
  return b;
}

/**
 * Splits lines into as few sections as fit the 3000-character limit, at most `maxBlocks` of them; lines that
 * do not fit are counted and reported with `moreLine(n)`.
 */
export function sectionsOfLines(
  lines: string[],
  maxBlocks: number,
  moreLine: (n: number) => string,
): KnownBlock[] {
  const limit = LIMITS.sectionText;
  const blocks: string[] = [];
  let current = '';
  let used = 0;
  for (const line of lines) {
    const l = trim(line, limit - 100);
    const candidate = current ? `${current}\n${l}` : l;
    if (candidate.length <= limit - 100) {
      current = candidate;
      used++;
      continue;
    }
    if (blocks.length + 1 >= maxBlocks) break;
    blocks.push(current);
    current = l;
    used++;
  }
  const rest = lines.length - used;
  if (rest > 0) current = current ? `${current}\n${moreLine(rest)}` : moreLine(rest);
  if (current) blocks.push(current);
  return blocks.map((t) => section(t));
}
