/**
 * Queues that move on their own, for tests, benchmarks and the sandbox: PRs enter the queue, start testing,
 * merge, fail or are cancelled, and now and then someone pauses the queue "in the web app" (not through
 * updateQueue) and resumes it later. Deterministic: each queue's story comes from the seed and the queue's
 * name alone, so the same seed and the same queues give the same events, step for step, and one queue's
 * story does not change when another queue is added.
 *
 * A PR that leaves the queue stays readable with getSubmittedPullRequest: its final state (merged, failed,
 * cancelled), isCurrentlySubmittedToQueue false, and the readiness fields of the contract, which say why
 * when it failed before testing (a merge conflict, a changed base branch, missing impacted targets).
 */
import type { EnqueuedPullRequest, Readiness, SubmittedPullRequest } from '../../../src/trunk/types.ts';
import { createRng, hashString, hexFrom, mixSeed, pick, type Rng } from './rng.ts';
import { makeEnqueuedPr, type QueueRecord, type QueueStore, queueLabel } from './state.ts';

/** Chances per step and queue (each 0..1). */
export interface ActivityRates {
  /** A new PR is submitted (running queues only, below `maxQueued`). */
  submit: number;
  /** A pending PR starts testing, for each free testing slot (`concurrency`). */
  startTesting: number;
  /** A PR under test finishes. */
  finish: number;
  /** Of the finished: the share that failed its tests, and that someone cancelled; the rest merge. */
  failShare: number;
  cancelShare: number;
  /** A pending PR drops out before testing: failed readiness, or cancelled by its author. */
  dropPending: number;
  /** Someone pauses a running queue in the web app. */
  pause: number;
  /** A queue paused in the web app is resumed there. */
  resume: number;
}

export const DEFAULT_ACTIVITY_RATES: ActivityRates = {
  submit: 0.35,
  startTesting: 0.6,
  finish: 0.3,
  failShare: 0.2,
  cancelShare: 0.08,
  dropPending: 0.03,
  pause: 0.03,
  resume: 0.3,
};

export interface ActivityOptions {
  seed: number;
  /** Steps on a timer every this many ms (the sandbox); default none: tests call advance(). */
  intervalMs?: number;
  rates?: Partial<ActivityRates>;
  /** No new PR is submitted to a queue holding this many; default 12. */
  maxQueued?: number;
  /** Departed PRs kept per queue for getSubmittedPullRequest; default 500 (oldest forgotten first). */
  keepDeparted?: number;
  /** GitHub logins new PRs are drawn from; default a fixed cast (the sandbox adds its operator's login). */
  authors?: readonly string[];
}

export type ActivityEventKind =
  | 'submitted'
  | 'testing'
  | 'merged'
  | 'failed'
  | 'cancelled'
  | 'paused'
  | 'resumed';

export interface ActivityEvent {
  /** 1 for the first step. */
  step: number;
  /** `owner/name:branch`. */
  queue: string;
  kind: ActivityEventKind;
  prNumber?: number;
  /** Pause and resume happen in Trunk's web app, never through the API. */
  by?: 'web app';
  /** ISO time from the fake's clock, as in stateChangedAt. */
  at: string;
}

export interface QueueActivity {
  /** Moves every queue of the fake `steps` times (default 1); returns what happened, in order. */
  advance(steps?: number): ActivityEvent[];
  /** Every event so far, oldest first (the most recent 10,000). */
  readonly events: readonly ActivityEvent[];
  readonly steps: number;
  /** Steps on a timer (replacing a running one). */
  start(intervalMs: number): void;
  stop(): void;
  /** Back to step 0: the same seed then tells the same story again (used by the fake's reset()). */
  reset(): void;
  /** Calls `fn` with each step's events (the fake's webhooks send them). */
  listen(fn: (events: readonly ActivityEvent[]) => void): void;
}

/** What activity remembers of one queue between steps. */
interface Story {
  rng: Rng;
  nextPr: number;
  pausedInWebApp: boolean;
  departed: number[];
}

