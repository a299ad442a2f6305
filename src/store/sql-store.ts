/**
 * The one Store implementation, written once in portable SQL over the `Db` seam; the engines differ only
 * in their adapters (db-sqlite.ts, db-postgres.ts).
 */

import { SECRET_KEYS } from '../core/secret-keys.ts';
import { parseTarget, type TargetSpec } from '../core/target.ts';
import { webhookSecretsProblem } from '../core/webhook-secrets.ts';
import type { Logger } from '../observability/log.ts';
import type { SecretBox, SecretContext } from './crypto.ts';
import type { EngineDb } from './engine.ts';
import { SqlInstallations, setInstallerIn } from './installations.ts';
import { SqlLeases } from './leases.ts';
import { checkMigrationList } from './migrate.ts';
import { SqlRequestClaims } from './request-claims.ts';
import { recordKeyUse, reencryptAll, scanKeyIds } from './secrets.ts';
import { checkTrunkCredentials, InvalidStoreInputError } from './trunk-credentials.ts';
import type {
  AuditEntry,
  Migration,
  NewStepWait,
  Operator,
  Store,
  TrunkCredentials,
  WorkspaceSettings,
} from './types.ts';

/** Refusals of one person and action closer together than this share one audit row. */
export const REFUSAL_COLLAPSE_MS = 60 * 60 * 1000;
const SECRET_KEY_SET = new Set(SECRET_KEYS.map((k) => k.toLowerCase()));

/** Stored form of a target: always with the host, so it parses back to the same TargetSpec. */
export function targetToText(t: TargetSpec): string {
  const repo = t.repo ? `${t.repo.host}/${t.repo.owner}/${t.repo.name}` : '';
  return `${repo}${t.branch !== undefined ? `:${t.branch}` : ''}`;
}

function textToTarget(text: string | null | undefined, logger?: Logger): TargetSpec | undefined {
  if (!text) return undefined;
  const parsed = parseTarget(text);
  if (parsed.ok) return parsed.value;
  logger?.warn({ target: text }, 'stored target no longer parses; ignoring it');
  return undefined;
}

/** Audit details are meant to be secret-free; a secret-named key that slips in is redacted, not stored. */
function scrub(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = SECRET_KEY_SET.has(k.toLowerCase()) ? '[redacted]' : scrub(v, depth + 1);
  return out;
}

type SettingsRow = {
  workspace_id: string;
  default_target: string | null;
  installer_user_id: string | null;
  trunk_org_slug: string | null;
  trunk_token: string | null;
  trunk_updated_by: string | null;
  trunk_updated_at: number | null;
  has_v2_key: boolean | number | null;
  has_webhook_secrets: boolean | number | null;
};

export interface SqlStoreOptions {
  db: EngineDb;
  box: SecretBox;
  migrations: readonly Migration[];
  now: () => number;
  logger?: Logger;
}

export class SqlStore implements Store {
  readonly db: EngineDb;
  readonly installations: SqlInstallations;
  readonly leases: SqlLeases;
  readonly #box: SecretBox;
  readonly #migrations: readonly Migration[];
  readonly #workspaceTables: string[];
  readonly #botTables: string[];
  readonly #now: () => number;
  readonly #logger: Logger | undefined;
  readonly #requestClaims: SqlRequestClaims;

