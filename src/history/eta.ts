/**
 * ETA truth (DESIGN "Queue memory"): every estimate the app shows is kept (repository.ts recordEtaShown) and,
 * once the PR merges, its error (settled when the merge is recorded). Where Trunk gives no estimate, the app
 * gives its own from the queue's history: how many waves of testing lie before the PR (the PRs ahead of it
 * over the queue's concurrency, plus its own) times the median time testing of the last 7 days.
 */
import type { DbExecutor } from '../store/types.ts';
import { mergedStays } from './repository.ts';
import { nearestRank } from './stats.ts';

export const APP_ESTIMATE_WINDOW_MS = 7 * 86_400_000;

export interface AppEstimate {
  estimatedAt: number;
  /** PRs ahead of it in the order Trunk will test. */
  ahead: number;
  concurrency: number;
  /** The median time testing the estimate is built on, and from how many merged PRs. */
  testingP50Ms: number;
  basedOn: number;
}

export async function appEstimate(
  db: DbExecutor,
  q: {
    workspaceId: string;
    queueKey: string;
    now: number;
    ahead: number;
    concurrency: number;
    /** It is testing now: one wave, its own. */
    testing: boolean;
  },
): Promise<AppEstimate | undefined> {
  const stays = await mergedStays(db, q.workspaceId, q.queueKey, q.now - APP_ESTIMATE_WINDOW_MS, q.now);
  const testing = stays
    .flatMap((s) => (s.testingMs === undefined ? [] : [s.testingMs]))
    .sort((a, b) => a - b);
  const p50 = nearestRank(testing, 50);
  if (p50 === undefined) return undefined;
  const concurrency = Math.max(1, Math.floor(q.concurrency));
  const waves = q.testing ? 1 : Math.floor(q.ahead / concurrency) + 1;
  return {
    estimatedAt: q.now + waves * p50,
    ahead: q.ahead,
    concurrency,
    testingP50Ms: p50,
    basedOn: testing.length,
  };
}
