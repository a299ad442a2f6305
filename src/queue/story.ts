/**
 * A PR's story in the queue, read from Trunk v2's state history: its latest attempt (a PR submitted again
 * after it left the queue starts a new one), each step with who or what moved it, and how the attempt ended
 * or what it waits for. Plain data: the words a person reads are the renderer's; here are the facts and the
 * one judgement people ask for most, whether the PR failed on its own or because of a PR ahead of it.
 *
 * Reasons, states and conclusions are open vocabularies (Trunk adds members within v2): anything unknown is
 * kept as sent, never dropped.
 */
import type { FailureCausingCheck, Transition } from '../trunk/v2/schemas.ts';

export interface StoryStep {
  state: string;
  /** ISO time of the transition. */
  at: string;
  /** Trunk's reason code (UPPER_SNAKE), as sent; undefined for states that carry none (testing). */
  reason: string | undefined;
  /** The GitHub login that caused it, when a person did. */
  actor: string | undefined;
}

export interface PrRef {
  number: number | undefined;
  url: string | undefined;
}

/**
 * Why a failure happened, as far as the history tells:
 * - `own`: the PR's own test run failed (or Trunk isolated it by bisection and it still failed);
 * - `conflict`: it could not be tested because it conflicts with another change;
 * - `setup`: the queue or GitHub could not run or merge it (configuration, permissions, branch protection);
 * - `unknown`: a reason this app does not know, shown as sent.
 */
export type FailureCause = 'own' | 'conflict' | 'setup' | 'unknown';

export type StoryEnding =
  | {
      kind: 'failed';
      reason: string | undefined;
      cause: FailureCause;
      /** Trunk tested it alone after its batch failed (bisection) before this failure. */
      bisected: boolean;
      checks: FailureCausingCheck[];
      conflictWith: PrRef | undefined;
      /** GitHub's own words when a merge call failed. */
      apiMessage: string | undefined;
    }
  | {
      kind: 'pendingFailure';
      waitingFor: PrRef[];
      checks: FailureCausingCheck[];
      eventualReason: string | undefined;
    }
  | { kind: 'cancelled'; reason: string | undefined; actor: string | undefined }
  | { kind: 'merged'; reason: string | undefined }
  | { kind: 'inQueue'; state: string };

export interface PrStory {
  /** How many times the PR entered the queue (only the latest is told). */
  attempts: number;
  steps: StoryStep[];
  ending: StoryEnding | undefined;
  /** PRs ahead of it whose failure or cancellation put this one back in line during the latest attempt. */
  putBackBy: PrRef[];
  /** How it was submitted this attempt (the latest `notReady`/`pending` that says): what a re-submission repeats. */
  entry?: { priorityValue?: number | undefined; allowBatching?: boolean | undefined };
  /** The kick's class and evidence (src/kicks/classify.ts), once classified with the queue's history. */
  kick?: { kickClass: string; evidence: string };
}

const TERMINAL = new Set(['merged', 'failed', 'cancelled']);
const CONFLICT = new Set(['START_TEST_RUN_MERGE_CONFLICT']);
const OWN = new Set([
  'TEST_RUN_REQUIRED_STATUS_FAILED',
  'TEST_RUN_TIMEOUT',
  'TEST_RUN_FAILED_BY_OPTIMIZATION',
]);
const PUT_BACK = new Set(['PREREQUISITE_MERGE_ITEM_FAILED', 'PREREQUISITE_MERGE_ITEM_CANCELLED']);

/** The story of the latest attempt in `transitions` (oldest first, as the history answers). */
export function storyOf(transitions: readonly Transition[]): PrStory {
  const sorted = [...transitions].sort((a, b) => Date.parse(a.changedAt) - Date.parse(b.changedAt));
  // A new attempt starts at the first transition after a terminal one.
  let start = 0;
  let attempts = sorted.length > 0 ? 1 : 0;
  sorted.forEach((t, i) => {
    if (i > 0 && TERMINAL.has(sorted[i - 1]!.state) && !TERMINAL.has(t.state)) {
      start = i;
      attempts++;
    }
  });
  const latest = sorted.slice(start);
  const steps = latest.map((t) => ({
    state: t.state,
    at: t.changedAt,
    reason: t.reason,
    actor: t.actor?.gitHubLogin,
  }));
  const putBackBy: PrRef[] = [];
  for (const t of latest) {
    if (t.state === 'pending' && t.reason && PUT_BACK.has(t.reason)) {
      const refs = t.pending?.prerequisitePullRequests ?? [];
      if (refs.length > 0) putBackBy.push(...refs.map(ref));
      else if (t.prerequisitePullRequestId) putBackBy.push({ number: undefined, url: undefined });
    }
  }
  const story: PrStory = { attempts, steps, ending: endingOf(latest), putBackBy };
  const entry = entryOf(latest);
  if (entry) story.entry = entry;
  return story;
}

/** The priority and batching the attempt was submitted with, from its latest transition that says. */
function entryOf(latest: readonly Transition[]): PrStory['entry'] {
  for (const t of [...latest].reverse()) {
    const e = t.pending ?? t.notReady;
    if (e && (typeof e.priorityValue === 'number' || typeof e.allowBatching === 'boolean'))
      return { priorityValue: e.priorityValue ?? undefined, allowBatching: e.allowBatching ?? undefined };
  }
  return undefined;
}

function ref(r: { number?: number | undefined; url?: string | undefined }): PrRef {
  return { number: r.number, url: r.url };
}

function endingOf(latest: readonly Transition[]): StoryEnding | undefined {
  const last = latest.at(-1);
  if (!last) return undefined;
  switch (last.state) {
    case 'failed': {
      const reason = last.reason;
      const culprit = last.failed?.conflictCulprit;
      return {
        kind: 'failed',
        reason,
        cause: causeOf(reason),
        bisected: latest.some((t) => t.reason === 'BISECTION_REQUIRED'),
        checks: last.failed?.failureCausingChecks ?? [],
        conflictWith: culprit && (culprit.number !== undefined || culprit.url) ? ref(culprit) : undefined,
        apiMessage: last.failed?.apiFailureMessage,
      };
    }
    case 'pendingFailure':
      return {
        kind: 'pendingFailure',
        waitingFor: (last.pendingFailure?.waitingFor ?? []).map(ref),
        checks: last.pendingFailure?.failureCausingChecks ?? [],
        eventualReason: last.pendingFailure?.eventualFailureReason,
      };
    case 'cancelled':
      return { kind: 'cancelled', reason: last.reason, actor: last.actor?.gitHubLogin };
    case 'merged':
      return { kind: 'merged', reason: last.reason };
    default:
      return { kind: 'inQueue', state: last.state };
  }
}

function causeOf(reason: string | undefined): FailureCause {
  if (!reason) return 'unknown';
  if (CONFLICT.has(reason)) return 'conflict';
  if (OWN.has(reason)) return 'own';
  if (
    reason.startsWith('START_TEST_RUN_') ||
    reason.startsWith('GITHUB_API_') ||
    reason === 'PR_UPDATED_AT_MERGE_TIME'
  )
    return 'setup';
  return 'unknown';
}
