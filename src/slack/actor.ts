/**
 * The Slack side of services/actor.ts: one Actor per request, built from what Bolt handed the listener (a
 * slash command, a block_actions click, a view submission) with the workspace's Directory (users.info,
 * user groups, channel membership: slack/directory.ts); the store and the audit-lost sink are bound by the
 * composition root (deps.actors). Built once per request (slack/context.ts).
 */
import type { Context } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor, ActorWorkspace, InstallKind } from '../services/actor.ts';
import type { SlackDeps } from './deps.ts';

export interface Who {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/** The team id, or the enterprise id for org-wide installs (how the store keys workspaces). */
export function workspaceIdOf(who: Who): string {
  if (who.isEnterpriseInstall && who.enterpriseId) return who.enterpriseId;
  return who.teamId ?? who.enterpriseId ?? '';
}

/** Who and where, as a payload says it; `context` is Bolt's (its team/enterprise come from the install). */
export interface ActorSource {
  context: Pick<Context, 'teamId' | 'enterpriseId' | 'isEnterpriseInstall'>;
  /** The payload's own team and enterprise (command `team_id`, click/view `team.id`). */
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  userId: string;
  /**
   * The person's team as the payload said it (block_actions / view_submission `user.team_id`), checked
   * against users.info by the operator rule. Leave it out where today's rule does not check it.
   */
  payloadTeamId?: string | undefined;
}

/** The workspace a request acts in: the team, or the enterprise of an org-wide install. */
export function actorWorkspace(deps: Pick<SlackDeps, 'settings'>, source: ActorSource): ActorWorkspace {
  const teamId = source.context.teamId ?? source.teamId;
  const enterpriseId = source.context.enterpriseId ?? source.enterpriseId;
  const isEnterpriseInstall = source.context.isEnterpriseInstall;
  const install: InstallKind =
    deps.settings.mode === 'oauth' ? (isEnterpriseInstall ? 'enterprise' : 'workspace') : 'single';
  return {
    id: workspaceIdOf({ teamId, enterpriseId, isEnterpriseInstall }),
    ...(teamId ? { teamId } : {}),
    ...(enterpriseId ? { enterpriseId } : {}),
    install,
  };
}

/** The Actor of one request; `client` is the request's WebClient (the workspace's bot token). */
export function buildActor(deps: SlackDeps, client: WebClient, source: ActorSource): Actor {
  const workspace = actorWorkspace(deps, source);
  return actorIn(deps, client, workspace, source.userId, source.payloadTeamId);
}

/** An Actor for a workspace already resolved (a command whose request carries its workspace id). */
export function actorIn(
  deps: SlackDeps,
  client: WebClient,
  workspace: ActorWorkspace | string,
  userId: string,
  payloadTeamId?: string,
): Actor {
  const ws: ActorWorkspace =
    typeof workspace === 'string'
      ? { id: workspace, install: deps.settings.mode === 'oauth' ? 'workspace' : 'single' }
      : workspace;
  return deps.actors({
    workspace: ws,
    userId,
    payloadTeamId,
    directory: deps.directory.forWorkspace(ws.id, client),
  });
}

/** From a block_actions or view_submission body; the clicker's own team is checked by the operator rule. */
export function interactionActor(
  deps: SlackDeps,
  client: WebClient,
  context: ActorSource['context'],
  body: {
    team?: { id?: string } | null | undefined;
    enterprise?: { id?: string } | null | undefined;
    user: { id: string; team_id?: string | undefined };
  },
  opts: { checkPayloadTeam?: boolean } = { checkPayloadTeam: true },
): Actor {
  return buildActor(deps, client, {
    context,
    teamId: body.team?.id,
    enterpriseId: body.enterprise?.id,
    userId: body.user.id,
    ...(opts.checkPayloadTeam ? { payloadTeamId: body.user.team_id } : {}),
  });
}
