/**
 * The per-organization Trunk request budget. Trunk allows 100 requests per second per organization, shared
 * by every key the organization has, its CI included; the app keeps itself to `maxPerSecond` (TRUNK_MAX_RPS)
 * per organization, counted over all its callers, so a burst of Home openings, digest pages or watcher polls
 * can never crowd out the organization's CI, nor a person's change to a queue. Nothing ever overdraws it.
 *
 * Who goes first, among those waiting for a slot of one organization:
 * 1. a person's change to a queue (updateQueue, submit, cancel, restart, and the read of the state it acts
 *    on), and a freeze window starting or ending, waiting as long as it takes;
 * 2. a command's read (status, and the read before a change), then what a person only looks at (the Home,
 *    listings), each waiting at most `readMaxWaitMs` (or what is left of its call's deadline): past that it is
 *    refused with TrunkBusyError, unsent, and the person is told Trunk is busy;
 * 3. background work (watch, digest), paced and leaving one slot of each window to people.
 * Every attempt takes a slot, retries included: Trunk counts requests, not calls.
 *
 * Where the slots come from:
 * - one process (SQLite): a sliding window kept in memory, at most `maxPerSecond` starts within any window
 *   of one second plus a small guard; a first burst of commands starts at once;
 * - several replicas (PostgreSQL): a `ledger` shared by every replica hands out start times `windowMs /
 *   maxPerSecond` apart (one row update claims up to a quarter second's worth). A start time is used at that
 *   time or within a quarter of the guard after it, never earlier, else dropped; so any second holds at most
 *   `maxPerSecond` starts of all replicas together (given clocks in step, as NTP keeps them).
 */
import { PULL_REQUEST_WRITES, type TrunkOperation } from './api.ts';
import { TrunkBusyError } from './errors.ts';

export const TRUNK_CALLERS = ['interactive', 'view', 'watch', 'digest', 'freeze', 'history'] as const;
/**
 * Who is calling Trunk: a command or click (a person waits), what a person only looks at (the Home, listings,
 * read through the read cache), a queue watcher, a digest, a freeze window, reading a queue's history back.
 */
export type TrunkCaller = (typeof TRUNK_CALLERS)[number];

/**
 * A waiter's place in line: a person's change, then a command's read (often the read before a change),
 * then what a person only looks at (the Home, listings), then background work.
 */
export type TrunkPriority = 'change' | 'read' | 'view' | 'background';
const PRIORITIES: readonly TrunkPriority[] = ['change', 'read', 'view', 'background'];

/** Operations that change a queue: a person asking for one goes first. */
const CHANGES: ReadonlySet<TrunkOperation> = new Set<TrunkOperation>(['updateQueue', ...PULL_REQUEST_WRITES]);

export function priorityOf(
  caller: TrunkCaller,
  operation?: TrunkOperation,
  forChange = false,
): TrunkPriority {
  // A freeze window acts for the person who made it, at a time it promised (within 30 s): in line with changes.
  if (caller === 'freeze') return 'change';
  const person = caller === 'interactive' || caller === 'view';
  if (person && (forChange || (operation && CHANGES.has(operation)))) return 'change';
  if (caller === 'interactive') return 'read';
  return caller === 'view' ? 'view' : 'background';
}

