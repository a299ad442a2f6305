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

/** Where a renderer links into Trunk's web app: its base URL, and the workspace's organization when known. */
export function trunkLinks(req: CommandRequest, at: QueueAt): { appUrl: string; orgSlug?: string } {
  return {
    appUrl: req.deps.settings.trunkAppUrl,
    ...(at.trunk.orgSlug ? { orgSlug: at.trunk.orgSlug } : {}),
  };
}

/**
 * The one shape of the read commands (`pr`, `run`, `why`, `eta`, `prs`): locate the queue, read, answer a
 * failed read with its error; `answer` renders what was read.
 */
export async function answerRead<T extends { answer: string }>(
  req: CommandRequest,
  target: TargetSpec | undefined,
  read: (at: QueueAt) => Promise<T>,
  answer: (at: QueueAt, found: Exclude<T, { answer: 'read_failed' }>) => Promise<Outcome>,
  how: { cached?: boolean } = {},
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target, how);
  if ('outcome' in at) return at.outcome;
  const found = await read(at);
  if (found.answer === 'read_failed') {
    await req.reply.respond(renderError((found as { error?: unknown }).error));
    return 'failed';
  }
  return answer(at, found as Exclude<T, { answer: 'read_failed' }>);
}
