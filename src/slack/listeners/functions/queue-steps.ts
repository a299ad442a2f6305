/**
 * The queue's Workflow Builder steps: `pause_queue`, `drain_queue`, `resume_queue` (`target`, `reason`) and
 * `set_concurrency` (`target`, `concurrency`), each acting as the workflow's interactor through the same
 * queue service as `/mergequeue pause|drain|resume|concurrency` (operators only, against the queue's
 * current state, audited), announced like the command in the channel the workflow names, and ending with
 * the queue's state after it (`state`).
 */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import type { QueueChangeRequest } from '../../../services/queue.ts';
import { renderAnnouncement } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { stepErrorText } from '../../blocks/steps.ts';
import type { SlackDeps } from '../../deps.ts';
import type { StepInput } from '../../grammars/steps.ts';
import { registerStep, type StepEnd, type StepRun } from './run.ts';

type StateStep = Extract<StepInput, { step: 'pause_queue' | 'drain_queue' | 'resume_queue' }>;
type ConcurrencyStep = Extract<StepInput, { step: 'set_concurrency' }>;

const STATE_STEPS = {
  pause_queue: { desired: 'paused', verb: 'pause' },
  drain_queue: { desired: 'draining', verb: 'drain' },
  resume_queue: { desired: 'running', verb: 'resume' },
} as const;

/** Runs a change through the queue service and says how the step ends; announces what changed. */
async function changeQueue(
  r: StepRun,
  request: QueueChangeRequest,
  refusedWhat: string,
  reason?: string,
): Promise<StepEnd> {
  const result = await r.deps.services.queue.change(r.actor, r.at, request);
  switch (result.outcome) {
    case 'refused':
      return { end: 'fail', error: stepErrorText(renderRefusal(refusedWhat, result.because)) };
    case 'failed':
      return { end: 'fail', error: stepErrorText(renderError(result.error)) };
    case 'noop': {
      // Already so (paused, or at that concurrency): the workflow goes on with the queue as it is.
      const state = result.before?.state ?? (request.kind === 'state' ? request.desired : undefined);
      return state === undefined
        ? { end: 'fail', error: result.reason }
        : { end: 'complete', state: String(state).toLowerCase() };
    }
    case 'ok': {
      if (r.input.channel)
        void r.deps.outbox.post(
          { workspaceId: r.workspaceId, channel: r.input.channel },
          renderAnnouncement({
            action: result.action,
            ref: r.at.ref,
            userId: r.actor.userId,
            at: r.deps.now(),
            ...(reason ? { reason } : {}),
            before: result.before,
            after: result.after,
          }),
          'notice',
        );
      return { end: 'complete', state: String(result.after.state).toLowerCase() };
    }
  }
}

export function registerQueueSteps(app: App, deps: SlackDeps): void {
  for (const id of ['pause_queue', 'drain_queue', 'resume_queue'] as const) {
    const { desired, verb } = STATE_STEPS[id];
    registerStep<StateStep>(app, deps, {
      id,
      needsPerson: `${verb} the queue`,
      run: (r) =>
        changeQueue(
          r,
          { kind: 'state', desired, ...(r.input.reason ? { reason: r.input.reason } : {}) },
          `${verb} ${formatQueueRef(r.at.ref)}`,
          r.input.reason,
        ),
    });
  }
  registerStep<ConcurrencyStep>(app, deps, {
    id: 'set_concurrency',
    needsPerson: "change the queue's concurrency",
    run: (r) =>
      changeQueue(
        r,
        { kind: 'concurrency', value: r.input.concurrency },
        `change the concurrency of ${formatQueueRef(r.at.ref)}`,
      ),
  });
}