const TITLES = [
  'Tighten retry budget for webhook fan-out',
  'Cache compiled templates per locale',
  'Drop the legacy invoice exporter',
  'Make session refresh idempotent',
  'Speed up snapshot diffing',
  'Guard against empty carts at checkout',
  'Log slow queries with their plan',
  'Move feature flags to the new client',
  'Fix timezone drift in daily digests',
  'Bump pg driver and fix pool leak',
];
const AUTHORS = ['mara', 'devon', 'priya', 'li-wei', 'sam-ortiz', 'noor', 'dependabot[bot]'];

const GOOD_READINESS: Required<Readiness> = {
  requiresImpactedTargets: false,
  doesBaseBranchMatch: true,
  hasImpactedTargets: false,
  gitHubMergeability: 'mergeable',
};

/** Why a pending PR failed before it could test, as the contract's readiness fields say it. */
const NOT_READY: ReadonlyArray<Required<Readiness>> = [
  { ...GOOD_READINESS, gitHubMergeability: 'not_mergeable' },
  { ...GOOD_READINESS, doesBaseBranchMatch: false },
  { ...GOOD_READINESS, requiresImpactedTargets: true, hasImpactedTargets: false },
];

export function createQueueActivity(
  store: QueueStore,
  now: () => number,
  opts: ActivityOptions,
): QueueActivity {
  const rates: ActivityRates = { ...DEFAULT_ACTIVITY_RATES, ...opts.rates };
  const maxQueued = opts.maxQueued ?? 12;
  const keepDeparted = opts.keepDeparted ?? 500;
  const authors = opts.authors && opts.authors.length > 0 ? opts.authors : AUTHORS;
  let stories = new Map<string, Story>();
  let events: ActivityEvent[] = [];
  let step = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const listeners: Array<(events: readonly ActivityEvent[]) => void> = [];

  function storyOf(key: string): Story {
    let s = stories.get(key);
    if (!s) {
      const rng = createRng(mixSeed(opts.seed, hashString(key)));
      // PR numbers of a queue start somewhere in the thousands, from the seed, and count up.
      s = { rng, nextPr: 2000 + Math.floor(rng() * 6000), pausedInWebApp: false, departed: [] };
      stories.set(key, s);
    }
    return s;
  }

  function moveQueue(key: string, record: QueueRecord, out: ActivityEvent[]): void {
    const s = storyOf(key);
    const { rng } = s;
    const label = queueLabel(record.repo, record.settings.branch);
    const at = new Date(now()).toISOString();
    const emit = (kind: ActivityEventKind, prNumber?: number) => {
      const e: ActivityEvent = { step, queue: label, kind, at };
      if (prNumber !== undefined) e.prNumber = prNumber;
      if (kind === 'paused' || kind === 'resumed') e.by = 'web app';
      out.push(e);
    };
    const state = record.settings.state;
    // Someone (our app, through updateQueue) resumed or changed a queue the web app had paused.
    if (s.pausedInWebApp && state !== 'paused') s.pausedInWebApp = false;

    // Drawn up front in one fixed order, so what happens depends only on the seed and what the queue holds.
    const draws = {
      pause: rng(),
      resume: rng(),
      submit: rng(),
      finish: record.enqueued.map(() => rng()),
      outcome: record.enqueued.map(() => rng()),
      drop: record.enqueued.map(() => rng()),
      start: Array.from({ length: Math.max(0, record.settings.concurrency) }, () => rng()),
    };

    if (state === 'paused') {
      if (s.pausedInWebApp && draws.resume < rates.resume) {
        record.settings.state = 'running';
        s.pausedInWebApp = false;
        emit('resumed');
      }
      return;
    }
    if (state !== 'running' && state !== 'draining') return;

    // PRs under test finish; pending ones may drop out. Walk a copy: departures change the list.
    for (const [i, pr] of [...record.enqueued].entries()) {
      if (pr.state === 'testing') {
        if ((draws.finish[i] as number) >= rates.finish) continue;
        const o = draws.outcome[i] as number;
        const fate =
          o < rates.failShare ? 'failed' : o < rates.failShare + rates.cancelShare ? 'cancelled' : 'merged';
        depart(record, s, pr, fate, GOOD_READINESS, at);
        emit(fate, pr.prNumber);
      } else if ((draws.drop[i] as number) < rates.dropPending) {
        // Half fail readiness (with the reason in readiness), half are cancelled by their author.
        const d = (draws.drop[i] as number) / rates.dropPending;
        const fate = d < 0.5 ? 'failed' : 'cancelled';
        const readiness = fate === 'failed' ? (pick(rng, NOT_READY) as Required<Readiness>) : GOOD_READINESS;
        depart(record, s, pr, fate, readiness, at);
        emit(fate, pr.prNumber);
      }
    }

    // A draining queue finishes what it tests and starts nothing new.
    if (state === 'running') {
      let testing = record.enqueued.filter((p) => p.state === 'testing').length;
      for (const draw of draws.start) {
        if (testing >= record.settings.concurrency) break;
        const next = record.enqueued.find((p) => p.state !== 'testing');
        if (!next) break;
        if (draw >= rates.startTesting) continue;
        next.state = 'testing';
        next.stateChangedAt = at;
        testing++;
        emit('testing', next.prNumber);
      }
      if (draws.submit < rates.submit && record.enqueued.length < maxQueued) {
        const pr = newPr(record, s, at);
        record.enqueued.push(pr);
        emit('submitted', pr.prNumber);
      }
      if (draws.pause < rates.pause) {
        record.settings.state = 'paused';
        s.pausedInWebApp = true;
        emit('paused');
      }
    }
  }

  function newPr(record: QueueRecord, s: Story, at: string): EnqueuedPullRequest {
    let prNumber = s.nextPr++;
    while (record.submitted.has(prNumber) || record.enqueued.some((p) => p.prNumber === prNumber))
      prNumber = s.nextPr++;
    const urgent = s.rng() < 0.05;
    return makeEnqueuedPr({
      id: `pr_${hexFrom(s.rng, 12)}`,
      prNumber,
      prTitle: pick(s.rng, TITLES),
      prAuthor: pick(s.rng, authors),
      prSha: hexFrom(s.rng, 40),
      prBaseBranch: record.settings.branch,
      state: 'pending',
      stateChangedAt: at,
      priorityValue: urgent ? 0 : 100,
      priorityName: urgent ? 'urgent' : 'medium',
      usedDefaultPriorityName: 'medium',
      skipTheLine: false,
      noBatch: false,
    });
  }

  function depart(
    record: QueueRecord,
    s: Story,
    pr: EnqueuedPullRequest,
    fate: 'merged' | 'failed' | 'cancelled',
    readiness: Required<Readiness>,
    at: string,
  ): void {
    record.enqueued = record.enqueued.filter((p) => p !== pr);
    const { noBatch: _noBatch, ...rest } = pr;
    const final: SubmittedPullRequest = {
      ...rest,
      state: fate,
      stateChangedAt: at,
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: false,
      readiness: { ...readiness },
    };
    record.submitted.set(pr.prNumber, final);
    s.departed.push(pr.prNumber);
    if (s.departed.length > keepDeparted) record.submitted.delete(s.departed.shift() as number);
  }

  function advance(steps = 1): ActivityEvent[] {
    const out: ActivityEvent[] = [];
    for (let i = 0; i < steps; i++) {
      step++;
      // Sorted, so the order of events does not depend on the order queues were added in.
      for (const key of [...store.queues.keys()].sort()) moveQueue(key, store.queues.get(key)!, out);
    }
    events.push(...out);
    if (events.length > 10_000) events = events.slice(-10_000);
    for (const fn of listeners) fn(out);
    return out;
  }

  function stop(): void {
    if (timer) clearInterval(timer);
    timer = undefined;
  }

  function start(intervalMs: number): void {
    stop();
    timer = setInterval(() => advance(1), intervalMs);
    // The fake's server keeps the process alive while it is wanted; the timer alone should not.
    timer.unref();
  }

  if (opts.intervalMs !== undefined) start(opts.intervalMs);

  return {
    advance,
    get events() {
      return events;
    },
    get steps() {
      return step;
    },
    start,
    stop,
    listen(fn) {
      listeners.push(fn);
    },
    reset() {
      stories = new Map();
      events = [];
      step = 0;
    },
  };
}
