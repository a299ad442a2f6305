/**
 * The next steps on one PR as buttons (Restart tests, Re-submit, Cancel, Open in Trunk), the values they
 * carry, and the words for a PR change: the channel announcement, a refusal, the Cancel confirmation.
 * `prActionButtons` is shared by every message about a PR (the `/mergequeue pr` reply, the author's note).
 */
import type { ActionsBlock, KnownBlock, ModalView } from '@slack/types';
import { formatQueueRef, type QueueRef } from '../../core/target.ts';
import { nextSteps, type PrAction, type PrChangeResult } from '../../queue/pull-requests.ts';
import type { SubmittedPullRequest } from '../../trunk/types.ts';
import type { SlackReply } from '../reply.ts';
import { renderChangeAnnouncement } from './announcement.ts';
import { renderRefusal } from './errors.ts';
import { escTrim, link, prUrl, queueLabel, trunkQueueUrl } from './format.ts';
import { ACTIONS, CALLBACKS, parseShownValue } from './ids.ts';
import { actions, button, context, plain, section } from './kit.ts';

/** What a PR button carries: the PR and the state the message showed when it was rendered. */
export interface PrButtonValue {
  ref: QueueRef;
  prNumber: number;
  /** PR state shown. */
  state: string;
  /** When the message was rendered (epoch ms): one rendering's buttons share it, so a double click is one. */
  renderedAt: number;
  /**
   * The buttons are on the author's note (a DM): the note is redrawn as a note, and a change is not
   * announced again in the DM, where the redrawn note already says who did what.
   */
  onNote?: boolean;
}

export function encodePrButtonValue(v: PrButtonValue): string {
  return JSON.stringify({
    t: formatQueueRef(v.ref),
    n: v.prNumber,
    s: v.state.slice(0, 40),
    v: v.renderedAt,
    ...(v.onNote ? { w: 'note' } : {}),
  });
}

/** Undefined for anything that is not a value this app produced. Never throws. */
export function parsePrButtonValue(raw: unknown): PrButtonValue | undefined {
  const base = parseShownValue(raw);
  if (!base) return undefined;
  const { n } = base.data;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 4294967295) return undefined;
  const value: PrButtonValue = { ref: base.ref, prNumber: n, state: base.state, renderedAt: base.renderedAt };
  if (base.data['w'] === 'note') value.onNote = true;
  return value;
}

/** Button action ids by PR action, and back. */
export const PR_BUTTON: Record<PrAction, string> = {
  restart: ACTIONS.prRestart,
  submit: ACTIONS.prResubmit,
  cancel: ACTIONS.prCancel,
};

const LABEL: Record<PrAction, string> = { restart: 'Restart tests', submit: 'Re-submit', cancel: 'Cancel' };

export interface PrButtonsInput {
  ref: QueueRef;
  pr: Pick<SubmittedPullRequest, 'prNumber' | 'state'>;
  renderedAt: number;
  appUrl?: string;
  orgSlug?: string;
  /** On the author's note (see PrButtonValue.onNote). */
  onNote?: boolean;
  /** Open in Trunk only: for a reader whose click could not act (a self-made link). */
  openOnly?: boolean;
  /** The actions to offer instead of those v1's state allows (the PR's story offers fewer). */
  steps?: readonly PrAction[];
}

/** The buttons that fit the PR's state now, then Open in Trunk (always). */
export function prActionButtons(input: PrButtonsInput): ActionsBlock {
  const state = String(input.pr.state ?? 'unknown');
  const value = encodePrButtonValue({
    ref: input.ref,
    prNumber: input.pr.prNumber,
    state,
    renderedAt: input.renderedAt,
    ...(input.onNote ? { onNote: true } : {}),
  });
  const steps = input.openOnly ? [] : (input.steps ?? nextSteps(input.pr.state));
  const elements = steps.map((a) =>
    button(LABEL[a], PR_BUTTON[a], { value, ...(a === 'restart' ? { style: 'primary' as const } : {}) }),
  );
  elements.push(
    button('Open in Trunk', ACTIONS.openTrunk, {
      url: trunkQueueUrl(input.appUrl, input.orgSlug, input.ref),
    }),
  );
  return actions(elements, `mq_pr_actions_${input.pr.prNumber}`);
}

const DONE: Record<PrAction, string> = {
  submit: 'submitted',
  cancel: 'cancelled',
  restart: 'restarted the tests of',
};

