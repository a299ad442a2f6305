/**
 * Feeds the Trunk client's per-attempt hook into the trunkCalls counter and latency histogram, and logs
 * failed attempts (401s, 5xx, timeouts) at warn so an operator sees Trunk trouble without scraping metrics.
 * Also counts requests by caller and the waits of the per-organization budget (src/trunk/budget.ts).
 */
import type { TrunkBudgetOptions, TrunkCaller } from '../trunk/budget.ts';
import type { Logger } from './log.ts';
import type { Metrics } from './metrics.ts';

export interface TrunkAttempt {
  operation: string;
  status: number | 'network' | 'timeout';
  durationMs: number;
}

export function recordTrunkAttempt(
  metrics: Pick<Metrics, 'trunkCalls' | 'trunkLatency'> & Partial<Pick<Metrics, 'trunkCallsByCaller'>>,
  logger?: Logger,
  caller?: TrunkCaller,
): (attempt: TrunkAttempt & { attempt?: number }) => void {
  return ({ operation, status, durationMs, attempt }) => {
    metrics.trunkCalls.inc({ operation, status: String(status) });
    metrics.trunkLatency.observe({ operation }, durationMs / 1000);
    if (caller) metrics.trunkCallsByCaller?.inc({ caller, operation });
    // 404 and 400 are answers about what a person typed, not trouble with Trunk.
    if (
      logger &&
      (typeof status !== 'number' || status === 401 || status === 403 || status === 429 || status >= 500)
    )
      logger.warn(
        { operation, status, attempt, durationMs: Math.round(durationMs) },
        'Trunk call attempt failed',
      );
  };
}

/** The budget's hooks, counting waits by caller (nothing overdraws it any more: that counter stays 0). */
export function recordTrunkBudget(
  metrics: Pick<Metrics, 'trunkBudgetWaits'>,
): Pick<TrunkBudgetOptions, 'onWait'> {
  return { onWait: (caller) => metrics.trunkBudgetWaits.inc({ caller }) };
}
