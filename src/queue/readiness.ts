/**
 * Why a submitted PR is or is not testing, in plain words. The contract's rule: a PR can start testing when
 * its base branch matches the queue's, the provider says it is mergeable, and, when the queue requires
 * impacted targets, they have been uploaded.
 */
import type { SubmittedPullRequest } from '../trunk/types.ts';

export interface ReadinessExplanation {
  /** One sentence: where the PR stands. */
  summary: string;
  /** True when every readiness condition Trunk reported is met; undefined when Trunk sent no readiness. */
  ready: boolean | undefined;
  /** One line per condition, each saying whether it holds and what to do if not. */
  reasons: Array<{ ok: boolean | undefined; text: string }>;
}

const STATE_SUMMARY: Record<string, string> = {
  not_ready: 'is in the queue but not ready to test yet',
  pending: 'is ready and waiting for its turn to test',
  testing: 'is being tested now',
  tests_passed: 'passed its tests and is waiting to merge',
  merged: 'has been merged',
  failed: 'failed its tests and left the queue',
  cancelled: 'was cancelled and left the queue',
  pending_failure: 'failed its tests and is waiting for the PRs below it before it is removed',
};

export function explainReadiness(
  pr: Pick<
    SubmittedPullRequest,
    'prNumber' | 'state' | 'readiness' | 'prBaseBranch' | 'isCurrentlySubmittedToQueue'
  >,
  queueBranch?: string,
): ReadinessExplanation {
  const reasons: ReadinessExplanation['reasons'] = [];
  const r = pr.readiness;
  if (r) {
    if (r.doesBaseBranchMatch === true)
      reasons.push({ ok: true, text: 'Its base branch matches the queue.' });
    else if (r.doesBaseBranchMatch === false)
      reasons.push({
        ok: false,
        text: `Its base branch \`${pr.prBaseBranch}\` is not the queue's branch${queueBranch ? ` \`${queueBranch}\`` : ''}: retarget the PR or use that branch's queue.`,
      });

    const m = r.gitHubMergeability?.toLowerCase();
    if (m === 'mergeable') reasons.push({ ok: true, text: 'GitHub says it is mergeable.' });
    else if (m === 'in_progress' || m === 'unspecified' || m === undefined)
      reasons.push({
        ok: undefined,
        text:
          m === 'in_progress'
            ? 'GitHub is still working out whether it is mergeable; this usually settles within a minute.'
            : 'GitHub has not said whether it is mergeable yet.',
      });
    else
      reasons.push({
        ok: false,
        text: `GitHub says it is not mergeable (\`${m}\`): resolve conflicts, missing reviews or branch protection rules.`,
      });

    if (r.requiresImpactedTargets === true) {
      if (r.hasImpactedTargets === true)
        reasons.push({ ok: true, text: 'Its impacted targets have been uploaded, as the queue requires.' });
      else
        reasons.push({
          ok: false,
          text: 'The queue needs impacted targets for it, and none have been uploaded yet: check the CI job that computes them.',
        });
    } else if (r.requiresImpactedTargets === false) {
      reasons.push({ ok: true, text: 'The queue does not need impacted targets.' });
    }
  }
  const failing = reasons.filter((x) => x.ok === false).length;
  const unknown = reasons.filter((x) => x.ok === undefined).length;
  const ready = r ? failing === 0 && unknown === 0 : undefined;

  const state = pr.state?.toLowerCase();
  let summary: string;
  if (!pr.isCurrentlySubmittedToQueue && state !== 'merged')
    summary = `#${pr.prNumber} is not in the queue right now${state ? ` (last state: ${state.replaceAll('_', ' ')})` : ''}.`;
  else if (state && STATE_SUMMARY[state]) summary = `#${pr.prNumber} ${STATE_SUMMARY[state]}.`;
  else if (state) summary = `#${pr.prNumber} is in state \`${state}\`.`;
  else summary = `#${pr.prNumber} is in the queue.`;

  if ((state === 'not_ready' || state === undefined) && pr.isCurrentlySubmittedToQueue) {
    if (failing > 0)
      summary += ` It is not testing because ${failing === 1 ? 'one condition is' : `${failing} conditions are`} not met.`;
    else if (unknown > 0) summary += ' It will start testing once GitHub settles its mergeability.';
    else if (ready) summary += ' Every condition is met, so it should start testing shortly.';
  }
  if (!r && pr.isCurrentlySubmittedToQueue && state !== 'testing')
    reasons.push({ ok: undefined, text: 'Trunk did not report readiness details for this PR.' });
  return { summary, ready, reasons };
}
