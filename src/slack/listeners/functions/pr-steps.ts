/**
 * The PR's Workflow Builder steps: `submit_pr` (`target`, `pr`, `priority`) and `cancel_pr` (`target`, `pr`,
 * `reason`), acting as the workflow's interactor through the same PR service as `/mergequeue submit|cancel`
 * (the PR's author or an operator; `urgent` operators only; audited), announced like the command in the
 * channel the workflow names, and ending with the PR's state after it (`state`).
 */
import type { App } from '@slack/bolt';
import type { PrAction, PrChangeRequest, PrChangeResult } from '../../../queue/pull-requests.ts';
import { NOT_IN_QUEUE } from '../../../services/steps.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderPrAnnouncement, renderPrRefusal } from '../../blocks/pr-actions.ts';
import { stepErrorText } from '../../blocks/steps.ts';
import type { SlackDeps } from '../../deps.ts';
import type { StepInput } from '../../grammars/steps.ts';
import { registerStep, type StepEnd, type StepRun } from './run.ts';

type SubmitStep = Extract<StepInput, { step: 'submit_pr' }>;
type CancelStep = Extract<StepInput, { step: 'cancel_pr' }>;

/** The PR's state after the change: as read back, else what the action leaves it in. */
const AFTER: Record<PrAction, string> = { submit: 'pending', cancel: 'cancelled', restart: 'pending' };

function ending(r: StepRun, prNumber: number, result: PrChangeResult, reason?: string): StepEnd {
  switch (result.outcome) {
    case 'refused':
      return { end: 'fail', error: stepErrorText(renderPrRefusal(result.action, prNumber, result.because)) };
    case 'failed':
      return { end: 'fail', error: stepErrorText(renderError(result.error)) };
    case 'noop':
      // Already so (in the queue, or not in it): the workflow goes on with the PR as it is.
      return { end: 'complete', state: stateOf(result.current?.state) ?? NOT_IN_QUEUE };
    case 'ok':
      if (r.input.channel)
        void r.deps.outbox.post(
          { workspaceId: r.workspaceId, channel: r.input.channel },
          renderPrAnnouncement({
            result,
            ref: r.at.ref,
            prNumber,
            userId: r.actor.userId,
            at: r.deps.now(),
            ...(reason ? { reason } : {}),
          }),
          'notice',
        );
      return { end: 'complete', state: stateOf(result.after?.state) ?? AFTER[result.action] };
  }
}

const stateOf = (s: unknown) => (s === undefined || s === null ? undefined : String(s).toLowerCase());

/** Runs a PR change through the PR service (who may act is decided there) and says how the step ends. */
async function changePr(
  r: StepRun,
  change: { action: PrAction; prNumber: number; priority?: PrChangeRequest['priority']; reason?: string },
): Promise<StepEnd> {
  return ending(r, change.prNumber, await r.deps.services.prs.change(r.actor, r.at, change), change.reason);
}

export function registerPrSteps(app: App, deps: SlackDeps): void {
  registerStep<SubmitStep>(app, deps, {
    id: 'submit_pr',
    needsPerson: 'submit a PR to the queue',
    run: (r) =>
      changePr(r, {
        action: 'submit',
        prNumber: r.input.pr,
        ...(r.input.priority !== undefined ? { priority: r.input.priority } : {}),
      }),
  });
  registerStep<CancelStep>(app, deps, {
    id: 'cancel_pr',
    needsPerson: 'cancel a PR in the queue',
    run: (r) =>
      changePr(r, {
        action: 'cancel',
        prNumber: r.input.pr,
        ...(r.input.reason ? { reason: r.input.reason } : {}),
      }),
  });
}