  constructor(opts: SqlStoreOptions) {
    checkMigrationList(opts.migrations);
    this.db = opts.db;
    this.#box = opts.box;
    this.#migrations = opts.migrations;
    this.#now = opts.now;
    this.#logger = opts.logger;
    // Later migrations first (a table referencing an earlier one is emptied before it), each in its listed order.
    const dropped = new Set(opts.migrations.flatMap((m) => m.dropsTables ?? []));
    const kept = (t: string) => !dropped.has(t);
    this.#workspaceTables = [...opts.migrations]
      .reverse()
      .flatMap((m) => m.workspaceTables ?? [])
      .filter(kept);
    this.#botTables = [...opts.migrations]
      .reverse()
      .flatMap((m) => m.botTables ?? [])
      .filter(kept);
    for (const t of this.#botTables)
      if (!this.#workspaceTables.includes(t))
        throw new Error(`Migration lists a bot table that is not a workspace table: ${t}`);
    for (const t of this.#workspaceTables)
      if (!/^[a-z_][a-z0-9_]*$/.test(t))
        throw new Error(`Migration lists an invalid workspace table name: ${t}`);
    this.installations = new SqlInstallations(opts.db, opts.box, opts.now);
    this.leases = new SqlLeases(opts.db);
    this.#requestClaims = new SqlRequestClaims(opts.db, opts.now);
  }

  get dialect(): 'sqlite' | 'postgres' {
    return this.db.dialect;
  }

  async ready(): Promise<{ ok: boolean; schemaVersion: number; detail?: string }> {
    const expected = this.#migrations.at(-1)?.id ?? 0;
    try {
      const rows = await this.db.query<{ v: number | null }>('SELECT MAX(id) AS v FROM schema_migrations');
      const schemaVersion = Number(rows[0]?.v ?? 0);
      if (schemaVersion < expected)
        return { ok: false, schemaVersion, detail: `schema at ${schemaVersion}, expected ${expected}` };
      return { ok: true, schemaVersion };
    } catch (err) {
      return { ok: false, schemaVersion: 0, detail: `database unreachable: ${(err as Error).message}` };
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }

  // ---- workspace settings

  async getWorkspace(workspaceId: string): Promise<WorkspaceSettings | undefined> {
    const rows = await this.db.query<SettingsRow>(
      `SELECT workspace_id, default_target, installer_user_id, trunk_org_slug, trunk_token, trunk_updated_by, trunk_updated_at,
         trunk_v2_key IS NOT NULL AS has_v2_key, trunk_webhook_secrets IS NOT NULL AS has_webhook_secrets
       FROM workspace_settings WHERE workspace_id = $1`,
      [workspaceId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const ws: WorkspaceSettings = { workspaceId, hasTrunkCredentials: row.trunk_token !== null };
    const target = textToTarget(row.default_target, this.#logger);
    if (target) ws.defaultTarget = target;
    if (row.trunk_org_slug !== null) ws.trunkOrgSlug = row.trunk_org_slug;
    if (row.trunk_updated_by !== null) ws.trunkCredentialsUpdatedBy = row.trunk_updated_by;
    if (row.trunk_updated_at !== null) ws.trunkCredentialsUpdatedAt = row.trunk_updated_at;
    if (row.installer_user_id !== null) ws.installerUserId = row.installer_user_id;
    // SQLite answers 0/1, PostgreSQL a boolean.
    if (row.has_v2_key === true || Number(row.has_v2_key) === 1) ws.hasTrunkV2Key = true;
    if (row.has_webhook_secrets === true || Number(row.has_webhook_secrets) === 1)
      ws.hasTrunkWebhookSecrets = true;
    return ws;
  }

  async setWorkspaceDefaultTarget(
    workspaceId: string,
    target: TargetSpec | undefined,
    updatedBy?: string,
  ): Promise<void> {
    await this.db.execute(
      `INSERT INTO workspace_settings (workspace_id, default_target, updated_by, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id) DO UPDATE SET default_target = excluded.default_target,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [workspaceId, target ? targetToText(target) : null, updatedBy ?? null, this.#now()],
    );
  }

  async setInstaller(workspaceId: string, userId: string): Promise<void> {
    await setInstallerIn(this.db, workspaceId, userId, this.#now());
  }

  async setTrunkCredentials(workspaceId: string, creds: TrunkCredentials, updatedBy: string): Promise<void> {
    const checked = checkTrunkCredentials(creds);
    if (!checked.ok) throw new InvalidStoreInputError(checked.errors.map((e) => e.message));
    const ctx = { table: 'workspace_settings', workspaceId, field: 'trunk_token' };
    // Encrypt first: without ENCRYPTION_KEY this throws before anything is written.
    const sealed = this.#box.encrypt(checked.value.token, ctx);
    const now = this.#now();
    await this.db.transaction(async (tx) => {
      await recordKeyUse(tx, this.#box.currentKeyId!, now);
      await tx.execute(
        `INSERT INTO workspace_settings (workspace_id, trunk_org_slug, trunk_token, trunk_updated_by, trunk_updated_at, updated_by, updated_at)
         VALUES ($1, $2, $3, $4, $5, $4, $5)
         ON CONFLICT (workspace_id) DO UPDATE SET trunk_org_slug = excluded.trunk_org_slug, trunk_token = excluded.trunk_token,
           trunk_updated_by = excluded.trunk_updated_by, trunk_updated_at = excluded.trunk_updated_at,
           updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
        [workspaceId, checked.value.orgSlug, sealed, updatedBy, now],
      );
    });
    this.#logger?.info({ workspaceId, updatedBy, keyId: this.#box.currentKeyId }, 'trunk credentials stored');
  }

  async getTrunkCredentials(workspaceId: string): Promise<TrunkCredentials | undefined> {
    const rows = await this.db.query<{ trunk_token: string | null; trunk_org_slug: string | null }>(
      'SELECT trunk_token, trunk_org_slug FROM workspace_settings WHERE workspace_id = $1',
      [workspaceId],
    );
    const row = rows[0];
    if (!row || row.trunk_token === null) return undefined;
    const token = this.#box.decrypt(row.trunk_token, {
      table: 'workspace_settings',
      workspaceId,
      field: 'trunk_token',
    });
    return { token, orgSlug: row.trunk_org_slug ?? '' };
  }

  async setTrunkV2Key(workspaceId: string, key: string | undefined, updatedBy: string): Promise<void> {
    const value = key?.trim();
    if (value !== undefined && !/^trunk_v2_\S{1,1000}$/.test(value))
      throw new InvalidStoreInputError([
        'That is not a Trunk v2 API key: it starts with trunk_v2_ (Trunk → Settings → Developer → API Keys).',
      ]);
    await this.#setSettingsSecret(workspaceId, 'trunk_v2_key', value, updatedBy);
    this.#logger?.info({ workspaceId, updatedBy, removed: value === undefined }, 'trunk v2 key stored');
  }

  /** Encrypts `value` into one secret column of the workspace's settings (undefined clears it). */
  async #setSettingsSecret(
    workspaceId: string,
    column: 'trunk_v2_key' | 'trunk_webhook_secrets',
    value: string | undefined,
    updatedBy: string,
  ): Promise<void> {
    const ctx = { table: 'workspace_settings', workspaceId, field: column };
    const sealed = value === undefined ? null : this.#box.encrypt(value, ctx);
    const now = this.#now();
    await this.db.transaction(async (tx) => {
      if (sealed !== null) await recordKeyUse(tx, this.#box.currentKeyId!, now);
      await tx.execute(
        `INSERT INTO workspace_settings (workspace_id, ${column}, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id) DO UPDATE SET ${column} = excluded.${column},
           updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
        [workspaceId, sealed, updatedBy, now],
      );
    });
  }

  async getTrunkV2Key(workspaceId: string): Promise<string | undefined> {
    const rows = await this.db.query<{ trunk_v2_key: string | null }>(
      'SELECT trunk_v2_key FROM workspace_settings WHERE workspace_id = $1',
      [workspaceId],
    );
    const sealed = rows[0]?.trunk_v2_key;
    if (!sealed) return undefined;
    return this.#box.decrypt(sealed, { table: 'workspace_settings', workspaceId, field: 'trunk_v2_key' });
  }

  async setTrunkWebhookSecrets(
    workspaceId: string,
    secrets: readonly string[],
    updatedBy: string,
  ): Promise<void> {
    const list = [...new Set(secrets.map((x) => x.trim()).filter((x) => x !== ''))];
    const problem = webhookSecretsProblem(list);
    if (problem) throw new InvalidStoreInputError([`Webhook signing secrets: ${problem}.`]);
    await this.#setSettingsSecret(
      workspaceId,
      'trunk_webhook_secrets',
      list.length === 0 ? undefined : list.join('\n'),
      updatedBy,
    );
    this.#logger?.info({ workspaceId, updatedBy, count: list.length }, 'trunk webhook secrets stored');
  }

  async getTrunkWebhookSecrets(workspaceId: string): Promise<string[]> {
    const rows = await this.db.query<{ trunk_webhook_secrets: string | null }>(
      'SELECT trunk_webhook_secrets FROM workspace_settings WHERE workspace_id = $1',
      [workspaceId],
    );
    const sealed = rows[0]?.trunk_webhook_secrets;
    if (!sealed) return [];
    const ctx = { table: 'workspace_settings', workspaceId, field: 'trunk_webhook_secrets' };
    return this.#box
      .decrypt(sealed, ctx)
      .split('\n')
      .filter((x) => x !== '');
  }

  async getUnfurlGithub(workspaceId: string): Promise<boolean> {
    const rows = await this.db.query<{ unfurl_github: number | boolean | null }>(
      'SELECT unfurl_github FROM workspace_settings WHERE workspace_id = $1',
      [workspaceId],
    );
    const v = rows[0]?.unfurl_github;
    return v === true || Number(v) === 1;
  }

  async setUnfurlGithub(workspaceId: string, on: boolean, updatedBy: string): Promise<void> {
    await this.db.execute(
      `INSERT INTO workspace_settings (workspace_id, unfurl_github, updated_by, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id) DO UPDATE SET unfurl_github = excluded.unfurl_github,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [workspaceId, on ? 1 : 0, updatedBy, this.#now()],
    );
  }

  async deleteWorkspace(workspaceId: string): Promise<void> {
    const removed: Record<string, number> = {};
    await this.db.transaction(async (tx) => {
      for (const table of this.#workspaceTables)
        removed[table] = await tx.execute(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    });
    this.#logger?.info({ workspaceId, removed }, 'workspace data deleted (audit log kept)');
  }

  async deleteBotData(workspaceId: string): Promise<void> {
    const removed: Record<string, number> = {};
    await this.db.transaction(async (tx) => {
      for (const table of [...this.#botTables, 'slack_installations'])
        removed[table] = await tx.execute(`DELETE FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    });
    this.#logger?.info({ workspaceId, removed }, 'bot token and bot-only data deleted (settings kept)');
  }

  // ---- channel defaults

  async getChannelDefault(workspaceId: string, channelId: string): Promise<TargetSpec | undefined> {
    const rows = await this.db.query<{ target: string }>(
      'SELECT target FROM channel_defaults WHERE workspace_id = $1 AND channel_id = $2',
      [workspaceId, channelId],
    );
    return textToTarget(rows[0]?.target, this.#logger);
  }

  async setChannelDefault(
    workspaceId: string,
    channelId: string,
    target: TargetSpec | undefined,
    updatedBy?: string,
  ): Promise<void> {
    if (!target) {
      await this.db.execute('DELETE FROM channel_defaults WHERE workspace_id = $1 AND channel_id = $2', [
        workspaceId,
        channelId,
      ]);
      return;
    }
    await this.db.execute(
      `INSERT INTO channel_defaults (workspace_id, channel_id, target, updated_by, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, channel_id) DO UPDATE SET target = excluded.target,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [workspaceId, channelId, targetToText(target), updatedBy ?? null, this.#now()],
    );
  }

  // ---- operators

  async listOperators(workspaceId: string): Promise<Operator[]> {
    const rows = await this.db.query<{
      kind: Operator['kind'];
      subject_id: string;
      added_by: string;
      added_at: number;
    }>(
      'SELECT kind, subject_id, added_by, added_at FROM operators WHERE workspace_id = $1 ORDER BY added_at, kind, subject_id',
      [workspaceId],
    );
    return rows.map((r) => ({ kind: r.kind, id: r.subject_id, addedBy: r.added_by, addedAt: r.added_at }));
  }

  async addOperator(workspaceId: string, op: Omit<Operator, 'addedAt'>): Promise<boolean> {
    if (op.kind !== 'user' && op.kind !== 'usergroup')
      throw new InvalidStoreInputError([`An operator is a user or a usergroup, not "${String(op.kind)}".`]);
    const changed = await this.db.execute(
      `INSERT INTO operators (workspace_id, kind, subject_id, added_by, added_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, kind, subject_id) DO NOTHING`,
      [workspaceId, op.kind, op.id, op.addedBy, this.#now()],
    );
    return changed > 0;
  }

  async removeOperator(workspaceId: string, kind: Operator['kind'], id: string): Promise<boolean> {
    const changed = await this.db.execute(
      'DELETE FROM operators WHERE workspace_id = $1 AND kind = $2 AND subject_id = $3',
      [workspaceId, kind, id],
    );
    return changed > 0;
  }

  // ---- audit (rows are only added, counted into, and pruned after the retention)

  async appendAudit(
    entry: Omit<AuditEntry, 'id' | 'at' | 'count' | 'lastAt'> & { at?: number },
  ): Promise<void> {
    const at = entry.at ?? this.#now();
    if (entry.outcome === 'refused') {
      // A person repeating a refused action must not grow the table: count into the recent row instead.
      // Two replicas racing may each insert one; that stays bounded.
      const counted = await this.db.execute(
        `UPDATE audit_log SET repeat_count = repeat_count + 1, last_at = $5
         WHERE id = (SELECT id FROM audit_log WHERE workspace_id = $1 AND user_id = $2 AND action = $3
           AND outcome = $4 AND last_at >= $6 ORDER BY last_at DESC, id DESC LIMIT 1)`,
        [entry.workspaceId, entry.userId, entry.action, entry.outcome, at, at - REFUSAL_COLLAPSE_MS],
      );
      if (counted > 0) return;
    }
    await this.db.execute(
      'INSERT INTO audit_log (workspace_id, user_id, action, target, outcome, detail, at, last_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)',
      [
        entry.workspaceId,
        entry.userId,
        entry.action,
        entry.target ?? '',
        entry.outcome,
        JSON.stringify(scrub(entry.detail ?? {})),
        at,
      ],
    );
  }

  pruneAudit(before: number): Promise<number> {
    return this.db.execute('DELETE FROM audit_log WHERE last_at < $1', [before]);
  }

  async listAudit(
    workspaceId: string,
    opts: { limit?: number; target?: string } = {},
  ): Promise<AuditEntry[]> {
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 100), 1), 1000);
    const params: Array<string | number> = [workspaceId];
    let where = 'workspace_id = $1';
    if (opts.target !== undefined) {
      params.push(opts.target);
      where += ' AND target = $2';
    }
    params.push(limit);
    const rows = await this.db.query<{
      id: number;
      workspace_id: string;
      user_id: string;
      action: string;
      target: string;
      outcome: AuditEntry['outcome'];
      detail: string;
      at: number;
      repeat_count: number;
      last_at: number | null;
    }>(
      `SELECT id, workspace_id, user_id, action, target, outcome, detail, at, repeat_count, last_at FROM audit_log WHERE ${where}
       ORDER BY COALESCE(last_at, at) DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      workspaceId: r.workspace_id,
      userId: r.user_id,
      action: r.action,
      target: r.target,
      outcome: r.outcome,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
      at: r.at,
      count: Number(r.repeat_count),
      lastAt: r.last_at ?? r.at,
    }));
  }

  // ---- request-dedupe claims (request-claims.ts)

  claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return this.#requestClaims.claimOnce(key, ttlMs);
  }

  releaseClaim(key: string): Promise<void> {
    return this.#requestClaims.releaseClaim(key);
  }

  // ---- waiting Workflow Builder steps (migration 016)

  async addStepWait(w: NewStepWait): Promise<boolean> {
    const ctx = stepTokenContext(w.workspaceId, w.executionId);
    // Encrypt first: without ENCRYPTION_KEY this throws before anything is written.
    const sealed = this.#box.encrypt(w.token, ctx);
    return this.db.transaction(async (tx) => {
      await recordKeyUse(tx, this.#box.currentKeyId!, w.createdAt);
      const n = await tx.execute(
        `INSERT INTO step_waits (execution_id, workspace_id, callback_id, queue_key, repo_host, repo_owner, repo_name,
           branch, pr_number, channel_id, user_id, function_token, status, deadline_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'waiting', $13, $14)
         ON CONFLICT (execution_id) DO NOTHING`,
        [
          w.executionId,
          w.workspaceId,
          w.callbackId,
          w.queueKey,
          w.target.repo.host,
          w.target.repo.owner,
          w.target.repo.name,
          w.target.branch,
          w.prNumber,
          w.channelId ?? null,
          w.userId ?? null,
          sealed,
          w.deadlineAt,
          w.createdAt,
        ],
      );
      return n === 1;
    });
  }

  async stepWaitToken(workspaceId: string, executionId: string): Promise<string | undefined> {
    const rows = await this.db.query<{ function_token: string }>(
      'SELECT function_token FROM step_waits WHERE workspace_id = $1 AND execution_id = $2',
      [workspaceId, executionId],
    );
    const sealed = rows[0]?.function_token;
    return sealed ? this.#box.decrypt(sealed, stepTokenContext(workspaceId, executionId)) : undefined;
  }

  // ---- secrets

  reencryptAll(): Promise<number> {
    return reencryptAll(this.db, this.#box, this.#now(), this.#logger);
  }

  /** Key ids that stored secrets are encrypted under, with how many values each (never key material). */
  async keyIdsInUse(): Promise<Record<string, number>> {
    return Object.fromEntries(await scanKeyIds(this.db));
  }
}

/** Where a step's execution token lives: its row (the execution id) is bound into the ciphertext. */
function stepTokenContext(workspaceId: string, executionId: string): SecretContext {
  return { table: 'step_waits', workspaceId, field: 'function_token', row: executionId };
}
