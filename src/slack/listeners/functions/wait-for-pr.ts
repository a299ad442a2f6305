/**
 * `wait_for_pr` (`target`, `pr`, `timeout_minutes`): the step stays open until the PR merges or leaves the
 * queue (failed, cancelled, gone), then completes with that `state`; it fails at its time limit. It completes
 * at once for a PR that already left or was never in the queue. The wait is stored (its execution token
 * encrypted) so it survives restarts and completes once across replicas: the PR's events complete it
 * through the watch pipeline, the waits worker its time limit (slack/steps/completion.ts). It changes
 * nothing, so it needs no person behind the workflow.
 */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.ts';
import type { StepInput } from '../../grammars/steps.ts';
import { registerStep } from './run.ts';

type WaitStep = Extract<StepInput, { step: 'wait_for_pr' }>;

export function registerWaitForPr(app: App, deps: SlackDeps): void {
  registerStep<WaitStep>(app, deps, {
    id: 'wait_for_pr',
    run: async (r) => {
      const answer = await deps.services.steps.waitForPr(r.actor, r.at, {
        executionId: r.executionId,
        callbackId: 'wait_for_pr',
        prNumber: r.input.pr,
        timeoutMinutes: r.input.timeoutMinutes,
        token: r.token,
        ...(r.input.channel ? { channelId: r.input.channel } : {}),
      });
      if (answer.answer !== 'decided') return { end: 'waiting' };
      // Sent through the stored wait, so it is told to Slack once however many replicas look at it.
      if (deps.steps) {
        await deps.steps.finish({ executionId: r.executionId, workspaceId: r.workspaceId });
        return { end: 'waiting' };
      }
      return answer.outcome.ok
        ? { end: 'complete', state: answer.outcome.state }
        : { end: 'fail', error: answer.outcome.error };
    },
  });
}
