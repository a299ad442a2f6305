/**
 * An audit row for a command that changed (or was refused) something outside the queue itself, by the
 * command's Actor: retried, and if the store still refuses, logged and counted like every other audit
 * write (the change stands). Services audit through their Actor directly; this is for listeners not yet
 * moved onto a service.
 */
import type { AuditOutcome } from '../../../store/types.ts';
import type { CommandRequest } from './types.ts';

export function auditCommand(
  req: CommandRequest,
  action: string,
  target: string,
  outcome: AuditOutcome,
  detail: Record<string, unknown> = {},
): Promise<void> {
  return req.actor.audit(action, target, outcome, detail);
}
