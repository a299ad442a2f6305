/**
 * The per-organization Trunk request budget. Trunk allows 100 requests per second per organization, shared
 * by every key the organization has, its CI included; the app keeps itself to `maxPerSecond` (TRUNK_MAX_RPS)
 * per organization, counted over all its callers in the process, so a burst of digest pages or watcher polls
 * can never crowd out the organization's CI, nor a person's command.
 *
 * The rule is a sliding window: at most `maxPerSecond` requests start within any window of one second (plus
 * a small guard, below). On top of it, commands go first:
 * - an interactive caller waiting for a slot is served before any background one (watch, digest);
 * - background callers leave one slot of each window to commands (when the budget is 2 or more) and are
 *   paced, one start per window/maxPerSecond, so they never take the window at once: a command arriving
 *   during a digest pagination starts at once, or when the next slot frees;
 * - an interactive caller never waits more than `interactiveMaxWaitMs`: past that it goes ahead anyway
 *   (an "overdraft", counted), because a person waiting matters more than a budget kept far below Trunk's.
 *   Overdrafts only happen when commands alone ask for more than the budget.
 * Every attempt takes a slot, retries included: Trunk counts requests, not calls.
 */

export const TRUNK_CALLERS = ['interactive', 'watch', 'digest', 'freeze'] as const;
/** Who is calling Trunk: a command or click (a person waits), a queue watcher, a digest, a freeze window. */
export type TrunkCaller = (typeof TRUNK_CALLERS)[number];

/** Timers and time, injectable so tests move time by hand. */
export interface BudgetClock {
  /** Monotonic milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface TrunkBudgetOptions {
  /** Requests per second per organization (TRUNK_MAX_RPS). */
  maxPerSecond: number;
  /** Longest an interactive caller waits before going ahead over budget; default 1000 ms. */
  interactiveMaxWaitMs?: number;
  /**
   * Added to the one-second window; default 50 ms. A request reaches Trunk a little after it leaves us, by a
   * varying amount: without a guard, two requests a full second apart here could land less than a second
   * apart there.
   */
  guardMs?: number;
  clock?: BudgetClock;
  /** A caller had to wait `waitedMs` for its slot (not called for an immediate grant). */
  onWait?: (caller: TrunkCaller, waitedMs: number) => void;
  /** An interactive caller went ahead over budget after waiting `interactiveMaxWaitMs`. */
  onOverdraft?: (caller: TrunkCaller) => void;
}

/** What a Trunk client calls before each HTTP attempt; bound to one organization and caller. */
export interface RequestGate {
  /** Resolves when the request may start; rejects with the signal's reason if it is aborted first. */
  acquire(signal?: AbortSignal): Promise<void>;
}

export interface TrunkBudget {
  readonly maxPerSecond: number;
  /** Waits for a slot of organization `org` (a slug; case-insensitive) for `caller`. */
  acquire(org: string, caller: TrunkCaller, signal?: AbortSignal): Promise<void>;
  /** A gate bound to one organization and caller, for createTrunkClient's `budget` option. */
  gate(org: string, caller: TrunkCaller): RequestGate;
  /** Callers waiting now (of one organization, or all), for tests and diagnostics. */
  waiting(org?: string): number;
}

export const DEFAULT_INTERACTIVE_MAX_WAIT_MS = 1_000;
export const DEFAULT_GUARD_MS = 50;

interface Waiter {
  caller: TrunkCaller;
  since: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  cleanup: () => void;
}

interface Bucket {
  /** Start times of requests within the current window, oldest first. */
  starts: number[];
  lastBackgroundStart: number;
  interactive: Waiter[];
  background: Waiter[];
  timer: unknown;
  timerAt: number;
}

