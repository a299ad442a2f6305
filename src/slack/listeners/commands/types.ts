/** What a `/mergequeue` subcommand handler receives, after the ack. */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { QueueRef, TargetSpec } from '../../../core/target.ts';
import { renderError, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import type { SlackDeps } from '../../deps.ts';
import { resolveRef, sendReply } from '../../interaction.ts';
import type { WorkspaceTrunk } from '../../workspace.ts';
import type { Outcome } from '../outcome.ts';

export interface CommandRequest {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  workspaceId: string;
  channelId: string;
  userId: string;
  triggerId: string;
}

export type { Outcome };

/** The queue a command means and the workspace's Trunk access; answers and returns undefined if either is missing. */
export async function queueAndTrunk(
  req: CommandRequest,
  typed: TargetSpec | undefined,
  /** A listing that only shows: reads may come from the process's read cache (slack/workspace.ts). */
  how: { cached?: boolean } = {},
): Promise<{ ref: QueueRef; trunk: WorkspaceTrunk } | { outcome: Outcome }> {
  try {
    const [ref, trunk] = await Promise.all([
      resolveRef(req.deps, req.workspaceId, req.channelId, typed),
      how.cached
        ? req.deps.workspaces.readsFor(req.workspaceId)
        : req.deps.workspaces.trunkFor(req.workspaceId),
    ]);
    if (!ref) {
      await sendReply(req.deps, req.respond, renderNoTarget());
      return { outcome: 'invalid' };
    }
    if (!trunk) {
      await sendReply(req.deps, req.respond, renderNotConnected());
      return { outcome: 'failed' };
    }
    return { ref, trunk };
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read workspace configuration');
    await sendReply(req.deps, req.respond, renderError(err));
    return { outcome: 'failed' };
  }
}
