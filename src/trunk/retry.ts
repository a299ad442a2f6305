/**
 * The retry policy, as pure functions: which outcomes are worth another attempt, and how long to wait.
 * Capped exponential backoff with full jitter (a uniformly random wait in [0, cap]), so many clients that
 * failed together do not come back together. A server's Retry-After wins over our own guess, but no wait
 * may run past the caller's deadline: if it would, we give up at once with the error we have.
 */
import type { HttpResult } from './http.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included. 1 turns retries off. */
  maxAttempts: number;
  /** Cap of the first backoff; doubles each retry. */
  baseDelayMs: number;
  /** Largest backoff cap. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 4000 };

/** The outcome of one attempt, as far as retrying cares. */
export type AttemptOutcome =
  | { kind: 'status'; status: number; retryAfterMs?: number | undefined }
  | { kind: 'network' }
  | { kind: 'timeout' };

/** What an attempt that did not time out means for retrying: a status (with its Retry-After) or a network failure. */
export function attemptOutcome(
  result: Exclude<HttpResult, { kind: 'timeout' }>,
  nowEpochMs: number,
): AttemptOutcome {
  return result.kind === 'network'
    ? { kind: 'network' }
    : { kind: 'status', status: result.status, retryAfterMs: parseRetryAfter(result.retryAfter, nowEpochMs) };
}

/**
 * 429, 5xx, 408 and network failures may succeed later. 400/401/403/404 never will. A timeout is not
 * retried: it means the call's whole deadline is spent.
 */
export function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'network') return true;
  if (outcome.kind === 'timeout') return false;
  const s = outcome.status;
  return s === 429 || s === 408 || (s >= 500 && s <= 599);
}

/**
 * For writes that are not idempotent (submit, cancel, restart): only a 429 says Trunk refused the request
 * before doing anything. A 5xx, 408 or network failure may come after the change was applied, so the
 * request is not repeated blindly (the client reads the PR first; see pr-writes.ts).
 */
export function isRefusedUnapplied(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'status' && outcome.status === 429;
}

/** Full jitter: uniform in [0, min(maxDelay, base * 2^retryIndex)]. `retryIndex` is 0 for the first retry. */
export function backoffMs(retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(cap * r);
}

/**
 * Retry-After as milliseconds: delta-seconds (`120`) or an HTTP date. Undefined when absent or unreadable;
 * a date in the past reads as 0.
 */
export function parseRetryAfter(value: string | undefined, nowEpochMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (/^\d+\.\d+$/.test(v)) return Math.ceil(Number(v) * 1000);
  // An HTTP date names its weekday and month; Date.parse alone would read "-5" as a year.
  if (!/^[A-Za-z]{3},/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowEpochMs);
}

export interface RetryDecision {
  retry: boolean;
  /** How long to wait before the next attempt (when retry). */
  delayMs: number;
  /** Why not, for the error text (when not retry). */
  reason?: 'not_retryable' | 'attempts_exhausted' | 'deadline';
}

/**
 * Decide what follows a failed attempt. `attempt` is 1 for the first. `remainingMs` is what is left of
 * the call's deadline now; a retry needs the wait plus a little time for the request itself.
 */
export function decideRetry(input: {
  outcome: AttemptOutcome;
  attempt: number;
  remainingMs: number;
  policy: RetryPolicy;
  random: () => number;
  /** Which outcomes may be tried again; default isRetryable (safe for reads and absolute writes). */
  retryable?: (outcome: AttemptOutcome) => boolean;
}): RetryDecision {
  const { outcome, attempt, remainingMs, policy, random } = input;
  if (!(input.retryable ?? isRetryable)(outcome))
    return { retry: false, delayMs: 0, reason: 'not_retryable' };
  if (attempt >= policy.maxAttempts) return { retry: false, delayMs: 0, reason: 'attempts_exhausted' };
  const retryAfter = outcome.kind === 'status' ? outcome.retryAfterMs : undefined;
  const delayMs = retryAfter ?? backoffMs(attempt - 1, policy, random);
  // Waiting until (or past) the deadline would only produce a timeout; answer now with the real cause.
  if (delayMs >= remainingMs) return { retry: false, delayMs, reason: 'deadline' };
  return { retry: true, delayMs };
}
