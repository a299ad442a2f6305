/**
 * The live queue-status message: settings, enqueued PRs and the control buttons. The same function renders
 * the first post and every in-place update, so what a button carries always matches what the message shows.
 */
import type { ActionsBlockElement, KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { WindowView } from '../../freeze/index.ts';
import { type EnqueuedPullRequest, PRIORITIES, QUEUE_INT_MAX, type Queue } from '../../trunk/types.ts';
import type { MergeQueueOrder, QueuedPullRequest } from '../../trunk/v2/schemas.ts';
import type { SlackReply } from '../reply.ts';
import {
  code,
  esc,
  escTrim,
  link,
  mention,
  parseTime,
  plural,
  prUrl,
  queueLabel,
  slackDate,
  trunkQueueUrl,
} from './format.ts';
import { freezeStatusLine } from './freeze.ts';
import { ACTIONS, encodeButtonValue } from './ids.ts';
import { actions, button, context, divider, fields, header, section, sectionsOfLines } from './kit.ts';

/** The "who did what" line shown under the status after a click. */
export interface LastAction {
  userId: string;
  /** Past tense, e.g. `paused`, `set concurrency to 3 on`, `refreshed`. */
  verb: string;
  at: number;
  reason?: string;
  /** A note for outcomes that changed nothing, e.g. "already paused". */
  note?: string;
}

export interface StatusInput {
  ref: QueueRef;
  queue: Queue;
  /** Epoch ms; carried in button values so one rendering's buttons count once. */
  renderedAt: number;
  appUrl?: string;
  orgSlug?: string;
  lastAction?: LastAction;
  /** PR lines listed before "and N more"; default 15. */
  maxPrs?: number;
  /** The queue's open freeze window, else its next one (freeze/nextOrActiveWindow). */
  freeze?: StatusFreeze;
  /** A live status message (it keeps itself current), or one whose live period has ended. */
  live?: 'live' | 'ended';
  /**
   * Trunk's dispatch order (v2, when the workspace has a key): the PRs are listed in it — batches testing,
   * then pending with what each waits behind, then awaiting admission — instead of v1's list.
   */
  order?: MergeQueueOrder;
}

export type StatusFreeze = WindowView & { current: NonNullable<WindowView['current']> };

export const STATE_EMOJI: Record<string, string> = {
  running: ':large_green_circle:',
  paused: ':double_vertical_bar:',
  draining: ':hourglass_flowing_sand:',
  switching_modes: ':arrows_counterclockwise:',
};

export function stateLabel(state: string): string {
  const s = String(state).toLowerCase();
  return `${STATE_EMOJI[s] ?? ':grey_question:'} ${esc(s.replaceAll('_', ' ') || 'unknown')}`;
}

function onOff(v: unknown): string {
  return v === true ? 'on' : v === false ? 'off' : esc(String(v));
}

/** Integer settings may read 0, meaning off. */
function intOrOff(n: unknown, unit = ''): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return 'unknown';
  return n <= 0 ? 'off' : `${n}${unit}`;
}

export function priorityLabel(pr: Pick<EnqueuedPullRequest, 'priorityName' | 'priorityValue'>): string {
  if (pr.priorityName) return esc(pr.priorityName.toLowerCase());
  const byValue = Object.entries(PRIORITIES).find(([, v]) => v === pr.priorityValue);
  return byValue ? byValue[0] : `priority ${esc(String(pr.priorityValue))}`;
}

export function requiredStatusesText(list: readonly string[] | null | undefined, max = 1500): string {
  const l = list ?? [];
  if (l.length === 0) return 'from branch protection or the repo config';
  const shown: string[] = [];
  let len = 0;
  for (const s of l) {
    const c = code(s, 100);
    if (len + c.length + 2 > max) break;
    shown.push(c);
    len += c.length + 2;
  }
  const more = l.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more} more` : '');
}

export function prLine(ref: QueueRef, pr: EnqueuedPullRequest): string {
  const n = Number.isFinite(pr.prNumber) ? pr.prNumber : 0;
  const since = parseTime(pr.stateChangedAt);
  const parts = [
    `${link(prUrl(ref.repo, n), `#${n}`)} ${escTrim(pr.prTitle || '(no title)', 100)}`,
    `by ${escTrim(pr.prAuthor || 'unknown', 60)}`,
    priorityLabel(pr),
  ];
  if (pr.skipTheLine) parts.push('skips the line');
  if (pr.state) parts.push(esc(String(pr.state).replaceAll('_', ' ')));
  if (since !== undefined) parts.push(`since ${slackDate(since)}`);
  return `• ${parts.join(' · ')}`;
}

function queuedText(ref: QueueRef, pr: QueuedPullRequest, v1: Map<number, EnqueuedPullRequest>): string {
  const known = v1.get(pr.number);
  const parts = [
    `${link(pr.url ?? prUrl(ref.repo, pr.number), `#${pr.number}`)} ${escTrim(pr.title || known?.prTitle || '(no title)', 100)}`,
  ];
  if (known?.prAuthor) parts.push(`by ${escTrim(known.prAuthor, 60)}`);
  if (known) parts.push(priorityLabel(known));
  if (known?.skipTheLine) parts.push('skips the line');
  return parts.join(' · ');
}

function numbers(prs: readonly QueuedPullRequest[], max = 5): string {
  const shown = prs.slice(0, max).map((p) => `#${p.number}`);
  return shown.join(', ') + (prs.length > max ? ` and ${prs.length - max} more` : '');
}

