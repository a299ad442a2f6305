/**
 * Slack installations over the store's tables, as plain records (the Bolt InstallationStore adapter that
 * builds and reads them lives in slack/installation-store.ts). Tokens, refresh tokens and the
 * incoming-webhook URL are encrypted; the rest of the installation is kept as JSON exactly as given, so a
 * record loads back as it was saved (Bolt's token rotation reads the refresh token and expiry back and
 * saves the refreshed installation again).
 */
import type { SecretBox } from './crypto.ts';
import { recordKeyUse } from './secrets.ts';
import type { Db, DbExecutor, InstallationRecord, Store } from './types.ts';

const TABLE = 'slack_installations';

type InstallationRow = {
  workspace_id: string;
  team_id: string | null;
  enterprise_id: string | null;
  is_enterprise_install: boolean | number;
  installer_user_id: string;
  bot_user_id: string | null;
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

export class SqlInstallations implements StoreInstallations {
  readonly #db: Db;
  readonly #box: SecretBox;
  readonly #now: () => number;

  constructor(db: Db, box: SecretBox, now: () => number) {
    this.#db = db;
    this.#box = box;
    this.#now = now;
  }

  async save(record: InstallationRecord): Promise<void> {
    const { workspaceId } = record;
    const seal = (field: SecretField, value: string | undefined) =>
      value ? this.#box.encrypt(value, { table: TABLE, workspaceId, field }) : null;
    // Encrypt everything before touching the database: without a key nothing is written.
    const secrets = {
      bot_token: seal('bot_token', record.botToken),
      bot_refresh_token: seal('bot_refresh_token', record.botRefreshToken),
      user_token: seal('user_token', record.userToken),
      user_refresh_token: seal('user_refresh_token', record.userRefreshToken),
      incoming_webhook_url: seal('incoming_webhook_url', record.incomingWebhookUrl),
    };
    const now = this.#now();
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
          record.teamId ?? null,
          record.enterpriseId ?? null,
          record.isEnterpriseInstall,
          record.installerUserId,
          record.botUserId ?? null,
          secrets.bot_token,
          secrets.bot_refresh_token,
          record.botTokenExpiresAt ?? null,
          secrets.user_token,
          secrets.user_refresh_token,
          record.userTokenExpiresAt ?? null,
          secrets.incoming_webhook_url,
          JSON.stringify(record.details),
          now,
        ],
      );
      // Only a first install names the installer: a re-install must not hand out the right (the app
      // decides whether it moves, see slack/installer-rights.ts).
      await setInstallerIn(tx, workspaceId, record.installerUserId, now, { onlyIfNone: true });
    });
  }

  async load(workspaceId: string): Promise<InstallationRecord | undefined> {
    const rows = await this.#db.query<InstallationRow>(
      'SELECT * FROM slack_installations WHERE workspace_id = $1',
      [workspaceId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const open = (field: SecretField) => {
      const v = row[field];
      return v === null ? undefined : this.#box.decrypt(v, { table: TABLE, workspaceId, field });
    };
    const record: InstallationRecord = {
      workspaceId,
      isEnterpriseInstall: row.is_enterprise_install === true || row.is_enterprise_install === 1,
      installerUserId: row.installer_user_id,
      details: JSON.parse(row.installation_json) as Record<string, unknown>,
    };
    const optional = {
      teamId: row.team_id ?? undefined,
      enterpriseId: row.enterprise_id ?? undefined,
      botUserId: row.bot_user_id ?? undefined,
      botToken: open('bot_token'),
      botRefreshToken: open('bot_refresh_token'),
      botTokenExpiresAt: row.bot_token_expires_at ?? undefined,
      userToken: open('user_token'),
      userRefreshToken: open('user_refresh_token'),
      userTokenExpiresAt: row.user_token_expires_at ?? undefined,
      incomingWebhookUrl: open('incoming_webhook_url'),
    };
    for (const [key, value] of Object.entries(optional))
      if (value !== undefined) Object.assign(record, { [key]: value });
    return record;
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

  /** Removes the installation (every token) of that workspace or enterprise; settings stay (see deleteWorkspace). */
  async delete(workspaceId: string): Promise<void> {
    await this.#db.execute('DELETE FROM slack_installations WHERE workspace_id = $1', [workspaceId]);
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
