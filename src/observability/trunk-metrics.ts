/** Feeds the Trunk client's per-attempt hook into the trunkCalls counter and latency histogram. */
import type { Metrics } from './metrics.ts';

export interface TrunkAttempt {
  operation: string;
  status: number | 'network' | 'timeout';
  durationMs: number;
}

export function recordTrunkAttempt(
  metrics: Pick<Metrics, 'trunkCalls' | 'trunkLatency'>,
): (attempt: TrunkAttempt) => void {
  return ({ operation, status, durationMs }) => {
    metrics.trunkCalls.inc({ operation, status: String(status) });
    metrics.trunkLatency.observe({ operation }, durationMs / 1000);
  };
}
