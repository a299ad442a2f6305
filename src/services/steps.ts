/**
 * Workflow Builder steps that wait (`wait_for_pr`): the step is stored first (so an event that arrives
 * while the PR is read is not missed), then the PR is read once: a PR already merged, failed or cancelled,
 * or one Trunk never had in the queue, decides the wait at once. Otherwise it waits for the watcher's (or
 * webhooks') event, or its time limit (watch/waits.ts). Reading is for everyone: a wait changes nothing.
 * The steps that change a queue or a PR use the queue and PR services as the commands do.
 */
import { formatQueueRef } from '../core/target.ts';
import { TrunkNotFoundError } from '../trunk/errors.ts';
import { leftStateOf, queueKeyOf, type StepOutcome, StepWaitRepository } from '../watch/index.ts';

export { NOT_IN_QUEUE } from '../watch/index.ts';

import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueAt, QueueService } from './queue.ts';

export interface WaitRequest {
  executionId: string;
  callbackId: string;
  prNumber: number;
  timeoutMinutes: number;
  /** The function execution token: stored encrypted, used to complete the step later. */
  token: string;
  channelId?: string;
}

export type WaitAnswer =
  /** Stored; an event or the time limit completes it. */
  | { answer: 'waiting'; deadlineAt: number }
  /** Decided at once (the PR already left, or was never in the queue): the caller completes it now. */
  | { answer: 'decided'; outcome: StepOutcome }
  /** Slack sent this execution again (an Events API retry): already stored, nothing more to do. */
  | { answer: 'known' };

export class StepService {
  readonly #deps: ServiceDeps;
  readonly #queue: QueueService;

  constructor(deps: ServiceDeps, queue: QueueService) {
    this.#deps = deps;
    this.#queue = queue;
  }

  async waitForPr(actor: Actor, at: QueueAt, req: WaitRequest): Promise<WaitAnswer> {
    const now = actor.now();
    const deadlineAt = now + req.timeoutMinutes * 60_000;
    const stored = await this.#deps.store.addStepWait({
      executionId: req.executionId,
      workspaceId: actor.workspace.id,
      callbackId: req.callbackId,
      queueKey: queueKeyOf(at.ref),
      target: at.ref,
      prNumber: req.prNumber,
      ...(req.channelId ? { channelId: req.channelId } : {}),
      ...(actor.userId ? { userId: actor.userId } : {}),
      token: req.token,
      deadlineAt,
      createdAt: now,
    });
    if (!stored) return { answer: 'known' };
    const state = await this.#stateNow(actor, at, req.prNumber);
    if (state === undefined) return { answer: 'waiting', deadlineAt };
    const outcome: StepOutcome = { ok: true, state };
    const waits = new StepWaitRepository(this.#deps.store);
    // An event may have decided it meanwhile: the first outcome counts.
    if (await waits.decide(req.executionId, outcome, now)) return { answer: 'decided', outcome };
    const decided = (await waits.get(req.executionId))?.outcome;
    return decided ? { answer: 'decided', outcome: decided } : { answer: 'waiting', deadlineAt };
  }

  /** The PR's state when it has left the queue (or was never in it); undefined while it is in the queue. */
  async #stateNow(actor: Actor, at: QueueAt, prNumber: number): Promise<string | undefined> {
    const read = await this.#queue.pullRequest(actor, at, prNumber);
    if (read.answer === 'read_failed') {
      if (read.error instanceof TrunkNotFoundError) return leftStateOf('not_found');
      // Trunk did not answer: the wait stands, and the watcher's events (or the time limit) end it.
      this.#deps.logger.warn(
        { err: read.error, queue: formatQueueRef(at.ref), pr: prNumber },
        'could not read the PR a workflow step waits for; waiting for its events',
      );
      return undefined;
    }
    return leftStateOf(read.value);
  }
}
