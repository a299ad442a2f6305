/**
 * The installer is an operator by right, so who counts as "the installer" is itself a right. Anyone Slack
 * lets complete /slack/install may re-install (the new tokens are stored: Slack authorised them), but the
 * installer right moves to them only when they already are an admin, owner or operator of the workspace.
 * Every change, and every refused change, is audited as `installer.change`.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { Logger } from '../observability/log.ts';
import { checkOperator } from '../queue/permissions.ts';
import type { DirectoryCache } from './directory.ts';
import { installationKey, slackInstallationStore } from './installation-store.ts';
import type { InstallationKeeping } from './ports.ts';

export interface InstallerRightsOptions {
  /** The store, through the port Bolt's installation store needs (app.ts hands the store in). */
  store: InstallationKeeping;
  logger: Logger;
  directory: DirectoryCache;
  /** Options of the WebClient that asks Slack about the re-installing person (SLACK_API_URL etc.). */
  clientOptions: WebClientOptions;
}

/** Bolt's InstallationStore over the store's, deciding whether the installer right moves. */
export function installerRightsStore(opts: InstallerRightsOptions): InstallationStore {
  const { store, logger } = opts;
  const inner = slackInstallationStore(store.installations);
  return {
    async storeInstallation(installation: Installation) {
      const workspaceId = installationKey({
        isEnterpriseInstall: installation.isEnterpriseInstall,
        enterpriseId: installation.enterprise?.id,
        teamId: installation.team?.id,
      });
      const userId = installation.user?.id;
      const before = (await store.getWorkspace(workspaceId))?.installerUserId;
      // Records the installer only when none is recorded yet (a first install, or after an uninstall).
      await inner.storeInstallation(installation);
      if (!userId || before === userId) return;
      if (!before) {
        await audit(store, logger, workspaceId, userId, 'ok', { to: userId, because: 'first install' });
        return;
      }
      const client = new WebClient(installation.bot?.token, opts.clientOptions);
      const decision = await checkOperator({
        directory: opts.directory.forWorkspace(workspaceId, client),
        store,
        workspaceId,
        userId,
        installerUserId: before,
      });
      if (!decision.allowed) {
        logger.warn(
          { workspace: workspaceId, user: userId },
          'a re-install did not move the installer right',
        );
        await audit(store, logger, workspaceId, userId, 'refused', {
          from: before,
          to: userId,
          because: decision.because,
        });
        return;
      }
      await store.setInstaller(workspaceId, userId);
      await audit(store, logger, workspaceId, userId, 'ok', {
        from: before,
        to: userId,
        because: decision.because,
      });
    },
    fetchInstallation: (query) => inner.fetchInstallation(query),
    deleteInstallation: (query: InstallationQuery<boolean>) => inner.deleteInstallation(query),
  };
}

async function audit(
  store: InstallationKeeping,
  logger: Logger,
  workspaceId: string,
  userId: string,
  outcome: 'ok' | 'refused',
  detail: Record<string, unknown>,
): Promise<void> {
  try {
    await store.appendAudit({ workspaceId, userId, action: 'installer.change', target: '', outcome, detail });
  } catch (err) {
    // The install itself succeeded; losing the audit line must not turn it into an error page.
    logger.error({ err, workspace: workspaceId }, 'could not audit an installer change');
  }
}
