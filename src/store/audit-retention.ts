/**
 * Audit retention: rows last seen more than AUDIT_RETENTION_DAYS ago are deleted at start and then hourly.
 * One indexed DELETE, harmless when several replicas run it at once (they delete the same rows).
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
  intervalMs?: number;
}

/** Prunes once now and then every interval; returns a stop function (also what the first prune awaits). */
export function startAuditRetention(opts: AuditRetentionOptions): { stop(): void; firstRun: Promise<void> } {
  const { store, retentionDays, logger, now = Date.now, intervalMs = AUDIT_PRUNE_INTERVAL_MS } = opts;
  const prune = async () => {
    try {
      const deleted = await store.pruneAudit(now() - retentionDays * DAY_MS);
      if (deleted > 0) logger.info({ deleted, retentionDays }, 'old audit rows pruned');
    } catch (err) {
      // Retried at the next interval; the audit only grows a little meanwhile.
      logger.warn({ err }, 'audit pruning failed');
    }
  };
  const firstRun = prune();
  const timer = setInterval(() => void prune(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), firstRun };
}
