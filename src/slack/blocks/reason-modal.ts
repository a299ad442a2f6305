/**
 * The small modal that Pause and Drain on a status message open instead of a bare confirm dialog: the queue
 * named, what the change does, an optional reason, Confirm. Its private_metadata carries the click (which
 * button, on which message, showing what), so the submission acts exactly like the click would have, with
 * the same double-click key. The metadata comes back from Slack untrusted and is checked like a button value.
 */
import type { ModalView } from '@slack/types';
import type { StateCommandName } from '../grammars/grammar.ts';
import { esc, queueLabel } from './format.ts';
import { ACTIONS, type ButtonValue, CALLBACKS, encodeButtonValue, parseButtonValue } from './ids.ts';
import { plain, section } from './kit.ts';
import type { SubmissionValues } from './settings.ts';

export type ReasonAction = Extract<StateCommandName, 'pause' | 'drain'>;
export const REASON_BLOCK = 'reason';
export const REASON_INPUT = 'v';
/** As for a typed `/mergequeue pause … reason`. */
export const MAX_MODAL_REASON = 500;

/** The click the modal stands for. */
export interface ReasonClick {
  action: ReasonAction;
  value: ButtonValue;
  /** Where the status message is (announce there, redraw it). */
  channelId: string;
  messageTs?: string;
  /** The status message is ephemeral: it cannot be edited with chat.update. */
  ephemeral: boolean;
  /** Clicked on the Home tab (no channel or message): the submission publishes the Home again. */
  home?: boolean;
}

const WORDS: Record<ReasonAction, { title: string; does: (q: string) => string; submit: string }> = {
  pause: {
    title: 'Pause the queue',
    does: (q) => `No PRs in *${q}* will be tested or merged until someone resumes it.`,
    submit: 'Pause',
  },
  drain: {
    title: 'Drain the queue',
    does: (q) => `PRs already testing in *${q}* finish; no new PRs start until someone resumes it.`,
    submit: 'Drain',
  },
};

export function buildReasonModal(click: ReasonClick): ModalView {
  const w = WORDS[click.action];
  const meta = {
    a: click.action,
    b: encodeButtonValue(click.value),
    c: click.channelId,
    ...(click.messageTs ? { t: click.messageTs } : {}),
    ...(click.ephemeral ? { e: 1 } : {}),
    ...(click.home ? { h: 1 } : {}),
  };
  return {
    type: 'modal',
    callback_id: CALLBACKS.reason,
    title: plain(w.title, 24),
    submit: plain(w.submit, 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify(meta),
    blocks: [
      section(w.does(esc(queueLabel(click.value.ref)))),
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: plain('Reason (optional)', 100),
        hint: plain('Announced in the channel with the change, and kept in the audit log.', 150),
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          max_length: MAX_MODAL_REASON,
          placeholder: plain('e.g. main is broken, fixing', 150),
        },
      },
    ],
  };
}

export type ReasonSubmission =
  | { ok: true; click: ReasonClick; reason?: string }
  | { ok: false; errors: Record<string, string> };

const CHANNEL_RE = /^[A-Z0-9]{1,40}$/;
const TS_RE = /^\d{1,12}\.\d{1,8}$/;

export function parseReasonSubmission(values: SubmissionValues, privateMetadata: unknown): ReasonSubmission {
  const click = parseReasonMetadata(privateMetadata);
  if (!click)
    return {
      ok: false,
      errors: { [REASON_BLOCK]: 'This form could not be read. Close it and press the button again.' },
    };
  const reason = (values?.[REASON_BLOCK]?.[REASON_INPUT]?.value ?? '').trim();
  if (Array.from(reason).length > MAX_MODAL_REASON)
    return {
      ok: false,
      errors: { [REASON_BLOCK]: `Keep the reason to ${MAX_MODAL_REASON} characters or fewer.` },
    };
  return reason ? { ok: true, click, reason } : { ok: true, click };
}

function parseReasonMetadata(raw: unknown): ReasonClick | undefined {
  if (typeof raw !== 'string' || raw.length > 3000) return undefined;
  let d: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    d = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (d['a'] !== 'pause' && d['a'] !== 'drain') return undefined;
  const value = parseButtonValue(d['b']);
  if (!value) return undefined;
  const channelId = d['c'];
  const home = d['h'] === 1;
  // A Home tab click has no channel; any other click names the one its message is in.
  if (typeof channelId !== 'string' || !(CHANNEL_RE.test(channelId) || (home && channelId === '')))
    return undefined;
  const ts = d['t'];
  if (ts !== undefined && (typeof ts !== 'string' || !TS_RE.test(ts))) return undefined;
  const click: ReasonClick = { action: d['a'], value, channelId, ephemeral: d['e'] === 1 };
  if (home) click.home = true;
  if (typeof ts === 'string') click.messageTs = ts;
  return click;
}

/** The button a reason click stands for: its action id keys the double-click claim. */
export function reasonActionId(action: ReasonAction): string {
  return ACTIONS[action];
}
