/** An audit row for a command that changed (or was refused) something outside the queue itself. */
import type { AuditOutcome } from '../../../store/types.ts';
import type { CommandRequest } from './types.ts';

export async function auditCommand(
  req: CommandRequest,
  action: string,
  target: string,
  outcome: AuditOutcome,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await req.deps.store.appendAudit({
    workspaceId: req.workspaceId,
    userId: req.userId,
    action,
    target,
    outcome,
    detail,
    at: req.deps.now(),
  });
}
