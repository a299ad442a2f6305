/**
 * A worker that is one periodic loop (core/periodic-passes.ts) around a domain's pass: the one place a
 * worker's loop is built, named and registered on the lifecycle's start and stop. Every background job of
 * the app is one of these (see CONTRIBUTING.md, "Add a background job"); a domain whose pass steers its own
 * loop (one more pass, a slot freed) is handed `passes` as its PassLoop.
 */
import { PeriodicPasses, type PeriodicPassesOptions } from '../core/periodic-passes.ts';
import type { Worker } from '../lifecycle.ts';

export interface PeriodicWorkerOptions extends PeriodicPassesOptions {
  /** The worker's name on the lifecycle (its shutdown step; test/production/shutdown.test.ts reads them). */
  name: string;
  /** Start-up waits for the first pass (audit retention: no row past its retention once the app answers). */
  awaitFirstPass?: boolean;
}

export interface PeriodicWorker extends Worker {
  /** The loop: requested on a kick, idle() for tests, and the PassLoop handed to a domain that steers it. */
  readonly passes: PeriodicPasses;
  /** No new pass; waits until `deadline` (epoch ms); true when everything finished in time. */
  stop(deadline: number): Promise<boolean>;
}

export function periodicWorker(o: PeriodicWorkerOptions): PeriodicWorker {
  const { name, awaitFirstPass, ...loop } = o;
  const passes = new PeriodicPasses(loop);
  return {
    name,
    passes,
    async start() {
      const first = passes.start();
      if (awaitFirstPass) await first;
    },
    stop: (deadline) => passes.stop(deadline),
  };
}

/** A worker turned off (AppOverrides): keeps its name and place in the stop order, and does nothing. */
export function turnedOff(name: string): Worker {
  return { name, start: () => undefined, stop: async () => undefined };
}
