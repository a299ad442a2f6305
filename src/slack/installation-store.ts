/**
 * Bolt's InstallationStore on top of the store's plain installation records. Org-wide (enterprise) installs
 * are keyed by the enterprise id, workspace installs by the team id; that key is the `workspaceId` used
 * everywhere else. The secrets are lifted out of Bolt's Installation into the record's encrypted fields and
 * the rest is kept as given, so fetchInstallation returns what storeInstallation was given.
 */
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { InstallationRecords } from './ports.ts';

/** The workspace id an installation or query is stored under. */
export function installationKey(q: {
  isEnterpriseInstall?: boolean | undefined;
  enterpriseId?: string | undefined;
  teamId?: string | undefined;
}): string {
  if (q.isEnterpriseInstall) {
    if (!q.enterpriseId) throw new Error('An enterprise (org-wide) installation needs an enterprise id');
    return q.enterpriseId;
  }
  if (!q.teamId) throw new Error('A workspace installation needs a team id');
  return q.teamId;
}

export interface SlackInstallationStore extends InstallationStore {
  fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation>;
  /** Used by uninstall handling; removes bot and user tokens of that team or enterprise. */
  deleteInstallation(query: InstallationQuery<boolean>): Promise<void>;
}

/** Slack's expiry times are epoch seconds; the store keeps milliseconds. */
const secondsToMs = (s: number | undefined) =>
  typeof s === 'number' && Number.isFinite(s) ? Math.round(s * 1000) : undefined;

export function slackInstallationStore(installations: InstallationRecords): SlackInstallationStore {
  return {
    async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
      installation: Installation<AuthVersion, boolean>,
    ): Promise<void> {
      const workspaceId = installationKey({
        isEnterpriseInstall: installation.isEnterpriseInstall,
        enterpriseId: installation.enterprise?.id,
        teamId: installation.team?.id,
      });
      const inst = installation as Installation;
      const rest = structuredClone(inst) as Installation;
      if (rest.bot) {
        delete (rest.bot as Partial<NonNullable<Installation['bot']>>).token;
        delete rest.bot.refreshToken;
        delete rest.bot.expiresAt;
      }
      if (rest.user) {
        delete (rest.user as Partial<Installation['user']>).token;
        delete rest.user.refreshToken;
        delete rest.user.expiresAt;
      }
      if (rest.incomingWebhook)
        delete (rest.incomingWebhook as Partial<NonNullable<Installation['incomingWebhook']>>).url;
      const optional = {
        teamId: inst.team?.id,
        enterpriseId: inst.enterprise?.id,
        botUserId: inst.bot?.userId,
        botToken: inst.bot?.token,
        botRefreshToken: inst.bot?.refreshToken,
        botTokenExpiresAt: secondsToMs(inst.bot?.expiresAt),
        userToken: inst.user?.token,
        userRefreshToken: inst.user?.refreshToken,
        userTokenExpiresAt: secondsToMs(inst.user?.expiresAt),
        incomingWebhookUrl: inst.incomingWebhook?.url,
      };
      await installations.save({
        workspaceId,
        isEnterpriseInstall: inst.isEnterpriseInstall === true,
        installerUserId: inst.user.id,
        // Bolt's Installation is a plain JSON object; the store keeps it without knowing its shape.
        details: rest as unknown as Record<string, unknown>,
        ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
      });
    },

    async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
      const workspaceId = installationKey(query);
      const record = await installations.load(workspaceId);
      // Bolt expects a throw (it answers the request as unauthorised), not undefined.
      if (!record)
        throw new Error(
          `No Slack installation stored for ${query.isEnterpriseInstall ? 'enterprise' : 'team'} ${workspaceId}`,
        );
      const inst = record.details as unknown as Installation;
      if (inst.bot) {
        if (record.botToken !== undefined) inst.bot.token = record.botToken;
        if (record.botRefreshToken !== undefined) inst.bot.refreshToken = record.botRefreshToken;
        if (record.botTokenExpiresAt !== undefined)
          inst.bot.expiresAt = Math.round(record.botTokenExpiresAt / 1000);
      }
      if (inst.user) {
        if (record.userToken !== undefined) inst.user.token = record.userToken;
        if (record.userRefreshToken !== undefined) inst.user.refreshToken = record.userRefreshToken;
        if (record.userTokenExpiresAt !== undefined)
          inst.user.expiresAt = Math.round(record.userTokenExpiresAt / 1000);
      }
      if (inst.incomingWebhook && record.incomingWebhookUrl !== undefined)
        inst.incomingWebhook.url = record.incomingWebhookUrl;
      return inst;
    },

    async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
      await installations.delete(installationKey(query));
    },
  };
}
