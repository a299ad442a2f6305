/**
 * A typed queue change (`/mergequeue pause|drain|resume|concurrency`): resolve the queue and the
 * workspace's Trunk access, then run the one change flow shared with the status buttons.
 */

import { formatQueueRef, type QueueRef, type TargetSpec } from '../../../core/target.ts';
import type { ChangeResult, QueueContext } from '../../../queue/service.ts';
import { queueContext } from '../../interaction.ts';
import { applyQueueChange } from '../queue-change.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export interface CommandChange {
  /** Audit action name for a refusal, e.g. `pause` or `concurrency`. */
  auditAction: string;
  /** What was refused, in words, given the resolved queue. */
  refusedWhat: (target: string) => string;
  reason?: string;
  run: (ctx: QueueContext, ref: QueueRef) => Promise<ChangeResult>;
}

export async function applyCommandChange(
  req: CommandRequest,
  target: TargetSpec | undefined,
  change: CommandChange,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  const ctx = queueContext(req.deps, trunk.api, req.workspaceId, req.userId);
  return applyQueueChange(
    { ...req, ctx, ref },
    {
      auditAction: change.auditAction,
      refusedWhat: change.refusedWhat(formatQueueRef(ref)),
      ...(change.reason ? { reason: change.reason } : {}),
      run: () => change.run(ctx, ref),
    },
  );
}
