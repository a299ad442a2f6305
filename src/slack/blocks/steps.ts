/**
 * What the app's Workflow Builder steps say when they fail (functions.completeError's `error`, shown in the
 * workflow's activity to the person who started it): plain sentences, each saying what to do. Refusals and
 * Trunk failures reuse the commands' own words (errors.ts, pr-actions.ts).
 */
import { formatQueueRef, type QueueRef } from '../../core/target.ts';
import type { SlackReply } from '../reply.ts';

/** A reply's sentence as a step's error text (the same words the command shows, without the markup). */
export function stepErrorText(reply: SlackReply): string {
  return reply.text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').slice(0, 1500);
}

/** A step that changes something, run by a trigger with no person behind it (a schedule, an event). */
export function stepNeedsPerson(what: string): string {
  return `This step would ${what}, so it must run in a workflow started by a person (a link, a button or a shortcut): it acts with that person's rights, and this run has none (a scheduled or event trigger, or no \`interactivity\` input wired to the step). Nothing was changed.`;
}

/** A step whose `channel` input names a channel the person who started the workflow cannot see. */
export function stepChannelUnseen(channelId: string): string {
  return `This step's \`channel\` input names a channel you cannot see (${channelId}), so the step neither announces there nor uses its default queue. Pick a channel you are in for the step's \`channel\` input in Workflow Builder, or ask someone in that channel to run the workflow. Nothing was changed.`;
}

/** A `wait_for_pr` step whose time limit passed. */
export function stepTimedOut(ref: QueueRef, prNumber: number, minutes: number): string {
  const target = formatQueueRef(ref);
  return `PR #${prNumber} did not merge or leave the queue ${target} within ${minutes} minute${minutes === 1 ? '' : 's'}. Check it with \`/mergequeue pr ${prNumber} ${target}\`, or give the step a longer \`timeout_minutes\`.`;
}

/** Input the step could not use (the grammar's sentence) with what the step changed: nothing. */
export function stepBadInput(error: string): string {
  return `${error} Fix the step's inputs in Workflow Builder. Nothing was changed.`;
}

/** A step of this app's name that this version does not offer (an older manifest's, or a newer one's). */
export function stepUnknown(callbackId: string): string {
  const id = callbackId.replace(/[^\w.-]/g, '').slice(0, 60);
  return `This version of mergequeue has no workflow step \`${id}\`: the app was changed since the workflow was built. Remove the step and add it again from mergequeue's steps in Workflow Builder, or ask whoever runs the app. Nothing was changed.`;
}
