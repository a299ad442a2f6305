/**
 * Bolt's InstallationStore over the store's tables. Org-wide (enterprise) installs are keyed by the
 * enterprise id, workspace installs by the team id; that key is the `workspaceId` used everywhere else.
 * Tokens, refresh tokens and the incoming-webhook URL are encrypted; the rest of Bolt's Installation is
 * kept as JSON so fetchInstallation returns what storeInstallation was given (Bolt's token rotation reads
 * bot.refreshToken/expiresAt back and stores the refreshed installation again).
 */
import type { Installation, InstallationQuery } from '@slack/bolt';
import type { SecretBox } from './crypto.ts';
import { recordKeyUse } from './secrets.ts';
import type { Db, DbExecutor, Store } from './types.ts';

const TABLE = 'slack_installations';

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

type InstallationRow = {
  workspace_id: string;
  bot_token: string | null;
  bot_refresh_token: string | null;
  bot_token_expires_at: number | null;
  user_token: string | null;
  user_refresh_token: string | null;
  user_token_expires_at: number | null;
  incoming_webhook_url: string | null;
  installation_json: string;
};

type SecretField =
  | 'bot_token'
  | 'bot_refresh_token'
  | 'user_token'
  | 'user_refresh_token'
  | 'incoming_webhook_url';

export type StoreInstallations = Store['installations'];

export class SqlInstallationStore implements StoreInstallations {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #now: () => number;

