/**
 * The core schema: Slack installations, workspace settings, channel defaults, operators, the audit log,
 * idempotency claims and the encryption key ids in use. Columns holding secrets contain only
 * `v1.<keyId>.…` ciphertexts (see crypto.ts); timestamps are BIGINT epoch milliseconds.
 */
import type { Migration } from '../types.ts';

const core = (auditId: string) => `
CREATE TABLE slack_installations (
  workspace_id TEXT PRIMARY KEY,            -- team id, or enterprise id for org-wide installs
  team_id TEXT,
  enterprise_id TEXT,
  is_enterprise_install INTEGER NOT NULL DEFAULT 0,
  installer_user_id TEXT NOT NULL,
  bot_user_id TEXT,
  bot_token TEXT,                           -- encrypted
  bot_refresh_token TEXT,                   -- encrypted (token rotation)
  bot_token_expires_at BIGINT,
  user_token TEXT,                          -- encrypted
  user_refresh_token TEXT,                  -- encrypted
  user_token_expires_at BIGINT,
  incoming_webhook_url TEXT,                -- encrypted (the URL is a credential)
  installation_json TEXT NOT NULL,          -- the rest of Bolt's Installation, secrets removed
  installed_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE workspace_settings (
  workspace_id TEXT PRIMARY KEY,
  default_target TEXT,                      -- host/owner/name[:branch] or :branch
  installer_user_id TEXT,
  trunk_org_slug TEXT,
  trunk_token TEXT,                         -- encrypted
  trunk_updated_by TEXT,
  trunk_updated_at BIGINT,
  updated_by TEXT,
  updated_at BIGINT NOT NULL
);

CREATE TABLE channel_defaults (
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  target TEXT NOT NULL,
  updated_by TEXT,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, channel_id)
);

CREATE TABLE operators (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'usergroup')),
  subject_id TEXT NOT NULL,
  added_by TEXT NOT NULL,
  added_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, kind, subject_id)
);

CREATE TABLE audit_log (
  id ${auditId},
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL,                     -- JSON
  at BIGINT NOT NULL
);
CREATE INDEX audit_log_workspace_at ON audit_log (workspace_id, at, id);
CREATE INDEX audit_log_workspace_target_at ON audit_log (workspace_id, target, at, id);

CREATE TABLE idempotency_claims (
  claim_key TEXT PRIMARY KEY,
  claimed_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX idempotency_claims_expires ON idempotency_claims (expires_at);

CREATE TABLE encryption_keys (
  key_id TEXT PRIMARY KEY,
  first_used_at BIGINT NOT NULL,
  retired_at BIGINT                         -- set once no stored secret uses the key
);
`;

export const coreMigration: Migration = {
  id: 1,
  name: 'core',
  sqlite: core('INTEGER PRIMARY KEY AUTOINCREMENT'),
  postgres: core('BIGSERIAL PRIMARY KEY'),
  workspaceTables: ['slack_installations', 'workspace_settings', 'channel_defaults', 'operators'],
};
