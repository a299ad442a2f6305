/** The record of a Slack installation: kept by store/ and read by Bolt's installation store in slack/. */

/**
 * One Slack installation as the store keeps it. `workspaceId` is the team id, or the enterprise id for an
 * org-wide install. The secrets are encrypted at rest; `details` is the rest of what Slack's OAuth gave,
 * without any secret in it, kept as given so it can be handed back unchanged. Expiry times are epoch ms.
 */
export interface InstallationRecord {
  workspaceId: string;
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
  installerUserId: string;
  botUserId?: string;
  botToken?: string;
  botRefreshToken?: string;
  botTokenExpiresAt?: number;
  userToken?: string;
  userRefreshToken?: string;
  userTokenExpiresAt?: number;
  incomingWebhookUrl?: string;
  details: Record<string, unknown>;
}
