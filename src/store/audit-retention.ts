/**
 * Audit retention: rows last seen more than AUDIT_RETENTION_DAYS ago are deleted at start and then hourly.
 * One indexed DELETE, harmless when several replicas run it at once (they delete the same rows), so it runs
 * on every replica, SCHEDULER_ENABLED or not.
 */
import { PeriodicPasses } from '../core/periodic-passes.ts';
import type { Logger } from '../observability/log.ts';
import type { Store } from './types.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
export const AUDIT_PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface AuditRetentionOptions {
  store: Pick<Store, 'pruneAudit'>;
  retentionDays: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  now?: () => number;
  intervalMs?: number;
}

export interface AuditRetention {
  /** Prunes once now (resolving when done) and then every interval. */
  start(): Promise<void>;
  /** No further prune; waits until `deadline` (epoch ms) for one in progress. */
  stop(deadline: number): Promise<boolean>;
}

export function createAuditRetention(opts: AuditRetentionOptions): AuditRetention {
  const { store, retentionDays, logger, now = Date.now, intervalMs = AUDIT_PRUNE_INTERVAL_MS } = opts;
  const passes = new PeriodicPasses({
    every: intervalMs,
    pass: async () => {
      const deleted = await store.pruneAudit(now() - retentionDays * DAY_MS);
      if (deleted > 0) logger.info({ deleted, retentionDays }, 'old audit rows pruned');
    },
    // Retried at the next interval; the audit only grows a little meanwhile.
    onError: (err) => logger.warn({ err }, 'audit pruning failed'),
  });
  return { start: () => passes.start(), stop: (deadline) => passes.stop(deadline) };
}
