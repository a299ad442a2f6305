/**
 * Audit writes that happen after a change was applied (Trunk accepted it). The change is real whatever
 * happens to its audit entry, so the entry is retried a few times with a short backoff and, if the store
 * still refuses, handed to `lost` (logged at error and counted by the Slack layer) instead of turning a
 * done change into a reported failure.
 */
import type { AuditEntry, Store } from '../store/types.ts';

export type AuditRecord = Omit<AuditEntry, 'id'>;

/** Called once per entry that could not be written after every attempt. */
export type AuditLost = (err: unknown, entry: AuditRecord) => void;

/** Three attempts: the pauses between them add up to well under a second. */
export const AUDIT_BACKOFF_MS: readonly number[] = [100, 300];

export async function appendAuditRetrying(
  store: Pick<Store, 'appendAudit'>,
  entry: AuditRecord,
  lost: AuditLost | undefined,
  backoffMs: readonly number[] = AUDIT_BACKOFF_MS,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await store.appendAudit(entry);
      return;
    } catch (err) {
      if (attempt >= backoffMs.length) {
        // Without a sink the caller has no one to tell, so the failure stays theirs.
        if (!lost) throw err;
        lost(err, entry);
        return;
      }
      await new Promise((r) => setTimeout(r, backoffMs[attempt]));
    }
  }
}

/** Who is acting, in which workspace, and where a lost entry goes: what every domain's audit call needs. */
export interface AuditActor {
  store: Pick<Store, 'appendAudit'>;
  workspaceId: string;
  userId: string;
  now: () => number;
  auditLost?: AuditLost | undefined;
}

/** One audit entry by `actor`, stamped now and retried as above. */
export function auditBy(
  actor: AuditActor,
  action: string,
  target: string,
  outcome: AuditEntry['outcome'],
  detail: Record<string, unknown>,
): Promise<void> {
  return appendAuditRetrying(
    actor.store,
    {
      workspaceId: actor.workspaceId,
      userId: actor.userId,
      action,
      target,
      outcome,
      detail,
      at: actor.now(),
    },
    actor.auditLost,
  );
}
