/**
 * What every status-button click shares: read the click (untrusted), re-check it against this
 * workspace's configuration and the clicker's permission, and redraw the message in place.
 */
import type { App, BlockAction, ButtonAction, Context, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef } from '../../../core/target.ts';
import { type ChangeResult, type QueueContext, recordRefusal } from '../../../queue/service.ts';
import type { Queue } from '../../../trunk/types.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderInvalidButton, renderNotConnected, renderRefusal } from '../../blocks/errors.ts';
import { type ButtonValue, parseButtonValue } from '../../blocks/ids.ts';
import { type LastAction, renderStatus } from '../../blocks/status.ts';
import type { SlackDeps } from '../../deps.ts';
import { statusFreeze } from '../../freeze-status.ts';
import {
  afterAck,
  mayOperate,
  postToChannel,
  queueContext,
  sendReply,
  updateMessage,
  workspaceIdOf,
} from '../../interaction.ts';
import type { WorkspaceTrunk } from '../../workspace.ts';

export interface Click {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  workspaceId: string;
  userId: string;
  /** The clicker's team as the payload says (`user.team_id`): a Slack Connect stranger's is another org's. */
  userTeamId: string | undefined;
  channelId: string | undefined;
  messageTs: string | undefined;
  /** The button is on an ephemeral message: only its response_url can change it (chat.update cannot). */
  ephemeral: boolean;
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
    userTeamId: body.user.team_id,
    channelId: body.channel?.id ?? body.container?.channel_id,
    messageTs: body.message?.ts ?? body.container?.message_ts,
    ephemeral: body.container?.is_ephemeral === true,
    actionId: action.action_id,
    value,
    trunk,
    ctx: queueContext(deps, trunk.api, workspaceId, userId),
    triggerId: body.trigger_id,
  };
}

/** Double clicks of one rendered button (same message, action and shown value) count once. */
export function clickKeyOf(c: Pick<Click, 'messageTs' | 'actionId' | 'value'>): string {
  return `${c.messageTs ?? 'nots'}:${c.actionId}:${formatQueueRef(c.value.ref)}:${c.value.state}:${c.value.concurrency}:${c.value.renderedAt}`;
}

/** Redraws the status message the click came from, with the queue as it is now. */
export async function redraw(c: Click, queue: Queue, lastAction?: LastAction): Promise<void> {
  const window = await statusFreeze(c.deps, c.workspaceId, c.value.ref);
  // A live status message stays marked live when a click redraws it.
  const live =
    c.channelId && c.messageTs && !c.ephemeral
      ? await c.deps.liveStatus?.isLive(c.workspaceId, c.channelId, c.messageTs).catch(() => false)
      : false;
  const reply = renderStatus({
    ...(window ? { freeze: window } : {}),
    ...(live ? { live: 'live' as const } : {}),
    ref: c.value.ref,
    queue,
    renderedAt: c.deps.now(),
    appUrl: c.deps.config.trunk.appUrl,
    ...(c.trunk.orgSlug ? { orgSlug: c.trunk.orgSlug } : {}),
    ...(lastAction ? { lastAction } : {}),
  });
  // An ephemeral message has no channel copy chat.update could edit (Slack answers message_not_found).
  const editable = c.ephemeral ? undefined : c.messageTs;
  await updateMessage(c.deps, c.client, c.channelId, editable, reply, c.respond);
}

export interface ClickChange {
  /** Audit action name for a refusal, e.g. `pause` or `concurrency`. */
  auditAction: string;
  /** What was refused, in words: "pause acme/web:main". */
  refusedWhat: string;
  /** Past-tense phrase for the message's last-action line: "paused", "set concurrency to 3 on". */
  verb: string;
  /** Why, as the person gave it (the Pause and Drain modals): announced and shown on the message. */
  reason?: string;
  run: (c: Click) => Promise<ChangeResult>;
}

/**
 * The part every queue-changing button shares: the clicker must be an operator (checked on every click,
 * refusals audited), then the change runs against the queue's current state; the message is redrawn in
 * place and the change announced in the channel, or the person is told why nothing changed.
 */
export async function applyClickChange(
  c: Click,
  change: ClickChange,
): Promise<'ok' | 'noop' | 'refused' | 'failed'> {
  const { deps } = c;
  const decision = await mayOperate(deps, c.client, c.workspaceId, c.userId, c.userTeamId);
  if (!decision.allowed) {
    await recordRefusal(c.ctx, change.auditAction, formatQueueRef(c.value.ref), decision.because);
    await sendReply(deps, c.respond, renderRefusal(change.refusedWhat, decision.because), {
      replace_original: false,
    });
    return 'refused';
  }
  const result = await change.run(c);
  if (result.outcome === 'ok') {
    const at = deps.now();
    const why = change.reason ? { reason: change.reason } : {};
    await redraw(c, result.view, { userId: c.userId, verb: change.verb, at, ...why });
    const announcement = renderAnnouncement({
      action: result.action,
      ref: c.value.ref,
      userId: c.userId,
      at,
      ...why,
      before: result.before,
      after: result.after,
    });
    await postToChannel(deps, c.client, c.channelId ?? '', announcement, c.respond);
    return 'ok';
  }
  if (result.outcome === 'noop') {
    // Show the queue as it is now, so the buttons match reality; a repeated click leaves it alone.
    if (result.before) await redraw(c, result.before);
    await sendReply(deps, c.respond, renderNoop(result.reason), { replace_original: false });
    return 'noop';
  }
  await sendReply(deps, c.respond, renderError(result.error), { replace_original: false });
  return 'failed';
}

/**
 * Registers a status-message button: acks at once, reads the (untrusted) click, runs the handler after
 * the ack, answers any failure with a readable ephemeral message, and counts the outcome.
 */
export function registerButton(
  app: App,
  deps: SlackDeps,
  actionId: string,
  handle: (c: Click) => Promise<string>,
): void {
  app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client, respond, context }) => {
    await ack();
    await afterAck();
    let outcome = 'failed';
    try {
      const c = await readClick(deps, { body, action, client, respond, context });
      outcome = c ? await handle(c) : 'invalid';
    } catch (err) {
      deps.logger.error({ err, action: actionId }, 'button failed');
      await sendReply(deps, respond, renderError(err), { replace_original: false });
    }
    deps.metrics.interactions.inc({ name: actionId, outcome });
  });
}
