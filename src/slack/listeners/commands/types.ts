/** What a `/mergequeue` subcommand handler receives, after the ack. */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { TargetSpec } from '../../../core/target.ts';
import type { Actor } from '../../../services/actor.ts';
import type { QueueAt } from '../../../services/queue.ts';
import { renderError, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import type { SlackDeps } from '../../deps.ts';
import { sendReply } from '../../reply.ts';
import type { Outcome } from '../outcome.ts';

export interface CommandRequest {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  /** Who is asking, built once for this command (slack/actor.ts). */
  actor: Actor;
  workspaceId: string;
  channelId: string;
  userId: string;
  triggerId: string;
}

export type { Outcome };

/** The queue a command means and the workspace's Trunk access; answers and returns the outcome if either is missing. */
export async function queueAndTrunk(
  req: CommandRequest,
  typed: TargetSpec | undefined,
  /** A listing that only shows: reads may come from the process's read cache (slack/workspace.ts). */
  how: { cached?: boolean } = {},
): Promise<QueueAt | { outcome: Outcome }> {
  try {
    const located = await req.deps.services.queue.locate(req.actor, req.channelId, typed, how);
    if (located.answer === 'no_target') {
      await sendReply(req.deps, req.respond, renderNoTarget());
      return { outcome: 'invalid' };
    }
    if (located.answer === 'not_connected') {
      await sendReply(req.deps, req.respond, renderNotConnected());
      return { outcome: 'failed' };
    }
    return { ref: located.ref, trunk: located.trunk };
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read workspace configuration');
    await sendReply(req.deps, req.respond, renderError(err));
    return { outcome: 'failed' };
  }
}
