/**
 * What every status-button click shares: read the click (untrusted), re-check it against this
 * workspace's configuration and the clicker's permission, and redraw the message in place.
 */
import type { BlockAction, ButtonAction, Context, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { QueueContext } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import type { Queue } from '../../../trunk/types.ts';
import { renderInvalidButton, renderNotConnected } from '../../blocks/errors.ts';
import { type ButtonValue, parseButtonValue } from '../../blocks/ids.ts';
import { type LastAction, renderStatus } from '../../blocks/status.ts';
import type { SlackDeps } from '../../deps.ts';
import { queueContext, sendReply, updateMessage, workspaceIdOf } from '../../interaction.ts';
import type { WorkspaceTrunk } from '../../workspace.ts';

export interface Click {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  workspaceId: string;
  userId: string;
  channelId: string | undefined;
  messageTs: string | undefined;
  actionId: string;
  value: ButtonValue;
  trunk: WorkspaceTrunk;
  ctx: QueueContext;
  triggerId: string;
}

export interface ClickArgs {
  body: BlockAction;
  action: ButtonAction;
  client: WebClient;
  respond: RespondFn;
  context: Context;
}

/** Reads and validates a click; answers (ephemeral) and returns undefined when it cannot be acted on. */
export async function readClick(deps: SlackDeps, args: ClickArgs): Promise<Click | undefined> {
  const { body, action, client, respond, context } = args;
  const value = parseButtonValue(action.value);
  if (!value) {
    await sendReply(deps, respond, renderInvalidButton(), { replace_original: false });
    return undefined;
  }
  const workspaceId = workspaceIdOf({
    teamId: context.teamId ?? body.team?.id,
    enterpriseId: context.enterpriseId ?? body.enterprise?.id,
    isEnterpriseInstall: context.isEnterpriseInstall,
  });
  // The button names a queue; this workspace must still be connected to Trunk to act on it.
  const trunk = await deps.workspaces.trunkFor(workspaceId);
  if (!trunk) {
    await sendReply(deps, respond, renderNotConnected(), { replace_original: false });
    return undefined;
  }
  const userId = body.user.id;
  return {
    deps,
    client,
    respond,
    workspaceId,
    userId,
    channelId: body.channel?.id ?? body.container?.channel_id,
    messageTs: body.message?.ts ?? body.container?.message_ts,
    actionId: action.action_id,
    value,
    trunk,
    ctx: queueContext(deps, trunk.api, workspaceId, userId),
    triggerId: body.trigger_id,
  };
}

/** Double clicks of one rendered button (same message, action and shown value) count once. */
export function clickKeyOf(c: Click): string {
  return `${c.messageTs ?? 'nots'}:${c.actionId}:${formatQueueRef(c.value.ref)}:${c.value.state}:${c.value.concurrency}:${c.value.renderedAt}`;
}

/** Redraws the status message the click came from, with the queue as it is now. */
export async function redraw(c: Click, queue: Queue, lastAction?: LastAction): Promise<void> {
  const reply = renderStatus({
    ref: c.value.ref,
    queue,
    renderedAt: c.deps.now(),
    appUrl: c.deps.config.trunk.appUrl,
    ...(c.trunk.orgSlug ? { orgSlug: c.trunk.orgSlug } : {}),
    ...(lastAction ? { lastAction } : {}),
  });
  await updateMessage(c.deps, c.client, c.channelId, c.messageTs, reply, c.respond);
}
