/**
 * `/mergequeue eta`: when a PR should merge (Slack's date token, so each reader sees their own time) and which
 * PRs it waits behind; when Trunk gives no estimate, why, and the PRs directly ahead. The Home's "your PRs"
 * uses the same sentence (etaSentence).
 */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { AppEstimate } from '../../history/eta.ts';
import type { EtaAnswer } from '../../queue/story-reader.ts';
import type { QueuedPullRequest } from '../../trunk/v2/schemas.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, link, parseTime, prUrl, queueLabel, slackDate } from './format.ts';
import { context, section } from './kit.ts';

const UNAVAILABLE_WORDS: Record<string, string> = {
  INSUFFICIENT_HISTORY: 'the queue has too little test history yet',
  NOT_READY: 'the PR is not ready yet',
  QUEUE_PAUSED: 'the queue is paused',
};

function prList(ref: QueueRef, prs: readonly QueuedPullRequest[]): string {
  const shown = prs
    .slice(0, 8)
    .map((p) => `${link(p.url ?? prUrl(ref.repo, p.number), `#${p.number}`)} ${escTrim(p.title, 60)}`);
  return shown.join(', ') + (prs.length > 8 ? ` and ${prs.length - 8} more` : '');
}

/** One sentence: when, or why not, and what it waits behind. */
export function etaSentence(ref: QueueRef, answer: Extract<EtaAnswer, { kind: 'eta' }>): string {
  const { estimate, position } = answer;
  const at = parseTime(estimate?.estimatedAt);
  let when: string;
  if (estimate?.status === 'available' && at !== undefined)
    when =
      estimate.kind === 'pendingFailureResolution'
        ? `Its failure should be settled by ${slackDate(at)}`
        : `Expected to merge ${slackDate(at)}`;
  else if (answer.estimatesOff) when = 'This queue gives no estimates';
  else if (estimate?.status === 'unavailable')
    when = `No estimate yet: ${estimate.reason ? (UNAVAILABLE_WORDS[estimate.reason] ?? `Trunk says ${code(estimate.reason, 60)}`) : 'Trunk did not say why'}`;
  else when = 'No estimate';
  const where: Record<typeof position, string> = {
    testing: 'it is testing now',
    pending: answer.ahead.length > 0 ? `it waits behind ${prList(ref, answer.ahead)}` : 'it is next to test',
    awaitingAdmission: 'it waits to be admitted to the queue',
    notReady: 'it is not ready yet',
    absent: 'it is not in the order Trunk will test',
  };
  const held = answer.heldBy.length > 0 ? `; held behind the failure of ${prList(ref, answer.heldBy)}` : '';
  return `${when}; ${where[position]}${held}.`;
}

/** The app's own estimate, said to be the app's, with what it rests on. */
export function appEstimateSentence(app: AppEstimate): string {
  const minutes = Math.max(1, Math.round(app.testingP50Ms / 60_000));
  return `The app's own estimate, from this queue's history: about ${slackDate(app.estimatedAt)} (${app.ahead} PR${app.ahead === 1 ? '' : 's'} ahead, concurrency ${app.concurrency}, testing takes about ${minutes} min, the median of ${app.basedOn} merged PR${app.basedOn === 1 ? '' : 's'} this week).`;
}

export function renderEta(
  ref: QueueRef,
  prNumber: number,
  answer: EtaAnswer,
  renderedAt: number,
  app?: AppEstimate,
): SlackReply {
  const label = esc(queueLabel(ref));
  const prLink = link(prUrl(ref.repo, prNumber), `#${prNumber}`);
  let body: string;
  if (answer.kind === 'unknown')
    body =
      answer.what === 'pr'
        ? `Trunk has no record of ${prLink} in ${label}.`
        : `Trunk knows no ${answer.what === 'queue' ? 'queue' : 'repository'} for ${label}.`;
  else if (answer.kind === 'not_in_queue')
    body = `${prLink} is not in ${label}'s queue now. \`/mergequeue why ${prNumber} ${label}\` tells how it left.`;
  else body = `*${prLink} ${escTrim(answer.pr.title, 150)}*\n${etaSentence(ref, answer)}`;
  if (app) body += `\n${appEstimateSentence(app)}`;
  const blocks: KnownBlock[] = [
    section(body),
    context(`${label} · read from Trunk ${slackDate(renderedAt)}`),
  ];
  return {
    text: escTrim(body.replace(/<[^|>]*\|([^>]*)>/g, '$1'), 3000),
    blocks,
    response_type: 'ephemeral',
  };
}