/** Timers and time, injectable so tests move time by hand. */
export interface BudgetClock {
  /** Milliseconds: monotonic for the in-memory budget, epoch (shared by replicas) with a ledger. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Start times shared by every replica (src/store/trunk-budget.ts keeps them in PostgreSQL). */
export interface TrunkBudgetLedger {
  /**
   * Claims `count` start times of organization `org`, `spacingMs` apart, the first no earlier than
   * `notBefore` (epoch ms); resolves to the first, or undefined when the organization's next free start is
   * later than `latest` (nothing claimed).
   */
  claim(
    org: string,
    count: number,
    spacingMs: number,
    notBefore: number,
    latest: number,
  ): Promise<number | undefined>;
}

export interface TrunkBudgetOptions {
  /** Requests per second per organization (TRUNK_MAX_RPS). */
  maxPerSecond: number;
  /** Longest a person's read waits for a slot before it is refused as busy; default 3000 ms. */
  readMaxWaitMs?: number;
  /**
   * Added to the one-second window; default 100 ms. A request reaches Trunk a little after it leaves us, by a
   * varying amount (a new connection, a busy event loop on either side: 60 ms measured on a loaded machine):
   * without a guard, two requests a full second apart here could land less than a second apart there.
   */
  guardMs?: number;
  clock?: BudgetClock;
  /** Several replicas: the organization's start times come from here instead of this process's memory. */
  ledger?: TrunkBudgetLedger;
  /** A caller had to wait `waitedMs` for its slot (not called for an immediate grant). */
  onWait?: (caller: TrunkCaller, waitedMs: number) => void;
  /** A person's read was refused after waiting as long as it may. */
  onBusy?: (caller: TrunkCaller) => void;
  /** The ledger could not be reached (the claim is tried again shortly). */
  onLedgerError?: (err: unknown) => void;
}

export interface AcquireOptions {
  /** What the request is: a person's change goes before a person's read. */
  operation?: TrunkOperation;
  /** What is left of the call's deadline: a read waits no longer than this either. */
  waitMs?: number;
  /** A read that is the first step of a person's change (the state it acts on): in line with changes. */
  forChange?: boolean;
}

/** What a Trunk client calls before each HTTP attempt; bound to one organization and caller. */
export interface RequestGate {
  /** Resolves when the request may start; rejects with the signal's reason if aborted first, or busy. */
  acquire(signal?: AbortSignal, opts?: AcquireOptions): Promise<void>;
}

export interface TrunkBudget {
  readonly maxPerSecond: number;
  /** Waits for a slot of organization `org` (a slug; case-insensitive) for `caller`. */
  acquire(org: string, caller: TrunkCaller, signal?: AbortSignal, opts?: AcquireOptions): Promise<void>;
  /** A gate bound to one organization and caller, for createTrunkClient's `budget` option. */
  gate(org: string, caller: TrunkCaller): RequestGate;
  /** Callers waiting now (of one organization, or all), for tests and diagnostics. */
  waiting(org?: string): number;
}

export const DEFAULT_READ_MAX_WAIT_MS = 3_000;
export const DEFAULT_GUARD_MS = 100;
/** After a failed ledger claim, the next try. */
const LEDGER_RETRY_MS = 200;

interface Waiter {
  caller: TrunkCaller;
  operation: TrunkOperation | undefined;
  since: number;
  /** Reads only: refused as busy when still waiting then. */
  giveUpAt: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  cleanup: () => void;
}

interface Bucket {
  /** Start times of requests within the current window, oldest first (in-memory mode). */
  starts: number[];
  lastBackgroundStart: number;
  /** Who waits, by priority, each in arrival order. */
  lines: Record<TrunkPriority, Waiter[]>;
  /** Start times claimed from the ledger and not used yet, earliest first (ledger mode). */
  held: number[];
  claiming: boolean;
  ledgerRetryAt: number;
  timer: unknown;
  timerAt: number;
}

const monotonicClock: BudgetClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
const epochClock: BudgetClock = { ...monotonicClock, now: () => Date.now() };

export function createTrunkBudget(opts: TrunkBudgetOptions): TrunkBudget {
  const max = opts.maxPerSecond;
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`Trunk budget: maxPerSecond must be a whole number of at least 1, got ${max}`);
  const ledger = opts.ledger;
  const clock = opts.clock ?? (ledger ? epochClock : monotonicClock);
  const guardMs = opts.guardMs ?? DEFAULT_GUARD_MS;
  const windowMs = 1_000 + guardMs;
  // Ledger mode: a claimed start time is used at most this late, leaving three quarters of the guard to
  // the way to Trunk (replicas' requests take different ways: measured jitter reached 60 ms).
  const lateMs = guardMs / 4;
  const paceMs = windowMs / max;
  // Whole milliseconds, rounded up: the ledger stores integers, and rounding down would fit one too many.
  const spacingMs = Math.ceil(paceMs);
  // Background callers leave the last slot of each window to people, so a command arriving during a digest
  // pagination or a round of polls usually starts at once. With a budget of 1 there is nothing to spare.
  const backgroundMax = max >= 2 ? max - 1 : max;
  const claimMax = Math.max(1, Math.ceil(max / 4));
  const readMaxWaitMs = opts.readMaxWaitMs ?? DEFAULT_READ_MAX_WAIT_MS;
  const buckets = new Map<string, Bucket>();
  // How long a ledger claim takes to come back: claimed start times begin that far ahead, so they are not
  // already past (and dropped) when the answer arrives.
  let claimRttMs = 10;

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
        lines: { change: [], read: [], view: [], background: [] },
        held: [],
        claiming: false,
        ledgerRetryAt: -Infinity,
        timer: undefined,
        timerAt: Infinity,
      };
      buckets.set(key, b);
    }
    return b;
  }

  const waitingIn = (b: Bucket) => PRIORITIES.reduce((n, p) => n + b.lines[p].length, 0);
  const readers = (b: Bucket) => [...b.lines.read, ...b.lines.view];

  /** Forgets organizations with nothing in flight, so many organizations do not grow the map without end. */
  function sweep(): void {
    const t = clock.now();
    for (const [key, b] of buckets) {
      prune(b, t);
      if (b.starts.length === 0 && waitingIn(b) === 0 && b.held.length === 0 && !b.claiming)
        buckets.delete(key);
    }
  }

  function prune(b: Bucket, t: number): void {
    let drop = 0;
    while (drop < b.starts.length && (b.starts[drop] as number) <= t - windowMs) drop++;
    if (drop > 0) b.starts.splice(0, drop);
    // A claimed start time not used within the guard is lost: using it later could crowd a second.
    drop = 0;
    while (drop < b.held.length && (b.held[drop] as number) < t - lateMs) drop++;
    if (drop > 0) b.held.splice(0, drop);
  }

  /** When the window next has room under `cap` starts (t itself when it has room now). */
  function windowFreeAt(b: Bucket, t: number, cap = max): number {
    if (b.starts.length < cap) return t;
    return (b.starts[b.starts.length - cap] as number) + windowMs;
  }

  /** When a caller of this priority may next start (Infinity: not before the ledger answers). */
  function freeAt(b: Bucket, t: number, priority: TrunkPriority): number {
    if (ledger) return b.held[0] ?? Infinity;
    if (priority !== 'background') return windowFreeAt(b, t);
    return Math.max(windowFreeAt(b, t, backgroundMax), b.lastBackgroundStart + paceMs);
  }

  function start(b: Bucket, caller: TrunkCaller, t: number): void {
    if (ledger) b.held.shift();
    else b.starts.push(t);
    if (caller !== 'interactive' && caller !== 'view') b.lastBackgroundStart = t;
  }

  function grant(b: Bucket, w: Waiter, t: number): void {
    w.cleanup();
    start(b, w.caller, t);
    if (t > w.since) report(() => opts.onWait?.(w.caller, t - w.since));
    w.resolve();
  }

  function firstWaiting(b: Bucket): [Waiter[], TrunkPriority] | undefined {
    for (const p of PRIORITIES) if (b.lines[p].length > 0) return [b.lines[p], p];
    return undefined;
  }

  /** Serves whoever may go now, refuses reads that waited too long, then sets one timer for what is next. */
  function pump(b: Bucket, key: string): void {
    const t = clock.now();
    prune(b, t);
    for (;;) {
      const first = firstWaiting(b);
      if (!first || freeAt(b, t, first[1]) > t) break;
      grant(b, first[0].shift() as Waiter, t);
    }
    const expired = readers(b).filter((w) => w.giveUpAt <= t);
    if (expired.length > 0)
      for (const p of ['read', 'view'] as const) b.lines[p] = b.lines[p].filter((w) => w.giveUpAt > t);
    for (const w of expired) {
      w.cleanup();
      report(() => opts.onBusy?.(w.caller));
      w.reject(
        new TrunkBusyError(
          `Trunk budget: no slot for ${w.operation ?? 'a read'} within ${Math.round(t - w.since)} ms`,
          {
            operation: w.operation ?? 'getQueue',
          },
        ),
      );
    }
    if (ledger) claimMore(b, key, t);
    let wakeAt = Infinity;
    const first = firstWaiting(b);
    if (first) wakeAt = freeAt(b, t, first[1]);
    for (const w of readers(b)) wakeAt = Math.min(wakeAt, w.giveUpAt);
    if (ledger && waitingIn(b) > b.held.length && !b.claiming) wakeAt = Math.min(wakeAt, b.ledgerRetryAt);
    schedule(b, key, Math.max(wakeAt, t), t);
  }

  /** Ledger mode: claims start times for the waiters that have none, a quarter second's worth at most. */
  function claimMore(b: Bucket, key: string, t: number): void {
    if (!ledger || b.claiming || t < b.ledgerRetryAt) return;
    const need = waitingIn(b) - b.held.length;
    if (need <= 0) return;
    const first = firstWaiting(b) as [Waiter[], TrunkPriority];
    // Background work claims no further than a window ahead, and then leaves people a slot of it, so another
    // replica's person is not stuck behind this one's digest; a person's read only what it may wait for.
    const latest =
      first[1] === 'change'
        ? t + 60_000
        : first[1] !== 'background'
          ? Math.min(...readers(b).map((w) => w.giveUpAt))
          : t + windowMs - spacingMs;
    // A quarter of a second's worth at most: what one replica holds is what a person on another waits behind.
    const count = Math.min(need, claimMax);
    b.claiming = true;
    const lead = Math.min(500, Math.ceil(claimRttMs * 1.5) + 2);
    ledger.claim(key, count, spacingMs, Math.ceil(t) + lead, Math.floor(Math.max(latest, t + lead))).then(
      (at) => {
        b.claiming = false;
        claimRttMs = 0.7 * claimRttMs + 0.3 * (clock.now() - t);
        if (at === undefined) b.ledgerRetryAt = clock.now() + spacingMs;
        else {
          for (let i = 0; i < count; i++) b.held.push(at + i * spacingMs);
          b.held.sort((x, y) => x - y);
        }
        pump(b, key);
      },
      (err) => {
        b.claiming = false;
        b.ledgerRetryAt = clock.now() + LEDGER_RETRY_MS;
        report(() => opts.onLedgerError?.(err));
        pump(b, key);
      },
    );
  }

  function schedule(b: Bucket, key: string, at: number, t: number): void {
    if (at === b.timerAt) return;
    if (b.timer !== undefined) clock.clearTimeout(b.timer);
    b.timer = undefined;
    b.timerAt = at;
    if (at === Infinity) return;
    b.timer = clock.setTimeout(
      () => {
        b.timer = undefined;
        b.timerAt = Infinity;
        pump(b, key);
      },
      Math.max(0, Math.ceil(at - t)),
    );
  }

  function acquire(
    org: string,
    caller: TrunkCaller,
    signal?: AbortSignal,
    ask: AcquireOptions = {},
  ): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const key = org.trim().toLowerCase();
    const b = bucketOf(key);
    const t = clock.now();
    prune(b, t);
    const priority = priorityOf(caller, ask.operation, ask.forChange);
    const lineOf = () => b.lines[priority];
    // Nobody of the same or a higher priority waits, and the rules allow a start now: go at once.
    const rank = PRIORITIES.indexOf(priority);
    const ahead = PRIORITIES.slice(0, rank + 1).reduce((n, p) => n + b.lines[p].length, 0);
    if (ahead === 0 && freeAt(b, t, priority) <= t) {
      start(b, caller, t);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const line = lineOf();
        const i = line.indexOf(waiter);
        if (i >= 0) line.splice(i, 1);
        reject(signal?.reason);
        pump(b, key);
      };
      const waiter: Waiter = {
        caller,
        operation: ask.operation,
        since: t,
        giveUpAt:
          priority === 'read' || priority === 'view'
            ? t + Math.max(0, Math.min(readMaxWaitMs, ask.waitMs ?? Infinity))
            : Infinity,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      lineOf().push(waiter);
      pump(b, key);
    });
  }

  return {
    maxPerSecond: max,
    acquire,
    gate: (org, caller) => ({ acquire: (signal, ask) => acquire(org, caller, signal, ask) }),
    waiting(org) {
      if (org !== undefined) {
        const b = buckets.get(org.trim().toLowerCase());
        return b ? waitingIn(b) : 0;
      }
      let n = 0;
      for (const b of buckets.values()) n += waitingIn(b);
      return n;
    },
  };
}
