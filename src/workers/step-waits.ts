/**
 * The waits worker: Workflow Builder steps waiting for a PR (`wait_for_pr`) that reached their time limit
 * are failed, and completions whose send to Slack failed are retried, every few seconds on the app's clock
 * (core/periodic-passes.ts). Each wait is decided once and sent once across replicas (watch/waits.ts), so
 * every replica may run it.
 */
import { PeriodicPasses } from '../core/periodic-passes.ts';
import type { Worker } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import { createStepCompleter, type StepCompleter } from '../slack/steps/completion.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import { StepWaitRepository } from '../watch/index.ts';

export interface StepWaitsWorker extends Worker {
  readonly completer: StepCompleter;
  /** One pass now (tests move the clock and call this); answers how many steps were completed. */
  tick(): Promise<number>;
}

export interface StepWaitsOptions {
  store: Store;
  workspaces: Workspaces;
  logger: Logger;
  now: () => number;
  replicaId: string;
  /** How often it looks for waits past their time limit; default 5 s. */
  tickMs?: number;
}

export function createStepWaitsWorker(o: StepWaitsOptions): StepWaitsWorker {
  const logger = o.logger.child({ component: 'workflow-steps' });
  const completer = createStepCompleter({ ...o, waits: new StepWaitRepository(o.store), logger });
  const passes = new PeriodicPasses({
    every: o.tickMs ?? 5_000,
    pass: async () => void (await completer.sweep()),
    onError: (err) => logger.error({ err }, 'completing workflow steps failed'),
  });
  return {
    name: 'step-waits',
    completer,
    start: () => void passes.start(),
    stop: (deadline) => passes.stop(deadline),
    tick: () => completer.sweep(),
  };
}