  constructor(db: Db, box: SecretBox, now: () => number) {
    this.#db = db;
    this.#box = box;
    this.#now = now;
  }

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const workspaceId = installationKey({
      isEnterpriseInstall: installation.isEnterpriseInstall,
      enterpriseId: installation.enterprise?.id,
      teamId: installation.team?.id,
    });
    const inst = installation as Installation;
    const seal = (field: SecretField, value: string | undefined | null) =>
      value ? this.#box.encrypt(value, { table: TABLE, workspaceId, field }) : null;
    // Encrypt everything before touching the database: without a key nothing is written.
    const secrets = {
      bot_token: seal('bot_token', inst.bot?.token),
      bot_refresh_token: seal('bot_refresh_token', inst.bot?.refreshToken),
      user_token: seal('user_token', inst.user?.token),
      user_refresh_token: seal('user_refresh_token', inst.user?.refreshToken),
      incoming_webhook_url: seal('incoming_webhook_url', inst.incomingWebhook?.url),
    };
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
    const now = this.#now();
    const secondsToMs = (s: number | undefined) =>
      typeof s === 'number' && Number.isFinite(s) ? Math.round(s * 1000) : null;
    await this.#db.transaction(async (tx) => {
      const keyId = this.#box.currentKeyId;
      if (keyId && Object.values(secrets).some((v) => v !== null)) await recordKeyUse(tx, keyId, now);
      await tx.execute(
        `INSERT INTO slack_installations (workspace_id, team_id, enterprise_id, is_enterprise_install, installer_user_id,
           bot_user_id, bot_token, bot_refresh_token, bot_token_expires_at, user_token, user_refresh_token,
           user_token_expires_at, incoming_webhook_url, installation_json, installed_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)
         ON CONFLICT (workspace_id) DO UPDATE SET team_id = excluded.team_id, enterprise_id = excluded.enterprise_id,
           is_enterprise_install = excluded.is_enterprise_install, installer_user_id = excluded.installer_user_id,
           bot_user_id = excluded.bot_user_id, bot_token = excluded.bot_token, bot_refresh_token = excluded.bot_refresh_token,
           bot_token_expires_at = excluded.bot_token_expires_at, user_token = excluded.user_token,
           user_refresh_token = excluded.user_refresh_token, user_token_expires_at = excluded.user_token_expires_at,
           incoming_webhook_url = excluded.incoming_webhook_url, installation_json = excluded.installation_json,
           updated_at = excluded.updated_at`,
        [
          workspaceId,
          inst.team?.id ?? null,
          inst.enterprise?.id ?? null,
          inst.isEnterpriseInstall === true,
          inst.user.id,
          inst.bot?.userId ?? null,
          secrets.bot_token,
          secrets.bot_refresh_token,
          secondsToMs(inst.bot?.expiresAt),
          secrets.user_token,
          secrets.user_refresh_token,
          secondsToMs(inst.user?.expiresAt),
          secrets.incoming_webhook_url,
          JSON.stringify(rest),
          now,
        ],
      );
      // Only a first install names the installer: a re-install must not hand out the right (the app
      // decides whether it moves, see slack/installer-rights.ts).
      await setInstallerIn(tx, workspaceId, inst.user.id, now, { onlyIfNone: true });
    });
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const workspaceId = installationKey(query);
    const rows = await this.#db.query<InstallationRow>(
      'SELECT * FROM slack_installations WHERE workspace_id = $1',
      [workspaceId],
    );
    const row = rows[0];
    // Bolt expects a throw (it answers the request as unauthorised), not undefined.
    if (!row)
      throw new Error(
        `No Slack installation stored for ${query.isEnterpriseInstall ? 'enterprise' : 'team'} ${workspaceId}`,
      );
    const open = (field: SecretField) => {
      const v = row[field];
      return v === null ? undefined : this.#box.decrypt(v, { table: TABLE, workspaceId, field });
    };
    const inst = JSON.parse(row.installation_json) as Installation;
    if (inst.bot) {
      const token = open('bot_token');
      if (token !== undefined) inst.bot.token = token;
      const refresh = open('bot_refresh_token');
      if (refresh !== undefined) inst.bot.refreshToken = refresh;
      if (row.bot_token_expires_at !== null) inst.bot.expiresAt = Math.round(row.bot_token_expires_at / 1000);
    }
    if (inst.user) {
      const token = open('user_token');
      if (token !== undefined) inst.user.token = token;
      const refresh = open('user_refresh_token');
      if (refresh !== undefined) inst.user.refreshToken = refresh;
      if (row.user_token_expires_at !== null)
        inst.user.expiresAt = Math.round(row.user_token_expires_at / 1000);
    }
    if (inst.incomingWebhook) {
      const url = open('incoming_webhook_url');
      if (url !== undefined) inst.incomingWebhook.url = url;
    }
    return inst;
  }

  async botUserId(workspaceId: string): Promise<string | undefined> {
    const rows = await this.#db.query<{ bot_user_id: string | null }>(
      'SELECT bot_user_id FROM slack_installations WHERE workspace_id = $1',
      [workspaceId],
    );
    return rows[0]?.bot_user_id ?? undefined;
  }

  async revokeUserTokens(workspaceId: string, userIds: readonly string[]): Promise<number> {
    let changed = 0;
    // One installation per workspace holds one user token: its installer's.
    for (const userId of new Set(userIds))
      changed += await this.#db.execute(
        `UPDATE slack_installations SET user_token = NULL, user_refresh_token = NULL, user_token_expires_at = NULL,
           updated_at = $3
         WHERE workspace_id = $1 AND installer_user_id = $2 AND user_token IS NOT NULL`,
        [workspaceId, userId, this.#now()],
      );
    return changed;
  }

  /** Removes the installation (every token) of that team or enterprise; settings stay (see deleteWorkspace). */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.#db.execute('DELETE FROM slack_installations WHERE workspace_id = $1', [
      installationKey(query),
    ]);
  }
}

export async function setInstallerIn(
  db: DbExecutor,
  workspaceId: string,
  userId: string,
  now: number,
  opts: { onlyIfNone?: boolean } = {},
): Promise<void> {
  await db.execute(
    `INSERT INTO workspace_settings (workspace_id, installer_user_id, updated_by, updated_at) VALUES ($1, $2, $2, $3)
     ON CONFLICT (workspace_id) DO UPDATE SET installer_user_id = excluded.installer_user_id,
       updated_by = excluded.updated_by, updated_at = excluded.updated_at
     ${opts.onlyIfNone ? 'WHERE workspace_settings.installer_user_id IS NULL' : ''}`,
    [workspaceId, userId, now],
  );
}
