/** `/mergequeue pr <n>`: one PR's state and readiness, with the reasons in plain words. */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import { explainReadiness } from '../../queue/readiness.ts';
import type { SubmittedPullRequest } from '../../trunk/types.ts';
import type { SlackReply } from '../reply.ts';
import { esc, escTrim, link, prUrl, queueLabel, trunkDate, trunkQueueUrl } from './format.ts';
import { context, fields, header, section } from './kit.ts';
import { prActionButtons } from './pr-actions.ts';
import { priorityLabel } from './status.ts';

export interface PrInput {
  ref: QueueRef;
  pr: SubmittedPullRequest;
  appUrl?: string;
  orgSlug?: string;
  /** When given, the buttons that fit the PR's state are added (their values carry it). */
  renderedAt?: number;
  /** A line above the buttons: what the last click did (escaped mrkdwn). */
  note?: string;
  /** Redrawing the author's note (a DM): its buttons stay the note's (PrButtonValue.onNote). */
  onNote?: boolean;
}

const MARK = { true: ':white_check_mark:', false: ':x:', undefined: ':grey_question:' } as const;

export function renderPr(input: PrInput): SlackReply {
  const { ref, pr } = input;
  const ex = explainReadiness(pr, ref.branch);
  const n = Number.isFinite(pr.prNumber) ? pr.prNumber : 0;
  const blocks: KnownBlock[] = [
    header(`#${n} ${pr.prTitle || '(no title)'}`),
    section(
      `${link(prUrl(ref.repo, n), `#${n}`)} by ${escTrim(pr.prAuthor || 'unknown', 80)} into ${esc(queueLabel(ref))}\n*${escTrim(ex.summary, 1000)}*`,
    ),
    fields([
      `*State*\n${esc(String(pr.state ?? 'unknown').replaceAll('_', ' '))}`,
      `*In the queue*\n${pr.isCurrentlySubmittedToQueue ? 'yes' : 'no'}`,
      `*Priority*\n${priorityLabel(pr)}${pr.skipTheLine ? ', skips the line' : ''}${pr.forceEnqueued ? ', force-enqueued' : ''}`,
      `*Since*\n${trunkDate(pr.stateChangedAt)}`,
    ]),
  ];
  if (ex.reasons.length > 0) {
    const lines = ex.reasons.map((r) => `${MARK[String(r.ok) as keyof typeof MARK]} ${escTrim(r.text, 500)}`);
    blocks.push(section(`*Why*\n${lines.join('\n')}`));
  }
  blocks.push(
    context(
      `SHA \`${escTrim(pr.prSha || '?', 40)}\` · ${link(trunkQueueUrl(input.appUrl, input.orgSlug, ref), 'Open in Trunk')}`,
    ),
  );
  if (input.note) blocks.push(context(input.note));
  if (input.renderedAt !== undefined)
    blocks.push(
      prActionButtons({
        ref,
        pr: { prNumber: n, ...(pr.state !== undefined ? { state: pr.state } : {}) },
        renderedAt: input.renderedAt,
        ...(input.onNote ? { onNote: true } : {}),
        ...(input.appUrl ? { appUrl: input.appUrl } : {}),
        ...(input.orgSlug ? { orgSlug: input.orgSlug } : {}),
      }),
    );
  return {
    text: escTrim(`#${n} ${pr.prTitle ?? ''}: ${ex.summary}`, 3000),
    blocks,
    response_type: 'ephemeral',
  };
}
