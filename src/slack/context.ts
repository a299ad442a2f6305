/**
 * One context per request. A global Bolt middleware (`app.use`, registered first by listeners/index.ts,
 * after the app's guards) puts on Bolt's own `context`, once, before any listener runs:
 * - `actor`: who is asking, where (services/actor.ts), for a payload that names a person (a command, a
 *   click, a form, a pasted link); every rule reads Slack and the store through it at most once;
 * - `services`: the application services, built once in the composition root (src/app-services.ts);
 * - `reply`: the one reply (reply.ts), bound to this request's client and respond();
 * - `slack`: the Slack side's deps (ports, never the store or the configuration).
 * Listeners take Bolt's arguments typed with `AllMiddlewareArgs<RequestContext>` and read these from
 * `context`, so a listener is a plain function a unit test can call with a fake context.
 *
 * Nothing here awaits: the listener's ack() still comes first (the Actor asks nothing until a rule does).
 */
import type { AllMiddlewareArgs, AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Actor } from '../services/actor.ts';
import type { Services } from '../services/index.ts';
import { buildActor } from './actor.ts';
import type { SlackDeps } from './deps.ts';
import { createReply, type Reply } from './reply.ts';

export interface RequestContext {
  [key: string]: unknown;
  /** Who is asking; absent when the payload names no person (an uninstall, a function run). */
  actor?: Actor;
  services: Services;
  reply: Reply;
  slack: SlackDeps;
}

/** A listener's arguments: Bolt's own, with this app's context. */
export type ListenerArgs<Args> = Args & AllMiddlewareArgs<RequestContext>;

/** The request's Actor; a listener registered for a payload that always names a person may rely on it. */
export function actorOf(context: RequestContext): Actor {
  if (!context.actor) throw new Error('this request names no person: no actor on its context');
  return context.actor;
}

type Body = Record<string, unknown> & {
  team?: { id?: string } | null;
  enterprise?: { id?: string } | null;
  user?: { id?: string; team_id?: string } | string;
  user_id?: string;
  team_id?: string;
  enterprise_id?: string;
  command?: string;
  event?: { user?: unknown };
};

/**
 * Who and where a payload says: a slash command (`user_id`, `team_id`), an interaction (`user.id`, the
 * clicker's own `user.team_id`, checked by the operator rule), an event naming a user (link_shared).
 */
function personOf(
  body: Body,
): { userId: string; teamId?: string; enterpriseId?: string; payloadTeamId?: string } | undefined {
  if (typeof body.command === 'string' && typeof body.user_id === 'string')
    return {
      userId: body.user_id,
      ...(body.team_id ? { teamId: body.team_id } : {}),
      ...(body.enterprise_id ? { enterpriseId: body.enterprise_id } : {}),
    };
  if (typeof body.user === 'object' && body.user && typeof body.user.id === 'string')
    return {
      userId: body.user.id,
      ...(body.team?.id ? { teamId: body.team.id } : {}),
      ...(body.enterprise?.id ? { enterpriseId: body.enterprise.id } : {}),
      ...(body.user.team_id ? { payloadTeamId: body.user.team_id } : {}),
    };
  if (body.event && typeof body.event.user === 'string')
    return {
      userId: body.event.user,
      ...(body.team_id ? { teamId: body.team_id } : {}),
      ...(body.enterprise_id ? { enterpriseId: body.enterprise_id } : {}),
    };
  return undefined;
}

/** The middleware that builds each request's context (registered once with `app.use`). */
export function requestContext(deps: SlackDeps): Middleware<AnyMiddlewareArgs, RequestContext> {
  return async (args) => {
    const { context, client, body, next } = args;
    const respond = 'respond' in args ? args.respond : undefined;
    context.services = deps.services;
    context.slack = deps;
    context.reply = createReply(deps, client, respond);
    const person = personOf(body as Body);
    if (person) context.actor = buildActor(deps, client, { context, ...person });
    await next();
  };
}