/**
 * The PR list in Trunk's dispatch order: group headings, then one line per PR (at most `max`; the count of
 * the rest is answered). A PR v1 lists that the order leaves out (Trunk omits PRs not ready yet) is listed
 * last, so nothing in the queue disappears from the message.
 */
export function orderLines(
  ref: QueueRef,
  order: MergeQueueOrder,
  v1Prs: readonly EnqueuedPullRequest[],
  max: number,
): { lines: string[]; total: number; hidden: number } {
  const v1 = new Map(v1Prs.map((p) => [p.prNumber, p]));
  const groups: Array<{ heading: string; items: string[] }> = [];
  const seen = new Set<number>();
  const testing = order.batches.flatMap((b, i) =>
    b.pullRequests.map((p) => {
      seen.add(p.number);
      const batch = order.batches.length > 1 || b.pullRequests.length > 1 ? `batch ${i + 1}` : '';
      const notes = [batch, b.isBisection ? 'tested alone after its batch failed' : ''].filter(Boolean);
      return `• ${queuedText(ref, p, v1)}${notes.length > 0 ? ` · ${notes.join(', ')}` : ''}`;
    }),
  );
  if (testing.length > 0) groups.push({ heading: '*Testing*', items: testing });
  const pending = order.pending.map((item) => {
    seen.add(item.pullRequest.number);
    const held = item.schedulability === 'heldBehindFailure';
    const after =
      held && item.heldBy.length > 0
        ? `held behind the failure of ${numbers(item.heldBy)}`
        : item.directlyAhead.length > 0
          ? `waits behind ${numbers(item.directlyAhead)}`
          : held
            ? 'held behind a failure ahead of it'
            : 'next to be tested';
    return `• ${queuedText(ref, item.pullRequest, v1)} · ${after}`;
  });
  if (pending.length > 0) groups.push({ heading: '*Waiting to be tested*', items: pending });
  const admission = order.awaitingAdmission.map((p) => {
    seen.add(p.number);
    return `• ${queuedText(ref, p, v1)}`;
  });
  const admissionTotal = Math.max(order.awaitingAdmissionTotal ?? 0, admission.length);
  if (admission.length > 0)
    groups.push({
      heading: `*Awaiting admission${admissionTotal > admission.length ? ` (${admissionTotal})` : ''}*`,
      items: admission,
    });
  const rest = v1Prs.filter((p) => !seen.has(p.prNumber));
  if (rest.length > 0)
    groups.push({ heading: '*Submitted, not in the order yet*', items: rest.map((p) => prLine(ref, p)) });

  const total = testing.length + pending.length + admissionTotal + rest.length;
  const lines: string[] = [];
  let shown = 0;
  for (const g of groups) {
    if (shown >= max) break;
    const take = g.items.slice(0, max - shown);
    lines.push(g.heading, ...take);
    shown += take.length;
  }
  return { lines, total, hidden: total - shown };
}

