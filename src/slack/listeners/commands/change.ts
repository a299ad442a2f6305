/**
 * A typed queue change (`/mergequeue pause|drain|resume|concurrency`): resolve the queue, then run the one
 * change flow shared with the status buttons, through the queue service.
 */

import { formatQueueRef, type TargetSpec } from '../../../core/target.ts';
import type { QueueChangeRequest } from '../../../services/queue.ts';
import { applyQueueChange } from '../queue-change.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export interface CommandChange {
  /** What would be refused, in words, given the resolved queue. */
  refusedWhat: (target: string) => string;
  reason?: string;
  request: QueueChangeRequest;
}

export async function applyCommandChange(
  req: CommandRequest,
  target: TargetSpec | undefined,
  change: CommandChange,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  return applyQueueChange(
    {
      deps: req.deps,
      client: req.client,
      respond: req.respond,
      actor: req.actor,
      channelId: req.channelId,
      at,
    },
    {
      refusedWhat: change.refusedWhat(formatQueueRef(at.ref)),
      ...(change.reason ? { reason: change.reason } : {}),
      run: () => req.services.queue.change(req.actor, at, change.request),
    },
  );
}
