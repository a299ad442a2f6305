/**
 * What every status-button click shares: read the click (untrusted), re-check it against this
 * workspace's configuration and the clicker's permission, and redraw the message in place.
 */
import type { App, BlockAction, ButtonAction, Context, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef } from '../../../core/target.ts';
import type { Actor } from '../../../services/actor.ts';
import type { QueueAt, QueueChangeRequest } from '../../../services/queue.ts';
import type { Queue } from '../../../trunk/types.ts';
import { interactionActor } from '../../actor.ts';
import { renderError, renderInvalidButton, renderNotConnected } from '../../blocks/errors.ts';
import { type ButtonValue, parseButtonValue } from '../../blocks/ids.ts';
import { type LastAction, renderStatus } from '../../blocks/status.ts';
import type { SlackDeps } from '../../deps.ts';
import { statusFreeze } from '../../freeze-status.ts';
import { homeSession, isHomeClick } from '../../home.ts';
import { afterAck, sendReply, updateMessage } from '../../interaction.ts';
import { servicesOf } from '../../services.ts';
import type { WorkspaceTrunk } from '../../workspace.ts';
import type { Outcome } from '../outcome.ts';
import { applyQueueChange, type ChangeOrigin } from '../queue-change.ts';

/** A click on a button whose value parses as V. */
export interface ClickOf<V> {
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
  value: V;
  trunk: WorkspaceTrunk;
  /** Who clicked, built once for this click (slack/actor.ts). */
  actor: Actor;
  triggerId: string;
  /** Kept for a step that answers later, like a modal's submission. */
  responseUrl?: string;
  /** Clicked on the Home tab: no channel or message; answers and redraws go to the Home (slack/home.ts). */
  home?: boolean;
}

export type Click = ClickOf<ButtonValue>;

export interface ClickArgs {
  body: BlockAction;
  action: ButtonAction;
  client: WebClient;
  respond: RespondFn;
  context: Context;
}

/** Reads and validates a click; answers (ephemeral) and returns undefined when it cannot be acted on. */
export function readClick(deps: SlackDeps, args: ClickArgs): Promise<Click | undefined> {
  return readClickOf(deps, args, parseButtonValue);
}

/** readClick for any button value: `parse` checks the (untrusted) value. */
export async function readClickOf<V>(
  deps: SlackDeps,
  args: ClickArgs,
  parse: (raw: unknown) => V | undefined,
): Promise<ClickOf<V> | undefined> {
  const { body, action, client, respond } = args;
  const value = parse(action.value);
  if (!value) {
    await sendReply(deps, respond, renderInvalidButton(), { replace_original: false });
    return undefined;
  }
  const where = await clickWorkspace(deps, args);
  if (!where) return undefined;
  const { actor, trunk } = where;
  const workspaceId = actor.workspace.id;
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
    actor,
    triggerId: body.trigger_id,
    ...(body.response_url ? { responseUrl: body.response_url } : {}),
    ...(isHomeClick(body) ? { home: true } : {}),
  };
}

/** Who clicked, where: the Actor of a click (the workspace is the enterprise, for an org-wide install). */
export function clickActor(deps: SlackDeps, args: Pick<ClickArgs, 'body' | 'context' | 'client'>): Actor {
  return interactionActor(deps, args.client, args.context, args.body);
}

/** The workspace a click belongs to (the enterprise, for an org-wide install). */
export function clickWorkspaceId(
  deps: SlackDeps,
  args: Pick<ClickArgs, 'body' | 'context' | 'client'>,
): string {
  return clickActor(deps, args).workspace.id;
}

/** The clicker and the workspace's Trunk access; answers and returns undefined when it is not connected. */
export async function clickWorkspace(
  deps: SlackDeps,
  args: Pick<ClickArgs, 'body' | 'respond' | 'context' | 'client'>,
): Promise<{ actor: Actor; trunk: WorkspaceTrunk } | undefined> {
  const actor = clickActor(deps, args);
  // The button names a queue; this workspace must still be connected to Trunk to act on it.
  const trunk = await servicesOf(deps).queue.trunk(actor);
  if (!trunk) {
    await sendReply(deps, args.respond, renderNotConnected(), { replace_original: false });
    return undefined;
  }
  return { actor, trunk };
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
  /** What would be refused, in words: "pause acme/web:main". */
  refusedWhat: string;
  /** Past-tense phrase for the message's last-action line: "paused", "set concurrency to 3 on". */
  verb: string;
  /** Why, as the person gave it (the Pause and Drain modals): announced and shown on the message. */
  reason?: string;
  request: QueueChangeRequest;
}

/** The queue a click acts on. */
export function clickedQueue(c: Click): QueueAt {
  return { ref: c.value.ref, trunk: c.trunk };
}

/** Where a clicked change came from: it answers beside the message, never in its place. */
export function clickOrigin(c: Click, redrawn?: ChangeOrigin['redraw']): ChangeOrigin {
  return {
    deps: c.deps,
    client: c.client,
    respond: c.respond,
    actor: c.actor,
    channelId: c.channelId ?? '',
    at: clickedQueue(c),
    replyOptions: { replace_original: false },
    ...(redrawn ? { redraw: redrawn } : {}),
  };
}

/** A clicked queue change: the one change flow, answering beside the message and redrawing it in place. */
export function applyClickChange(c: Click, change: ClickChange): Promise<Outcome> {
  const why = change.reason ? { reason: change.reason } : {};
  return applyQueueChange(
    clickOrigin(c, (queue, at) =>
      redraw(c, queue, at === undefined ? undefined : { userId: c.userId, verb: change.verb, at, ...why }),
    ),
    {
      refusedWhat: change.refusedWhat,
      ...why,
      run: () => servicesOf(c.deps).queue.change(c.actor, clickedQueue(c), change.request),
    },
  );
}

/**
 * Registers a status-message button: acks at once, reads the (untrusted) click, runs the handler after
 * the ack, answers any failure with a readable ephemeral message, and counts the outcome.
 */
export function registerButton(
  app: App,
  deps: SlackDeps,
  actionId: string,
  handle: (c: Click) => Promise<Outcome>,
): void {
  registerButtonOf(app, deps, actionId, readClick, handle);
}

/**
 * registerButton for any kind of click: `read` checks it (and answers when it cannot be acted on). A click
 * on the Home tab acts the same way; what it answers, and the redraw, become a re-published Home.
 */
export function registerButtonOf<C>(
  app: App,
  deps: SlackDeps,
  actionId: string,
  read: (deps: SlackDeps, args: ClickArgs) => Promise<C | undefined>,
  handle: (c: C, triggerId: string) => Promise<string>,
): void {
  app.action<BlockAction<ButtonAction>>(actionId, async ({ ack, body, action, client, respond, context }) => {
    await ack();
    await afterAck();
    const home = isHomeClick(body)
      ? homeSession(deps, client, clickWorkspaceId(deps, { body, context, client }), body.user.id)
      : undefined;
    const answer = home?.respond ?? respond;
    // PR buttons (pr-buttons.ts) still count their own outcome words; queue buttons return an Outcome.
    let outcome: string = 'failed';
    try {
      const c = await read(deps, { body, action, client, respond: answer, context });
      outcome = c ? await handle(c, body.trigger_id) : 'invalid';
    } catch (err) {
      deps.logger.error({ err, action: actionId }, 'button failed');
      await sendReply(deps, answer, renderError(err), { replace_original: false });
    }
    try {
      await home?.finish();
    } catch (err) {
      deps.logger.error({ err, action: actionId }, 'could not publish the Home after a click');
    }
    deps.metrics.interactions.inc({ name: actionId, outcome });
  });
}
