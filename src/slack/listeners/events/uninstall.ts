/**
 * app_uninstalled deletes the workspace's tokens, Trunk credentials, defaults, operators and digests (the
 * audit log stays). tokens_revoked deletes only what was revoked (see ../../revocation.ts).
 */
import type { App, Context } from '@slack/bolt';
import { workspaceIdOf } from '../../actor.ts';
import type { SlackDeps } from '../../deps.ts';
import { applyRevocation } from '../../revocation.ts';

type Envelope = { team_id?: string; enterprise_id?: string };

const workspaceOf = (context: Context, body: Envelope) =>
  workspaceIdOf({
    teamId: context.teamId ?? body.team_id,
    enterpriseId: context.enterpriseId ?? body.enterprise_id,
    isEnterpriseInstall: context.isEnterpriseInstall ?? false,
  });

export function registerUninstall(app: App, deps: SlackDeps): void {
  app.event('app_uninstalled', async ({ body, context }) => {
    const workspaceId = workspaceOf(context, body);
    if (!workspaceId) return;
    await deps.services.workspace.uninstalled(workspaceId);
  });

  app.event('tokens_revoked', async ({ event, body, context }) => {
    const workspaceId = workspaceOf(context, body);
    if (!workspaceId) return;
    await applyRevocation(deps, workspaceId, event.tokens, () => deps.workspaces.slackFor(workspaceId));
  });
}
