/**
 * The waits worker: Workflow Builder steps waiting for a PR (`wait_for_pr`) that reached their time limit
 * are failed, and completions whose send to Slack failed are retried, every few seconds on the app's clock
 * (core/periodic-passes.ts). Each wait is decided once and sent once across replicas (watch/waits.ts), so
 * every replica may run it.
 */
import type { Logger } from '../observability/log.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import { createStepCompleter, type StepCompleter } from '../slack/steps/completion.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import { StepWaitRepository } from '../watch/index.ts';
import { type PeriodicWorker, periodicWorker } from './periodic-worker.ts';

export interface StepWaitsWorker extends PeriodicWorker {
  readonly completer: StepCompleter;
  /** One pass now (tests move the clock and call this); answers how many steps were completed. */
  tick(): Promise<number>;
}

export interface StepWaitsOptions {
  store: Store;
  workspaces: Workspaces;
  /** Completions go out through the app's one Slack outbox. */
  outbox: Pick<SlackOutbox, 'completeStep'>;
  logger: Logger;
  now: () => number;
  replicaId: string;
  /** How often it looks for waits past their time limit; default 5 s. */
  tickMs?: number;
}

export function createStepWaitsWorker(o: StepWaitsOptions): StepWaitsWorker {
  const logger = o.logger.child({ component: 'workflow-steps' });
  const completer = createStepCompleter({
    ...o,
    tokens: o.store,
    waits: new StepWaitRepository(o.store),
    logger,
  });
  const worker = periodicWorker({
    name: 'step-waits',
    every: o.tickMs ?? 5_000,
    pass: async () => void (await completer.sweep()),
    onError: (err) => logger.error({ err }, 'completing workflow steps failed'),
  });
  return { ...worker, completer, tick: () => completer.sweep() };
}
