/**
 * The one loop every background worker runs (digests, the freezer, the queue watcher, live-message expiry,
 * audit retention): a pass every N ms, or whenever a trigger fires (the digests' node-cron), never two passes
 * at once, and a stop that returns by a deadline.
 *
 * - One pass at a time: a pass requested while one runs starts once more right after it, never beside it,
 *   however many requests came meanwhile, so a slow pass (a stalled database, a slow Trunk) never piles up
 *   passes that would claim the same work twice.
 * - Fixed rate: the next timed pass is due `everyMs` after the previous one started; a pass that took longer
 *   is followed at once by one more (not by a burst of missed ones).
 * - Stop: no new pass starts; the pass in progress and the work it launched (`inFlight`, e.g. a freeze run
 *   or a digest being posted) get until the deadline, then are left to their leases.
 */
import { afterAnswers } from './answers-first.ts';
import { settleBy } from './deadline.ts';

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

export class PeriodicPasses {
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
    const every = this.#every;
    if (!this.#started || typeof every !== 'number') return;
    const wait = Math.max(0, this.#lastStart + every - Date.now());
    this.#timer = setTimeout(() => this.request(), wait);
    this.#timer.unref();
  }
}
