/**
 * The one loop every background worker runs (digests, the freezer, the queue watcher, live-message expiry,
 * audit retention, the webhook inbox, waiting workflow steps): a pass every N ms, or whenever a trigger fires
 * (the digests' node-cron), never two passes at once, and a stop that returns by a deadline.
 *
 * Only src/workers/ builds one (test/production/dependency-rules.test.ts): a domain exposes its pass, and
 * the few domains whose pass steers its own loop (more work left, a slot freed) are handed a PassLoop.
 *
 * - One pass at a time: a pass requested while one runs starts once more right after it, never beside it,
 *   however many requests came meanwhile, so a slow pass (a stalled database, a slow Trunk) never piles up
 *   passes that would claim the same work twice.
 * - Fixed rate: the next timed pass is due `everyMs` after the previous one started; a pass that took longer
 *   is followed at once by one more (not by a burst of missed ones).
 * - Stop: no new pass starts; the pass in progress and the work it launched (`inFlight`, e.g. a freeze run
 *   or a digest being posted) get until the deadline, then are left to their leases.
 */

import { settleBy } from './deadline.ts';
import { afterAnswers } from './scheduling-gate.ts';

/** Calls `fire` on its own schedule until the returned cancel is called (node-cron, for the digests). */
export type PassTrigger = (fire: () => void) => () => Promise<void> | void;

export interface PeriodicPassesOptions {
  pass: () => Promise<void>;
  /** Milliseconds between timed passes, or a trigger of one's own; omitted: passes run only when requested. */
  every?: number | PassTrigger;
  /** A pass that threw: logged by the owner; the next pass still runs. */
  onError: (err: unknown) => void;
  /** Work a pass started that outlives it; stop() and idle() wait for it too. */
  inFlight?: () => Iterable<Promise<unknown>>;
}

/** What a domain's pass may ask of the loop that runs it (a PeriodicPasses, built in src/workers/). */
export interface PassLoop {
  /** True once the loop is stopping: a pass claims no more work. */
  readonly stopped: boolean;
  /** Runs a pass now, or once more after the one in progress (work finished and freed room). */
  request(): void;
  /** From inside a pass: run one more after it (work was left for lack of room). */
  requestAgain(): void;
  /** Settles when no pass runs and nothing a pass started is in flight. */
  idle(): Promise<void>;
}

export class PeriodicPasses implements PassLoop {
  readonly #o: PeriodicPassesOptions;
  #running: Promise<void> | undefined;
  #again = false;
  /** Requests are taken until stop() (a pass may be requested before start, as tests and manual runs do). */
  #stopped = false;
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  #cancelTrigger: (() => Promise<void> | void) | undefined;
  #lastStart = 0;
  #every: number | PassTrigger | undefined;
  /** Set by requestWithin() during a pass: the next pass comes this soon, schedule or not. */
  #soonMs: number | undefined;

  constructor(options: PeriodicPassesOptions) {
    this.#o = options;
    this.#every = options.every;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /**
   * Starts the schedule (`every`, or the constructor's) and runs a first pass now; resolves when that first
   * pass is over.
   */
  start(every = this.#every): Promise<void> {
    if (this.#started) return this.#running ?? Promise.resolve();
    this.#started = true;
    this.#stopped = false;
    this.#every = every;
    if (typeof every === 'function') this.#cancelTrigger = every(() => this.request());
    this.request();
    return this.#running ?? Promise.resolve();
  }

  /** Runs a pass now, or once more after the one in progress. */
  request(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#lastStart = Date.now();
    this.#soonMs = undefined;
    // A pass starts once the requests in hand are answered (answers-first.ts): acks do not wait behind it;
    // its waits, that one and those inside it, share one bound.
    this.#running = afterAnswers(() => this.#o.pass())
      .catch(this.#o.onError)
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.request();
        } else this.#schedule();
      });
  }

  /** From inside a pass: run one more after it (work was left for lack of room). */
  requestAgain(): void {
    this.#again = true;
  }

  /**
   * From inside a pass: run one more within `ms`, sooner than the schedule (and also when passes run only on
   * request): work was found busy elsewhere and is worth a second look shortly. Cancelled by stop().
   */
  requestWithin(ms: number): void {
    this.#soonMs = Math.min(this.#soonMs ?? ms, ms);
  }

  /** The pass in progress, if any. */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Settles when no pass runs and nothing a pass started is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [...(this.#running ? [this.#running] : []), ...(this.#o.inFlight?.() ?? [])];
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /**
   * No new pass starts; waits until `deadline` (epoch ms) for the pass in progress and the work it started.
   * Resolves true when everything finished in time.
   */
  async stop(deadline: number): Promise<boolean> {
    this.#stopped = true;
    this.#started = false;
    this.#again = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const cancel = this.#cancelTrigger;
    this.#cancelTrigger = undefined;
    await cancel?.();
    const outcome = await settleBy(this.idle(), deadline);
    return outcome.kind !== 'timeout';
  }

  #schedule(): void {
    const soon = this.#soonMs;
    this.#soonMs = undefined;
    const every = this.#every;
    const timed =
      this.#started && typeof every === 'number'
        ? Math.max(0, this.#lastStart + every - Date.now())
        : undefined;
    const wait = soon === undefined ? timed : Math.min(soon, timed ?? soon);
    if (wait === undefined || this.#stopped) return;
    this.#timer = setTimeout(() => this.request(), wait);
    this.#timer.unref();
  }
}