const systemClock: BudgetClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export function createTrunkBudget(opts: TrunkBudgetOptions): TrunkBudget {
  const max = opts.maxPerSecond;
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`Trunk budget: maxPerSecond must be a whole number of at least 1, got ${max}`);
  const clock = opts.clock ?? systemClock;
  const windowMs = 1_000 + (opts.guardMs ?? DEFAULT_GUARD_MS);
  const paceMs = windowMs / max;
  // Background callers leave the last slot of each window to commands, so a command arriving during a
  // digest pagination or a round of polls usually starts at once. With a budget of 1 there is nothing to
  // spare, and commands rely on their priority alone.
  const backgroundMax = max >= 2 ? max - 1 : max;
  const maxWaitMs = opts.interactiveMaxWaitMs ?? DEFAULT_INTERACTIVE_MAX_WAIT_MS;
  const buckets = new Map<string, Bucket>();

  const report = (fn: () => void) => {
    try {
      fn();
    } catch {
      // A metrics hook must never break a call.
    }
  };

  function bucketOf(key: string): Bucket {
    let b = buckets.get(key);
    if (!b) {
      if (buckets.size >= 1_000) sweep();
      b = {
        starts: [],
        lastBackgroundStart: -Infinity,
        interactive: [],
        background: [],
        timer: undefined,
        timerAt: Infinity,
      };
      buckets.set(key, b);
    }
    return b;
  }

  /** Forgets organizations with nothing in flight, so many organizations do not grow the map without end. */
  function sweep(): void {
    const t = clock.now();
    for (const [key, b] of buckets) {
      prune(b, t);
      if (b.starts.length === 0 && b.interactive.length === 0 && b.background.length === 0)
        buckets.delete(key);
    }
  }

  function prune(b: Bucket, t: number): void {
    let drop = 0;
    while (drop < b.starts.length && (b.starts[drop] as number) <= t - windowMs) drop++;
    if (drop > 0) b.starts.splice(0, drop);
  }

  /** When the window next has room under `cap` starts (t itself when it has room now). */
  function windowFreeAt(b: Bucket, t: number, cap = max): number {
    if (b.starts.length < cap) return t;
    return (b.starts[b.starts.length - cap] as number) + windowMs;
  }

  /** When a background caller may next start: room under its cap, and one pace after the last one. */
  function backgroundAt(b: Bucket, t: number): number {
    return Math.max(windowFreeAt(b, t, backgroundMax), b.lastBackgroundStart + paceMs);
  }

  function start(b: Bucket, caller: TrunkCaller, t: number): void {
    b.starts.push(t);
    if (caller !== 'interactive') b.lastBackgroundStart = t;
  }

  function grant(b: Bucket, w: Waiter, t: number): void {
    w.cleanup();
    start(b, w.caller, t);
    if (t > w.since) report(() => opts.onWait?.(w.caller, t - w.since));
    w.resolve();
  }

  /** Serves whoever may go now, then sets one timer for the next moment something can change. */
  function pump(b: Bucket): void {
    const t = clock.now();
    prune(b, t);
    for (;;) {
      const first = b.interactive[0];
      if (first) {
        if (windowFreeAt(b, t) <= t) {
          b.interactive.shift();
          grant(b, first, t);
          continue;
        }
        if (t - first.since >= maxWaitMs) {
          b.interactive.shift();
          report(() => opts.onOverdraft?.(first.caller));
          grant(b, first, t);
          continue;
        }
        break;
      }
      const next = b.background[0];
      if (next && backgroundAt(b, t) <= t) {
        b.background.shift();
        grant(b, next, t);
        continue;
      }
      break;
    }
    let wakeAt = Infinity;
    const first = b.interactive[0];
    if (first) wakeAt = Math.min(windowFreeAt(b, t), first.since + maxWaitMs);
    else if (b.background.length > 0) wakeAt = backgroundAt(b, t);
    schedule(b, wakeAt, t);
  }

  function schedule(b: Bucket, at: number, t: number): void {
    if (at === b.timerAt) return;
    if (b.timer !== undefined) clock.clearTimeout(b.timer);
    b.timer = undefined;
    b.timerAt = at;
    if (at === Infinity) return;
    b.timer = clock.setTimeout(
      () => {
        b.timer = undefined;
        b.timerAt = Infinity;
        pump(b);
      },
      Math.max(0, Math.ceil(at - t)),
    );
  }

  function acquire(org: string, caller: TrunkCaller, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const b = bucketOf(org.trim().toLowerCase());
    const t = clock.now();
    prune(b, t);
    const interactive = caller === 'interactive';
    // Nobody of the same or a higher priority waits, and the rules allow a start now: go at once.
    const ahead = interactive ? b.interactive.length : b.interactive.length + b.background.length;
    if (ahead === 0 && (interactive ? windowFreeAt(b, t) : backgroundAt(b, t)) <= t) {
      start(b, caller, t);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = interactive ? b.interactive : b.background;
      const onAbort = () => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        reject(signal?.reason);
        pump(b);
      };
      const waiter: Waiter = {
        caller,
        since: t,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      pump(b);
    });
  }

  return {
    maxPerSecond: max,
    acquire,
    gate: (org, caller) => ({ acquire: (signal) => acquire(org, caller, signal) }),
    waiting(org) {
      const count = (b: Bucket) => b.interactive.length + b.background.length;
      if (org !== undefined) {
        const b = buckets.get(org.trim().toLowerCase());
        return b ? count(b) : 0;
      }
      let n = 0;
      for (const b of buckets.values()) n += count(b);
      return n;
    },
  };
}