export function renderStatus(input: StatusInput): SlackReply {
  const { ref, queue, renderedAt } = input;
  const label = queueLabel(ref);
  const state = String(queue.state ?? 'unknown').toLowerCase();
  const prs = queue.enqueuedPullRequests ?? [];
  const prsKnown = queue.enqueuedPullRequests !== undefined;
  const blocks: KnownBlock[] = [];

  blocks.push(header(`Merge queue ${label}`));
  const batching = queue.batch
    ? `on (min ${intOrOff(queue.batchingMinSize)} PRs, waits up to ${intOrOff(queue.batchingMaxWaitTimeMinutes, ' min')})`
    : 'off';
  blocks.push(
    fields([
      `*State*\n${stateLabel(state)}`,
      `*Mode*\n${esc(String(queue.mode ?? 'unknown'))}`,
      `*Concurrency*\n${intOrOff(queue.concurrency)}`,
      `*Batching*\n${batching}`,
      `*Optimistic merge*\n${onOff(queue.canOptimisticallyMerge)}`,
      `*Pending-failure depth*\n${intOrOff(queue.pendingFailureDepth)}`,
      `*Required statuses*\n${requiredStatusesText(queue.requiredStatuses)}`,
      `*Merge method*\n${esc(String(queue.mergeMethod ?? 'unknown').replaceAll('_', ' '))}`,
    ]),
  );

  if (input.lastAction) {
    const a = input.lastAction;
    let line = `${mention(a.userId)} ${esc(a.verb)} this ${slackDate(a.at)}`;
    if (a.reason) line += ` — ${escTrim(a.reason, 500)}`;
    if (a.note) line += ` (${escTrim(a.note, 500)})`;
    blocks.push(context(line));
  }
  if (input.freeze) blocks.push(context(freezeStatusLine(input.freeze)));

  blocks.push(divider());
  if (input.order) {
    const max = Math.max(1, input.maxPrs ?? 15);
    const { lines, total, hidden } = orderLines(ref, input.order, prs, max);
    if (total === 0) blocks.push(section("*Enqueued PRs:* none (Trunk's dispatch order)"));
    else {
      const extra = hidden > 0 ? 1 : 0;
      const all = [
        `*Enqueued PRs (${total}), in Trunk's dispatch order*`,
        ...lines,
        ...(hidden > 0 ? [`_…and ${hidden} more_`] : []),
      ];
      blocks.push(...sectionsOfLines(all, 6, (n) => `_…and ${n - extra + hidden} more_`));
    }
  } else if (!prsKnown) {
    blocks.push(
      section('*Enqueued PRs:* not included in this answer from Trunk; press Refresh to list them.'),
    );
  } else if (prs.length === 0) {
    blocks.push(section('*Enqueued PRs:* none'));
  } else {
    const max = Math.max(1, input.maxPrs ?? 15);
    const hidden = prs.length - Math.min(prs.length, max);
    const extra = hidden > 0 ? 1 : 0;
    const lines = [
      `*Enqueued PRs (${prs.length})*`,
      ...prs.slice(0, max).map((p) => prLine(ref, p)),
      ...(hidden > 0 ? [`_…and ${hidden} more_`] : []),
    ];
    // At most 6 sections of PRs: with the other blocks the message stays well under 50 blocks.
    const prBlocks = sectionsOfLines(lines, 6, (n) => `_…and ${n - extra + hidden} more_`);
    blocks.push(...prBlocks);
  }

  blocks.push(actions(statusButtons(input, state)));
  const trunkLink = link(trunkQueueUrl(input.appUrl, input.orgSlug, ref), 'Trunk');
  const updated =
    input.live === 'live'
      ? `:large_blue_circle: live · updated ${slackDate(renderedAt, '{time}')}`
      : input.live === 'ended'
        ? `Updated ${slackDate(renderedAt)} · no longer live: press Refresh for the queue as it is now`
        : `Updated ${slackDate(renderedAt)}`;
  blocks.push(context(`${updated} · ${trunkLink}`));

  // Fallback text is read as mrkdwn in notifications: escape what Trunk sent.
  const text = esc(
    `Merge queue ${label}: ${state.replaceAll('_', ' ')}, concurrency ${queue.concurrency}${prsKnown ? `, ${plural(prs.length, 'PR')} enqueued` : ''}`,
  );
  return { text, blocks };
}

/**
 * Pause, Drain and Resume as fit the state (all three when the state is unknown). Health alerts show these
 * same buttons, so a click there works exactly as on the status message.
 */
export function stateButtons(ref: QueueRef, state: string, value: string): ActionsBlockElement[] {
  const label = queueLabel(ref);
  const out: ActionsBlockElement[] = [];
  const known = ['running', 'paused', 'draining'].includes(state);
  // Pause and Drain open a modal that asks for a reason (listeners/actions/state.ts) in place of a confirm.
  // Their labels are the contract's plain verbs: the modal that opens says what happens next.
  if (state !== 'paused') out.push(button('Pause', ACTIONS.pause, { value, style: 'danger' }));
  if (state === 'running' || !known) out.push(button('Drain', ACTIONS.drain, { value }));
  if (state === 'paused' || state === 'draining' || !known)
    out.push(
      button('Resume', ACTIONS.resume, {
        value,
        style: 'primary',
        confirm: {
          title: 'Resume the queue?',
          text: `PRs in ${label} will be tested and merged again.`,
          confirm: 'Resume',
          style: 'primary',
        },
      }),
    );
  return out;
}

/** The status message's buttons; the Home tab shows the same ones for each queue (blocks/home.ts). */
export function statusButtons(input: StatusInput, state: string): ActionsBlockElement[] {
  const { ref, queue, renderedAt } = input;
  const value = encodeButtonValue({ ref, state, concurrency: queue.concurrency, renderedAt });
  const out = stateButtons(ref, state, value);
  if (queue.concurrency > 1) out.push(button('Concurrency −', ACTIONS.concurrencyDec, { value }));
  if (queue.concurrency < QUEUE_INT_MAX) out.push(button('Concurrency +', ACTIONS.concurrencyInc, { value }));
  out.push(button('Refresh', ACTIONS.refresh, { value }));
  out.push(button('Settings…', ACTIONS.settings, { value }));
  out.push(
    button('Open in Trunk', ACTIONS.openTrunk, {
      url: trunkQueueUrl(input.appUrl, input.orgSlug, ref),
      value,
    }),
  );
  return out;
}
