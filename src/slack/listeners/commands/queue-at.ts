/** The queue a command means and the workspace's Trunk access: the prologue of every queue command. */
import type { TargetSpec } from '../../../core/target.ts';
import type { QueueAt } from '../../../services/queue.ts';
import { renderError, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import type { CommandRequest, Outcome } from './types.ts';

/** Answers and returns the outcome if the queue or the workspace's Trunk access is missing. */
export async function queueAndTrunk(
  req: CommandRequest,
  typed: TargetSpec | undefined,
  /** A listing that only shows: reads may come from the process's read cache (slack/workspace.ts). */
  how: { cached?: boolean } = {},
): Promise<QueueAt | { outcome: Outcome }> {
  try {
    const located = await req.services.queue.locate(req.actor, req.channelId, typed, how);
    if (located.answer === 'no_target') {
      await req.reply.respond(renderNoTarget());
      return { outcome: 'invalid' };
    }
    if (located.answer === 'not_connected') {
      await req.reply.respond(renderNotConnected());
      return { outcome: 'failed' };
    }
    return { ref: located.ref, trunk: located.trunk };
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read workspace configuration');
    await req.reply.respond(renderError(err));
    return { outcome: 'failed' };
  }
}
