/**
 * Weeks of believable queue history in the fake, for tests, benchmarks and the sandbox: PRs that entered a
 * queue over the past `days`, waited, tested and merged, failed (some on a flaky check, re-submitted on the
 * same commit and merged then), timed out, or were cancelled. Each PR is kept as Trunk keeps it: v1's
 * listPullRequests sees its last state (`since` and cursor paging, from pull-requests.ts), v2's
 * queue-entry-history (single and batched, v2.ts) every transition of every attempt, with Trunk's reasons
 * and failure-causing checks. Deterministic: the same seed and queue give the same history.
 *
 * `transitions` is handed back in the app's words (submitted, testing, merged, failed, cancelled), so a test
 * computes its ground truth from exactly what the fake serves.
 */
import type { SubmittedPullRequest } from '../../../src/trunk/types.ts';
import { createRng, hashString, hexFrom, pick } from './rng.ts';
import { makeSubmittedPr, type QueueRecord, queueLabel } from './state.ts';
import type { V2State, V2Transition } from './v2.ts';

export interface HistorySeedOptions {
  /** How many days back the history reaches (from `now`). */
  days: number;
  /** PRs entering the queue per day. */
  prsPerDay: number;
  seed?: number;
  /** The first PR number used (each PR gets the next); default 20000. */
  firstNumber?: number;
  /** From this instant on, waits and test runs take `slowFactor` times longer (a queue turning slow). */
  slowSince?: number;
  slowFactor?: number;
}

/** One transition of the seeded history, in the app's words. */
export interface SeededTransition {
  prNumber: number;
  state: 'submitted' | 'testing' | 'merged' | 'failed' | 'cancelled';
  at: number;
  headSha: string;
  reason?: string;
  failingChecks?: string[];
}

export interface SeededHistory {
  queue: string;
  prs: number;
  /** Every transition, by PR then time. */
  transitions: SeededTransition[];
}

const CHECKS = ['e2e', 'unit', 'lint', 'build', 'integration'];
const TITLES = [
  'Speed up checkout page',
  'Fix rounding in invoice totals',
  'Bump undici',
  'Add audit log for refunds',
  'Refactor session store',
  'Retry webhook delivery',
  'Trim Docker image',
  'Handle empty carts',
];
const AUTHORS = ['mara', 'devon', 'priya', 'li-wei', 'sam-ortiz', 'dependabot[bot]'];
const MIN = 60_000;

/**
 * Writes the history into `record` (v1: each PR's last state) and `v2` (each PR's transitions); PRs whose
 * last attempt has not concluded by `now` are left out (they would be in the queue now).
 */
export function seedQueueHistory(
  record: QueueRecord,
  v2: V2State,
  now: number,
  opts: HistorySeedOptions,
): SeededHistory {
  const label = queueLabel(record.repo, record.settings.branch);
  const rng = createRng((opts.seed ?? 1) ^ hashString(label));
  const repo = `${record.repo.host}/${record.repo.owner}/${record.repo.name}`;
  const total = Math.round(opts.days * opts.prsPerDay);
  const start = now - opts.days * 24 * 60 * MIN;
  const out: SeededTransition[] = [];
  let number = opts.firstNumber ?? 20_000;
  let prs = 0;
  for (let i = 0; i < total; i++) {
    const prNumber = number++;
    const sha = hexFrom(rng, 40);
    let at = start + Math.floor(rng() * (now - start));
    const slow = () => (opts.slowSince !== undefined && at >= opts.slowSince ? (opts.slowFactor ?? 4) : 1);
    const mine: SeededTransition[] = [];
    const wire: V2Transition[] = [];
    const author = pick(rng, AUTHORS);
    const priorityValue = rng() < 0.05 ? 0 : rng() < 0.1 ? 10 : 100;
    const flakyCheck = rng() < 0.4 ? 'e2e' : pick(rng, CHECKS);
    let concluded = false;
    for (let attempt = 0; attempt < 3 && !concluded; attempt++) {
      const push = (
        t: Omit<SeededTransition, 'prNumber' | 'headSha'>,
        v: { state: string; reason: string | null; [field: string]: unknown },
      ) => {
        mine.push({ prNumber, headSha: sha, ...t });
        wire.push({ changedAt: new Date(t.at).toISOString(), ...v });
      };
      push(
        { state: 'submitted', at },
        { state: 'pending', reason: 'MERGE_ITEM_NOW_READY', actor: { gitHubLogin: author } },
      );
      at += Math.round((2 + rng() * 40) * MIN * slow());
      const roll = rng();
      if (roll < 0.04) {
        at += Math.round(rng() * 30 * MIN);
        push(
          { state: 'cancelled', at, reason: 'USER_REQUESTED' },
          { state: 'cancelled', reason: 'USER_REQUESTED', actor: { gitHubLogin: author } },
        );
        concluded = true;
        break;
      }
      push({ state: 'testing', at }, { state: 'testing', reason: null });
      at += Math.round((8 + rng() * 30) * MIN * slow());
      const outcome = rng();
      if (outcome < 0.78 || attempt === 2) {
        push(
          { state: 'merged', at, reason: 'MERGE_GRAPH_MERGE' },
          { state: 'merged', reason: 'MERGE_GRAPH_MERGE' },
        );
        concluded = true;
      } else {
        const timeout = outcome > 0.96;
        const checks = timeout ? ['build'] : [flakyCheck];
        const reason = timeout ? 'TEST_RUN_TIMEOUT' : 'TEST_RUN_REQUIRED_STATUS_FAILED';
        push(
          { state: 'failed', at, reason, failingChecks: checks },
          {
            state: 'failed',
            reason,
            failed: {
              failureCausingChecks: checks.map((name) => ({
                name,
                url: `https://github.com/${record.repo.owner}/${record.repo.name}/actions/runs/${prNumber}`,
                conclusion: timeout ? 'timeout' : 'failure',
              })),
              blockReasons: [],
            },
          },
        );
        // Two thirds are re-submitted on the same commit (the check was flaky); the rest are left.
        if (rng() < 0.34) concluded = true;
        else at += Math.round((5 + rng() * 90) * MIN);
      }
    }
    if (mine.length === 0 || (mine.at(-1)?.at ?? now) >= now) continue;
    prs++;
    out.push(...mine);
    const end = mine.at(-1)!;
    v2.setHistory(repo, prNumber, wire);
    record.submitted.set(
      prNumber,
      lastState(prNumber, end, sha, author, priorityValue, record.settings.branch),
    );
  }
  return { queue: label, prs, transitions: out };
}

function lastState(
  prNumber: number,
  end: SeededTransition,
  sha: string,
  author: string,
  priorityValue: number,
  branch: string,
): SubmittedPullRequest {
  return makeSubmittedPr({
    prNumber,
    state: end.state === 'submitted' ? 'pending' : end.state,
    stateChangedAt: new Date(end.at).toISOString(),
    prSha: sha,
    prAuthor: author,
    prTitle: TITLES[prNumber % TITLES.length] as string,
    prBaseBranch: branch,
    priorityValue,
    priorityName: priorityValue === 0 ? 'urgent' : priorityValue === 10 ? 'high' : 'medium',
    isCurrentlySubmittedToQueue: false,
  });
}
