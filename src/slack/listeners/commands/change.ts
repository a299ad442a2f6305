/**
 * What every queue-changing command shares: resolve the queue, require an operator (refusals audited and
 * ephemeral), run the change against the queue's current state, announce it in the channel.
 */

import { formatQueueRef, type QueueRef, type TargetSpec } from '../../../core/target.ts';
import { type ChangeResult, type QueueContext, recordRefusal } from '../../../queue/service.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { mayOperate, postToChannel, queueContext, sendReply } from '../../interaction.ts';
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
  const decision = await mayOperate(req.deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    await recordRefusal(ctx, change.auditAction, formatQueueRef(ref), decision.because);
    await sendReply(
      req.deps,
      req.respond,
      renderRefusal(change.refusedWhat(formatQueueRef(ref)), decision.because),
    );
    return 'refused';
  }
  const result = await change.run(ctx, ref);
  if (result.outcome === 'ok') {
    const announcement = renderAnnouncement({
      action: result.action,
      ref,
      userId: req.userId,
      at: req.deps.now(),
      ...(change.reason ? { reason: change.reason } : {}),
      before: result.before,
      after: result.after,
    });
    await postToChannel(req.deps, req.client, req.channelId, announcement, req.respond);
    return 'ok';
  }
  if (result.outcome === 'noop') {
    await sendReply(req.deps, req.respond, renderNoop(result.reason));
    return 'noop';
  }
  await sendReply(req.deps, req.respond, renderError(result.error));
  return 'failed';
}
