/**
 * Completing waiting Workflow Builder steps (`wait_for_pr`) in Slack: functions.completeSuccess with the
 * PR's `state`, or functions.completeError with a sentence, called with the step's own execution token
 * (stored encrypted; the bot token cannot complete a function). Three ways in, one way out:
 * - a queue event the watcher (or a Trunk webhook feeding the same pipeline) routes to a `step` destination;
 * - the listener, when the PR had already left the queue as the step started;
 * - the waits worker: steps past their time limit, and completions whose send failed (retried).
 * Each wait is decided once and sent once across replicas (watch/waits.ts).
 */
import type { Logger } from '../../observability/log.ts';
import { readPullRequest } from '../../queue/operations.ts';
import { TrunkNotFoundError } from '../../trunk/errors.ts';
import {
  type DeliveryResult,
  type Destination,
  leftStateOf,
  type StepCompletion,
  type StepOutcome,
  type StepSendResult,
  type StepWait,
  type StepWaitRepository,
  type WatchEvent,
} from '../../watch/index.ts';
import { stepTimedOut } from '../blocks/steps.ts';
import type { SlackOutbox } from '../outbox/outbox.ts';
import type { Workspaces } from '../workspace.ts';

/** How long a done wait is kept before it is pruned (a day), and how often that is looked at. */
const KEEP_DONE_MS = 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface StepCompletionDeps {
  /** The waits' rows (watch/waits.ts), built by the waits worker (workers/step-waits.ts). */
  waits: StepWaitRepository;
  /** Each execution's own token, stored encrypted. */
  tokens: { stepWaitToken(workspaceId: string, executionId: string): Promise<string | undefined> };
  /** Sends the completion: the outbox, judged by its one list of final errors (outbox/final-errors.ts). */
  outbox: Pick<SlackOutbox, 'completeStep'>;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor'>;
  logger: Logger;
  now: () => number;
  replicaId: string;
}

export interface StepCompleter {
  /** Records the outcome (if the wait is still open) and tells Slack; true once told. */
  finish(wait: Pick<StepWait, 'executionId' | 'workspaceId'>, outcome?: StepOutcome): Promise<StepCompletion>;
  /** The watcher's `step` destinations of one event: each wait decided by the event, then completed. */
  deliver(event: WatchEvent, destinations: Destination[]): Promise<DeliveryResult[]>;
  /**
   * One pass of the worker: time limits, PRs that left the queue before its first poll (no event will
   * come for them), and sends to retry; answers how many were completed.
   */
  sweep(): Promise<number>;
}

export function createStepCompleter(d: StepCompletionDeps): StepCompleter {
  const { waits } = d;
  const log = d.logger.child({ component: 'workflow-steps' });

  async function send(w: StepWait): Promise<StepSendResult> {
    const token = await d.tokens.stepWaitToken(w.workspaceId, w.executionId);
    if (!token || !w.outcome) return { ok: false, error: 'no token or outcome stored', final: true };
    // Never the pooled bot client: each execution has its own token.
    const sent = await d.outbox.completeStep({
      workspaceId: w.workspaceId,
      executionId: w.executionId,
      token,
      outcome: w.outcome.ok ? { ok: true, outputs: { state: w.outcome.state } } : w.outcome,
    });
    if (sent.ok) return { ok: true };
    log.warn(
      { execution: w.executionId, code: sent.code, final: sent.final },
      'could not complete a workflow step',
    );
    return { ok: false, error: sent.code, final: sent.final };
  }

  async function finish(
    wait: Pick<StepWait, 'executionId' | 'workspaceId'>,
    outcome?: StepOutcome,
  ): Promise<StepCompletion> {
    if (outcome) await waits.decide(wait.executionId, outcome, d.now());
    const done = await waits.complete(wait, d.replicaId, d.now(), send);
    if (done === 'failed') log.error({ execution: wait.executionId }, 'gave up completing a workflow step');
    return done;
  }

  let prunedAt = 0;
  /** Execution id → the poll (snapshot seq) whose missing PR was last asked of Trunk: once per poll. */
  const asked = new Map<string, number>();

  /** Asks Trunk once what became of a PR that is gone from its queue's poll, and decides the wait if it left. */
  async function checkUnseen(w: StepWait, now: number): Promise<void> {
    const trunk = await d.workspaces.backgroundTrunkFor(w.workspaceId, 'watch');
    if (!trunk) return;
    let state: string | undefined;
    try {
      state = leftStateOf(await readPullRequest({ trunk: trunk.api }, w.target, w.prNumber));
    } catch (err) {
      if (!(err instanceof TrunkNotFoundError)) {
        log.warn({ err, execution: w.executionId }, 'could not read the PR a workflow step waits for');
        return;
      }
      state = leftStateOf('not_found');
    }
    if (state) await waits.decide(w.executionId, { ok: true, state }, now);
  }

  return {
    finish,
    async deliver(event, destinations) {
      const state = event.kind;
      const out: DeliveryResult[] = [];
      for (const dest of destinations) {
        if (dest.kind !== 'step') continue;
        try {
          await finish(dest, { ok: true, state });
          // Decided: the send is the waits worker's to retry if this one failed, so the event is delivered.
          out.push({ key: dest.key, ok: true });
        } catch (err) {
          log.warn(
            { err, execution: dest.executionId },
            'could not complete a workflow step from a queue event',
          );
          out.push({ key: dest.key, ok: false, error: 'store' });
        }
      }
      return out;
    },
    async sweep() {
      const now = d.now();
      let n = 0;
      for (const w of await waits.overdue(now)) {
        const minutes = Math.max(1, Math.round((w.deadlineAt - w.createdAt) / 60_000));
        await waits.decide(
          w.executionId,
          { ok: false, error: stepTimedOut(w.target, w.prNumber, minutes) },
          now,
        );
      }
      const unseen = await waits.unseenLeaving();
      for (const id of asked.keys()) if (!unseen.some((u) => u.wait.executionId === id)) asked.delete(id);
      for (const { wait: w, seq } of unseen) {
        if (asked.get(w.executionId) === seq) continue;
        asked.set(w.executionId, seq);
        await checkUnseen(w, now);
      }
      for (const w of await waits.undelivered()) if ((await finish(w)) === 'sent') n++;
      if (now - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = now;
        await waits.prune(now - KEEP_DONE_MS);
      }
      return n;
    },
  };
}