/** The channel announcement of a PR change, through the queue changes' announcement. */
export function renderPrAnnouncement(input: {
  result: Extract<PrChangeResult, { outcome: 'ok' }>;
  ref: QueueRef;
  prNumber: number;
  userId: string;
  at: number;
  reason?: string;
}): SlackReply {
  const { result, ref, prNumber } = input;
  const pr = result.after ?? result.before;
  const title = pr?.prTitle ? ` ${escTrim(pr.prTitle, 150)}` : '';
  const changes: Array<{ field: string; before?: string; after: string }> = [
    {
      field: 'state',
      before: stateWords(result.before?.state ?? 'not submitted'),
      after: stateWords(result.after?.state ?? 'unknown'),
    },
  ];
  if (input.result.action === 'submit' && result.after?.priorityName)
    changes.push({ field: 'priority', after: result.after.priorityName });
  return renderChangeAnnouncement({
    userId: input.userId,
    verb: DONE[result.action],
    subject: `${link(prUrl(ref.repo, prNumber), `#${prNumber}`)}${title} in *${escTrim(queueLabel(ref), 200)}*`,
    plainSubject: `#${prNumber} in ${queueLabel(ref)}`,
    ...(input.reason ? { reason: input.reason } : {}),
    changes,
    at: input.at,
    ...(result.confirmedBy === 'read_back'
      ? { note: "Trunk's answer was lost; the PR showed the change, so it was sent once" }
      : {}),
  });
}

/** The person's own answer after a change whose answer from Trunk was lost but which Trunk had applied. */
export function renderReadBack(
  result: Extract<PrChangeResult, { outcome: 'ok' }>,
  prNumber: number,
): SlackReply {
  const where =
    result.action === 'cancel'
      ? 'is out of the queue'
      : `is in the queue (${stateWords(result.after?.state ?? 'pending')})`;
  const text = `Trunk's answer was lost on the way, but #${prNumber} ${where}: Trunk had done it, so it was not sent again.`;
  return { text, blocks: [section(`:white_check_mark: ${escTrim(text, 2000)}`)], response_type: 'ephemeral' };
}

export function renderPrRefusal(action: PrAction, prNumber: number, because: string): SlackReply {
  const what = action === 'restart' ? `restart the tests of #${prNumber}` : `${action} #${prNumber}`;
  return renderRefusal(
    what,
    because,
    'An operator can do it for you, or link you to your GitHub login with `/mergequeue config people @you <login>`. Nothing was changed.',
  );
}

function stateWords(state: string): string {
  return String(state).replaceAll('_', ' ');
}

// ---- Cancel's confirmation ---------------------------------------------------------------------------

export const CANCEL_REASON = { block: 'mq_pr_cancel_reason', action: 'reason' } as const;

/** What the Cancel modal remembers of the click: the PR, the message to update, where to announce. */
export interface CancelMetadata {
  value: PrButtonValue;
  channelId: string;
  messageTs?: string;
  ephemeral: boolean;
  /** The clicked message's response_url: the only way to update an ephemeral message in place. */
  responseUrl?: string;
}

export function buildCancelModal(meta: CancelMetadata, pr: SubmittedPullRequest | undefined): ModalView {
  const n = meta.value.prNumber;
  const title = pr?.prTitle ? ` ${escTrim(pr.prTitle, 150)}` : '';
  const blocks: KnownBlock[] = [
    section(
      `Take ${link(prUrl(meta.value.ref.repo, n), `#${n}`)}${title} out of *${escTrim(queueLabel(meta.value.ref), 200)}*? Its tests stop; it can be submitted again later.`,
    ),
    {
      type: 'input',
      block_id: CANCEL_REASON.block,
      optional: true,
      label: plain('Reason (announced in the channel)', 2000),
      element: {
        type: 'plain_text_input',
        action_id: CANCEL_REASON.action,
        max_length: 500,
        placeholder: plain('e.g. needs another fix', 150),
      },
    },
    context('The cancellation is announced in the channel and audited.'),
  ];
  return {
    type: 'modal',
    callback_id: CALLBACKS.prCancel,
    title: plain(`Cancel #${n}`.slice(0, 24), 24),
    submit: plain('Cancel the PR', 24),
    close: plain('Keep it', 24),
    private_metadata: JSON.stringify({
      v: encodePrButtonValue(meta.value),
      c: meta.channelId,
      ...(meta.messageTs ? { ts: meta.messageTs } : {}),
      e: meta.ephemeral,
      ...(meta.responseUrl ? { u: meta.responseUrl } : {}),
    }),
    blocks,
  };
}

/** Undefined for metadata this app did not write. Never throws. */
export function parseCancelMetadata(raw: unknown): CancelMetadata | undefined {
  if (typeof raw !== 'string' || raw.length > 3000) return undefined;
  try {
    const d = JSON.parse(raw) as Record<string, unknown> | null;
    if (!d) return undefined;
    const value = parsePrButtonValue(d['v']);
    const channelId = d['c'];
    if (!value || typeof channelId !== 'string' || !/^[A-Z0-9]{1,40}$/.test(channelId)) return undefined;
    const meta: CancelMetadata = { value, channelId, ephemeral: d['e'] === true };
    if (typeof d['ts'] === 'string' && /^\d{1,12}\.\d{1,8}$/.test(d['ts'])) meta.messageTs = d['ts'];
    if (typeof d['u'] === 'string' && /^https?:\/\/\S{1,1000}$/.test(d['u'])) meta.responseUrl = d['u'];
    return meta;
  } catch {
    return undefined;
  }
}
