/**
 * The digests as a worker: the digest service's pass (digest/scheduler.ts) ticked by node-cron (every minute
 * in UTC, and once at start), a periodic worker (./periodic-worker.ts). Stopping stops claiming and gives the
 * digests being posted until the deadline; past it, each lets go of its claim at its next message, for
 * another replica to take over.
 */
import cron from 'node-cron';
import type { PassTrigger } from '../core/periodic-passes.ts';
import type { DigestDeps } from '../digest/deps.ts';
import { createDigestEngine, type DigestEngine } from '../digest/index.ts';
import { type PeriodicWorker, periodicWorker } from './periodic-worker.ts';

export interface DigestWorkerOptions extends DigestDeps {
  /** node-cron expression of the ticker, default every minute (UTC). */
  tickCron?: string;
}

export interface DigestWorker extends PeriodicWorker, DigestEngine {}

export function createDigestWorker(o: DigestWorkerOptions): DigestWorker {
  const { tickCron = '* * * * *', ...deps } = o;
  let abandoned = false;
  const worker = periodicWorker({
    name: 'digest-scheduler',
    every: cronTrigger(tickCron),
    pass: () => digests.tick(),
    onError: (err) => o.logger.error({ err }, 'digest tick failed'),
    inFlight: () => digests.inFlight,
  });
  const digests = createDigestEngine(deps, { loop: worker.passes, abandoned: () => abandoned });
  return {
    ...digests,
    ...worker,
    async start() {
      abandoned = false;
      await worker.start();
      o.logger.info('digest scheduler started');
    },
    async stop(deadline) {
      const finished = await worker.stop(deadline);
      abandoned = true;
      return finished;
    },
  };
}

/** node-cron as a pass trigger: the product's chosen scheduler for the digests' minute. */
function cronTrigger(expression: string): PassTrigger {
  return (fire) => {
    const task = cron.schedule(expression, fire, { timezone: 'UTC', name: 'digests' });
    return async () => {
      await task.stop();
      await task.destroy();
    };
  };
}
