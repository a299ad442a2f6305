/**
 * The "Release freeze" workflow, as a release manager would build it in Workflow Builder from the app's
 * steps, run one step at a time from the page: pause acme/web:main, wait for the release PR to merge, resume.
 * Each step is what Slack does when a workflow reaches it: the fake Slack starts an execution (its own
 * token) and its function_executed event is posted, signed, to the app; the channel shows the step
 * completing (or failing) as Slack reports it, from the completions the app sent the fake Slack. While the
 * wait step waits, the next click stands in for Trunk merging the release PR; the app's watcher sees it and
 * completes the step.
 */
import { interactivityOf } from '../fakes/slack/functions.ts';
import type { SlackFake } from '../fakes/slack/server.ts';
import type { TrunkFake } from '../fakes/trunk/index.ts';
import type { Conversation } from './conversation.ts';
import { CHANNEL_ID, type SandboxUser } from './people.ts';
import { SANDBOX_DEFAULT_REPO, SEEDED } from './seed.ts';

export const WORKFLOW_NAME = 'Release freeze';
const [REPO, BRANCH] = SANDBOX_DEFAULT_REPO.split(':') as [string, string];
/** The release PR the workflow waits for. */
export const RELEASE_PR = SEEDED.readyPr;

interface Step {
  callbackId: string;
  title: string;
  inputs: Record<string, unknown>;
}

export const RELEASE_FREEZE: readonly Step[] = [
  {
    callbackId: 'pause_queue',
    title: 'Pause a merge queue',
    inputs: { target: SANDBOX_DEFAULT_REPO, reason: WORKFLOW_NAME, channel: CHANNEL_ID },
  },
  {
    callbackId: 'wait_for_pr',
    title: `Wait for PR #${RELEASE_PR} to merge or leave the queue`,
    inputs: { target: SANDBOX_DEFAULT_REPO, pr: RELEASE_PR, timeout_minutes: 30 },
  },
  {
    callbackId: 'resume_queue',
    title: 'Resume a merge queue',
    inputs: { target: SANDBOX_DEFAULT_REPO, reason: `${WORKFLOW_NAME} over`, channel: CHANNEL_ID },
  },
];

export interface WorkflowRunnerDeps {
  slack: SlackFake;
  trunk: TrunkFake;
  conversation: Conversation;
  /** Posts an Events API body, signed, to the app; answers the HTTP status. */
  sendEvent: (body: string) => Promise<number>;
  /** How long a step is given to complete before the page is told it is still running; default 5 s. */
  completeWithinMs?: number;
}

export interface WorkflowRunner {
  /** Runs the next step (or, while the wait step waits, lets Trunk merge the release PR); says what happened. */
  next(user: SandboxUser): Promise<string[]>;
}

export function createReleaseFreeze(d: WorkflowRunnerDeps): WorkflowRunner {
  let index = 0;
  /** The step started and not yet completed. */
  let running: { step: Step; executionId: string; n: number } | undefined;

  const note = (text: string) => d.conversation.addWorkflowNote(`Workflow *${WORKFLOW_NAME}*: ${text}`);

  /** Shows the step's outcome once the app completed it (Slack tells the workflow, the page shows it). */
  function report(run: { step: Step; executionId: string; n: number }, timeoutMs: number) {
    return d.slack
      .waitFor(() => d.slack.functionCompletions(run.executionId)[0], timeoutMs)
      .then((c) => {
        if (running?.executionId === run.executionId) running = undefined;
        note(
          c.kind === 'success'
            ? `step ${run.n} of ${RELEASE_FREEZE.length}, ${run.step.title}, completed: \`state\` is *${String(c.outputs?.['state'])}*.`
            : `step ${run.n} of ${RELEASE_FREEZE.length}, ${run.step.title}, failed: ${c.error}`,
        );
        if (c.kind === 'error') index = RELEASE_FREEZE.length;
        return true;
      })
      .catch(() => false);
  }

  return {
    async next(user) {
      if (running) {
        if (running.step.callbackId !== 'wait_for_pr') return [`Step ${running.n} is still running.`];
        // Trunk's side: the release PR merges; the app's watcher sees it within one interval.
        d.trunk.dequeuePr(REPO, BRANCH, RELEASE_PR);
        d.trunk.addSubmittedPr(REPO, BRANCH, {
          prNumber: RELEASE_PR,
          state: 'merged',
          isCurrentlySubmittedToQueue: false,
        });
        return [`Trunk merged #${RELEASE_PR}; the waiting step completes when the app sees it.`];
      }
      if (index >= RELEASE_FREEZE.length) {
        index = 0;
        return [`The ${WORKFLOW_NAME} workflow has run; the next click starts it again.`];
      }
      const step = RELEASE_FREEZE[index]!;
      const n = ++index;
      const execution = d.slack.startFunction({
        callbackId: step.callbackId,
        inputs: { ...step.inputs, interactivity: interactivityOf(user.id) },
      });
      note(
        `${user.name} ${n === 1 ? 'started it' : 'goes on'}: step ${n} of ${RELEASE_FREEZE.length}, ${step.title}.`,
      );
      const status = await d.sendEvent(JSON.stringify(execution.envelope));
      if (status !== 200) return [`The app answered HTTP ${status} to the step. Its log says why.`];
      running = { step, executionId: execution.executionId, n };
      // A wait answers at once only when the PR already left: it is given a moment, the others longer.
      const within = step.callbackId === 'wait_for_pr' ? 1_500 : (d.completeWithinMs ?? 5_000);
      const done = await report(running, within);
      if (done) return [`Step ${n} done.`];
      // Still open (the wait): reported whenever the app completes it.
      void report(running, 60 * 60_000);
      return [
        step.callbackId === 'wait_for_pr'
          ? `Step ${n} waits for #${RELEASE_PR}. Click again to have Trunk merge it.`
          : `Step ${n} is still running.`,
      ];
    },
  };
}
