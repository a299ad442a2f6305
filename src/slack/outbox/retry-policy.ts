/**
 * The one retry policy for what the app posts on its own initiative:
 * - 429: wait Slack's Retry-After (1 s when it names none) before that channel's next write, then try the
 *   same write again, up to 5 times. (A WebClient that waits on 429 itself ends up the same way.)
 * - 5xx, network errors, timeouts: the WebClient retries them twice within a second (slack/workspace.ts);
 *   what still fails is answered to the caller as passing trouble, and the caller tries again within its
 *   grace: a queue event on the next watcher tick (15 minutes), a digest occurrence after 1, 2, 4, 8, 15
 *   minutes (its grace hours), a freeze announcement never (logged).
 * - a final error (final-errors.ts): never retried.
 */
import { classifyPostFailure } from '../api-errors.ts';
import { refusalOf } from './final-errors.ts';

export interface Failure {
  code: string;
  /** Set when Slack rate-limited the call: wait this long, then try again. */
  retryAfterMs?: number;
}

export const MAX_RATE_LIMIT_RETRIES = 5;

/** Slack's error code of what a Web API call threw, and the wait of a 429. */
export function classify(err: unknown): Failure {
  const f = classifyPostFailure(err);
  return f.retryAfterSeconds === undefined
    ? { code: f.code }
    : { code: f.code, retryAfterMs: Math.max(1, f.retryAfterSeconds) * 1000 };
}

/** How long to wait before trying again after `attempt` (0-based) rate-limited tries; undefined: do not. */
export function retryDelay(failure: Failure, attempt: number): number | undefined {
  if (refusalOf(failure.code) || failure.retryAfterMs === undefined) return undefined;
  return attempt < MAX_RATE_LIMIT_RETRIES ? failure.retryAfterMs : undefined;
}
