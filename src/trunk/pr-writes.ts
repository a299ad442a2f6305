/**
 * Settling a submit or cancel whose answer was lost. Neither is idempotent, and a timeout, 5xx or network
 * failure may arrive after Trunk applied the change, so repeating the request blindly could queue a PR
 * twice or cancel a re-submitted one. Instead: read the PR; if it already shows the change, report
 * success without sending again; if it does not, send once more. A second loss is reported, not guessed.
 */
import { TrunkNotFoundError, TrunkUnavailableError } from './errors.ts';
import {
  PULL_REQUEST_STATES_IN_QUEUE as IN_QUEUE,
  type PullRequestChange,
  type SubmittedPullRequest,
} from './types.ts';

/** Whether Trunk reports the PR as in its queue now. `state` is optional on the wire. */
export function isInQueue(pr: SubmittedPullRequest): boolean {
  return pr.isCurrentlySubmittedToQueue && (pr.state === undefined || IN_QUEUE.has(pr.state));
}

export interface SettleSteps {
  /** One sending of the write within `deadlineMs` (only a 429 is retried inside it). */
  send(deadlineMs: number): Promise<void>;
  /** getSubmittedPullRequest within `deadlineMs`. */
  read(deadlineMs: number): Promise<SubmittedPullRequest>;
  /** Whether the PR as read shows the write applied. */
  applied(pr: SubmittedPullRequest): boolean;
  now(): number;
}

/**
 * The first sending gets half the deadline and the read half of what is left, so a lost answer still
 * leaves time to settle it within the caller's deadline.
 */
export async function sendSettled(steps: SettleSteps, deadlineMs: number): Promise<PullRequestChange> {
  const deadlineAt = steps.now() + deadlineMs;
  const left = () => deadlineAt - steps.now();
  let lost: TrunkUnavailableError;
  try {
    await steps.send(deadlineMs / 2);
    return { confirmedBy: 'answer', sent: 1 };
  } catch (err) {
    if (!(err instanceof TrunkUnavailableError)) throw err;
    lost = err;
  }
  if (left() <= 0) throw lost;
  let pr: SubmittedPullRequest | undefined;
  try {
    pr = await steps.read(left() / 2);
  } catch (err) {
    // Not knowing whether the write happened, say so (the lost error's hint does) rather than risk a repeat.
    if (!(err instanceof TrunkNotFoundError)) throw lost;
  }
  if (pr && steps.applied(pr)) return { confirmedBy: 'read_back', sent: 1, pullRequest: pr };
  if (left() <= 0) throw lost;
  await steps.send(left());
  return { confirmedBy: 'answer', sent: 2 };
}
