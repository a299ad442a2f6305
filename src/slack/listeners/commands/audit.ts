/**
 * An audit row for a command that changed (or was refused) something outside the queue itself: retried, and
 * if the store still refuses, logged and counted like every other audit write (the change stands).
 */
import { auditBy } from '../../../store/audit-retrying.ts';
import type { AuditOutcome } from '../../../store/types.ts';
import { auditLostSink } from '../../interaction.ts';
import type { CommandRequest } from './types.ts';

export function auditCommand(
  req: CommandRequest,
  action: string,
  target: string,
  outcome: AuditOutcome,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const { store, now } = req.deps;
  const actor = {
    store,
    now,
    workspaceId: req.workspaceId,
    userId: req.userId,
    auditLost: auditLostSink(req.deps),
  };
  return auditBy(actor, action, target, outcome, detail);
}
