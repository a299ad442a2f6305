/**
 * Audit retention: rows last seen more than AUDIT_RETENTION_DAYS ago are deleted, at start and then hourly
 * (the loop is src/workers/audit-retention.ts). One indexed DELETE, harmless when several replicas run it at
 * once (they delete the same rows), so it runs on every replica, SCHEDULER_ENABLED or not.
 */
import type { Logger } from '../observability/log.ts';
import type { Store } from './types.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
export const AUDIT_PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export interface AuditRetentionOptions {
  store: Pick<Store, 'pruneAudit'>;
  retentionDays: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  now?: () => number;
}

/** One prune: deletes the rows past their retention, and logs how many when there were any. */
export function auditRetentionPass(opts: AuditRetentionOptions): () => Promise<void> {
  const { store, retentionDays, logger, now = Date.now } = opts;
  return async () => {
    const deleted = await store.pruneAudit(now() - retentionDays * DAY_MS);
    if (deleted > 0) logger.info({ deleted, retentionDays }, 'old audit rows pruned');
  };
}
