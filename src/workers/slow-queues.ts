/**
 * Slow-queue alerts (watch/slow.ts) as the app runs them: every followed queue is evaluated at least every
 * 10 minutes, and a queue is evaluated again as soon as the app learns one of its PRs merged (a poll or a
 * webhook). Any replica may evaluate any queue at any time: the transition itself is the claim, so entering
 * and leaving are each written once; the event then reaches the queue's `health` feeds through the
 * watcher's outbox like every queue event.
 */
import { PeriodicPasses } from '../core/periodic-passes.ts';
import type { Worker } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import type { Db } from '../store/types.ts';
import {
  evaluateSlow,
  type FollowedQueue,
  type MergedStays,
  type QueueTarget,
  queueKeyOf,
  type SlowFigures,
  SlowStateRepository,
} from '../watch/index.ts';

/** DESIGN: at least every 10 minutes. */
export const SLOW_PASS_MS = 10 * 60_000;

export interface SlowQueuesOptions {
  db: Db;
  followed: (now: number) => Promise<FollowedQueue[]>;
  /** The queue history's merged stays (history/repository.ts). */
  stays: MergedStays;
  /** Hands a written event to the watcher's delivery at once (a merge seen by a webhook or a poll). */
  deliverNow?: (workspaceId: string, target: QueueTarget) => Promise<void>;
  now: () => number;
  logger: Logger;
  everyMs?: number;
}

export interface SlowQueuesWorker extends Worker {
  /** Evaluates one queue now; answers its figures and the transition this call made, if any. */
  evaluate(
    workspaceId: string,
    target: QueueTarget,
  ): Promise<{ figures: SlowFigures; transition?: 'entered' | 'left' }>;
  /** Evaluates the queue soon (after a merge); never throws. */
  merged(workspaceId: string, target: QueueTarget): void;
  /** One pass over every followed queue (tests move the clock and call this). */
  tick(): Promise<void>;
  /** Resolves when the evaluations started by `merged` are over. */
  settled(): Promise<void>;
}

export function createSlowQueuesWorker(o: SlowQueuesOptions): SlowQueuesWorker {
  const logger = o.logger.child({ component: 'slow-queues' });
  const repo = new SlowStateRepository(o.db);
  const inFlight = new Set<Promise<unknown>>();

  async function evaluate(workspaceId: string, target: QueueTarget) {
    const r = await evaluateSlow(repo, o.stays, { workspaceId, target }, o.now());
    if (r.transition) {
      logger.info(
        { workspace: workspaceId, queue: queueKeyOf(target), transition: r.transition, figures: r.figures },
        r.transition === 'entered' ? 'queue turned slow' : 'queue is no longer slow',
      );
      await o.deliverNow?.(workspaceId, target);
    }
    return r;
  }

  async function pass() {
    for (const q of await o.followed(o.now())) {
      try {
        await evaluate(q.workspaceId, q.target);
      } catch (err) {
        logger.warn(
          { err, workspace: q.workspaceId, queue: queueKeyOf(q.target) },
          'could not evaluate a queue',
        );
      }
    }
  }

  const passes = new PeriodicPasses({
    every: o.everyMs ?? SLOW_PASS_MS,
    pass,
    onError: (err) => logger.error({ err }, 'evaluating slow queues failed'),
    inFlight: () => inFlight,
  });

  return {
    name: 'slow-queues',
    start: () => void passes.start(),
    stop: (deadline) => passes.stop(deadline),
    evaluate,
    merged(workspaceId, target) {
      const p = evaluate(workspaceId, target).catch((err: unknown) =>
        logger.warn(
          { err, workspace: workspaceId, queue: queueKeyOf(target) },
          'could not evaluate a queue after a merge',
        ),
      );
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    },
    tick: pass,
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
