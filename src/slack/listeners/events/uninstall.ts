/**
 * Uninstall: when the app is removed or its bot token revoked, the workspace's tokens, Trunk credentials,
 * defaults, operators and digests are deleted (the audit log stays).
 */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.ts';
import { workspaceIdOf } from '../../interaction.ts';

export function register(app: App, deps: SlackDeps): void {
  const forget = async (workspaceId: string, why: string) => {
    if (!workspaceId) return;
    await deps.store.deleteWorkspace(workspaceId);
    deps.workspaces.invalidate(workspaceId);
    deps.logger.info({ workspaceId, why }, 'workspace data deleted');
  };

  app.event('app_uninstalled', async ({ body, context }) => {
    await forget(
      workspaceIdOf({
        teamId: context.teamId ?? body.team_id,
        enterpriseId: context.enterpriseId ?? body.enterprise_id,
        isEnterpriseInstall: context.isEnterpriseInstall ?? false,
      }),
      'app_uninstalled',
    );
  });

  app.event('tokens_revoked', async ({ event, body, context }) => {
    // Only the bot token matters: user tokens are never requested.
    if ((event.tokens.bot ?? []).length === 0) return;
    await forget(
      workspaceIdOf({
        teamId: context.teamId ?? body.team_id,
        enterpriseId: context.enterpriseId ?? body.enterprise_id,
        isEnterpriseInstall: context.isEnterpriseInstall ?? false,
      }),
      'tokens_revoked',
    );
  });
}
