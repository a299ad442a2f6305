/**
 * What every button click shares: ack at once, read the click (untrusted) and who made it (the request's
 * Actor), check the workspace is still connected to Trunk, run the handler after the ack, answer any failure
 * in words, count the outcome. A click on the Home tab answers on the Home. What a status-message click
 * does to its queue is status-click.ts's.
 */
import type { App, BlockAction, ButtonAction, Context, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../../services/actor.ts';
import type { WorkspaceTrunk } from '../../../services/ports.ts';
import { interactionActor } from '../../actor.ts';
import { afterAck } from '../../after-ack.ts';
import { renderError, renderInvalidButton, renderNotConnected } from '../../blocks/errors.ts';
import { type ButtonValue, parseButtonValue } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { homeSession, isHomeClick } from '../../home.ts';
import { sendReply } from '../../reply.ts';
import type { Outcome } from '../outcome.ts';

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
  const trunk = await deps.services.queue.trunk(actor);
  if (!trunk) {
    await sendReply(deps, args.respond, renderNotConnected(), { replace_original: false });
    return undefined;
  }
  return { actor, trunk };
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
