/**
 * What a button click is, read once: its (untrusted) value, where it was clicked, and the request's context
 * (slack/context.ts: who clicked, the services, the reply). A click that cannot be acted on is answered
 * here. How a click is acknowledged, run and counted is button.ts's; a status-message click is
 * status-click.ts's.
 */
import type { BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../../services/actor.ts';
import type { Services } from '../../../services/index.ts';
import type { WorkspaceTrunk } from '../../../services/ports.ts';
import { renderInvalidButton, renderNotConnected } from '../../blocks/errors.ts';
import { type ButtonValue, parseButtonValue } from '../../blocks/ids.ts';
import { actorOf, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { isHomeClick } from '../../home.ts';
import type { Reply } from '../../reply.ts';

/** A click on a button whose value parses as V. */
export interface ClickOf<V> {
  deps: SlackDeps;
  services: Services;
  /** The one reply, bound to where this click answers (its response_url, or the Home). */
  reply: Reply;
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
  /** Who clicked, built once for this request (slack/context.ts). */
  actor: Actor;
  triggerId: string;
  /** Kept for a step that answers later, like a modal's submission. */
  responseUrl?: string;
  /** Clicked on the Home tab: no channel or message; answers and redraws go to the Home (slack/home.ts). */
  home?: boolean;
}

export type Click = ClickOf<ButtonValue>;

/** Bolt's arguments of a click, with the reply (and respond) bound to where it answers. */
export interface ClickArgs {
  body: BlockAction;
  action: ButtonAction;
  client: WebClient;
  respond: RespondFn;
  context: RequestContext;
  reply: Reply;
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
  const { body, action, client, respond, context, reply } = args;
  const value = parse(action.value);
  if (!value) {
    await reply.respond(renderInvalidButton(), { replace_original: false });
    return undefined;
  }
  const actor = actorOf(context);
  // The button names a queue; this workspace must still be connected to Trunk to act on it.
  const trunk = await context.services.queue.trunk(actor);
  if (!trunk) {
    await reply.respond(renderNotConnected(), { replace_original: false });
    return undefined;
  }
  return {
    deps,
    services: context.services,
    reply,
    client,
    respond,
    workspaceId: actor.workspace.id,
    userId: body.user.id,
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
