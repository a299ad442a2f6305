/**
 * The audit retention worker: store/audit-retention.ts's prune once at start (start-up waits for it, so a
 * restarted app never shows rows past their retention) and then every interval, on every replica.
 */
import {
  AUDIT_PRUNE_INTERVAL_MS,
  type AuditRetentionOptions,
  auditRetentionPass,
} from '../store/audit-retention.ts';
import { type PeriodicWorker, periodicWorker } from './periodic-worker.ts';

export function createAuditRetentionWorker(
  o: AuditRetentionOptions & { intervalMs?: number },
): PeriodicWorker {
  return periodicWorker({
    name: 'audit-retention',
    every: o.intervalMs ?? AUDIT_PRUNE_INTERVAL_MS,
    pass: auditRetentionPass(o),
    // Retried at the next interval; the audit only grows a little meanwhile.
    onError: (err) => o.logger.warn({ err }, 'audit pruning failed'),
    awaitFirstPass: true,
  });
}
