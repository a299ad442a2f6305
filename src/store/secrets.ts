/**
 * Where secrets are stored, and the operations over all of them: the start-up key check, the record of
 * key ids in use, and re-encryption under the current key (rotation).
 */
import type { Logger } from '../observability/log.ts';
import {
  EncryptionKeyMissingError,
  EncryptionKeyUnknownError,
  keyIdInCiphertext,
  type SecretBox,
} from './crypto.ts';
import type { DbExecutor } from './types.ts';

/**
 * Every column that holds a ciphertext. Each table is keyed by `workspace_id`, the row identity in the AAD;
 * a table with many rows per workspace names its row column (`rowKey`), which joins the AAD.
 */
export const SECRET_COLUMNS: ReadonlyArray<{ table: string; column: string; rowKey?: string }> = [
  { table: 'slack_installations', column: 'bot_token' },
  { table: 'slack_installations', column: 'bot_refresh_token' },
  { table: 'slack_installations', column: 'user_token' },
  { table: 'slack_installations', column: 'user_refresh_token' },
  { table: 'slack_installations', column: 'incoming_webhook_url' },
  { table: 'workspace_settings', column: 'trunk_token' },
  { table: 'workspace_settings', column: 'trunk_v2_key' },
  { table: 'workspace_settings', column: 'trunk_webhook_secrets' },
  // A waiting Workflow Builder step's function execution token (migration 016).
  { table: 'step_waits', column: 'function_token', rowKey: 'execution_id' },
];

/** Key ids found in stored ciphertexts (authoritative: read from the values themselves). */
export async function scanKeyIds(db: DbExecutor): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { table, column } of SECRET_COLUMNS) {
    // 'v1.' is 3 characters; the 16-character key id follows (19 in all).
    const rows = await db.query<{ k: string; n: number | string }>(
      `SELECT substr(${column}, 1, 19) AS k, COUNT(*) AS n FROM ${table} WHERE ${column} IS NOT NULL GROUP BY substr(${column}, 1, 19)`,
    );
    for (const row of rows) {
      const id = keyIdInCiphertext(`${row.k}.x.x`);
      if (id) counts.set(id, (counts.get(id) ?? 0) + Number(row.n));
    }
  }
  return counts;
}

/** Notes that `keyId` encrypts stored values (clears a retirement if the key is back in use). */
export async function recordKeyUse(db: DbExecutor, keyId: string, now: number): Promise<void> {
  await db.execute(
    `INSERT INTO encryption_keys (key_id, first_used_at, retired_at) VALUES ($1, $2, NULL)
     ON CONFLICT (key_id) DO UPDATE SET retired_at = NULL WHERE encryption_keys.retired_at IS NOT NULL`,
    [keyId, now],
  );
}

/** Brings encryption_keys in line with the ciphertexts actually stored. */
export async function syncKeyTable(db: DbExecutor, inUse: Map<string, number>, now: number): Promise<void> {
  for (const keyId of inUse.keys()) await recordKeyUse(db, keyId, now);
  const rows = await db.query<{ key_id: string }>(
    'SELECT key_id FROM encryption_keys WHERE retired_at IS NULL',
  );
  for (const { key_id } of rows) {
    if (!inUse.has(key_id))
      await db.execute(
        'UPDATE encryption_keys SET retired_at = $1 WHERE key_id = $2 AND retired_at IS NULL',
        [now, key_id],
      );
  }
}

/**
 * Start-up check: refuses (throws, changing nothing) when stored secrets need a key id that is not
 * configured, so a wrong ENCRYPTION_KEY can never lead to values being overwritten or mixed.
 */
export async function checkKeys(db: DbExecutor, box: SecretBox): Promise<Map<string, number>> {
  const inUse = await scanKeyIds(db);
  const missing = [...inUse.keys()].filter((id) => !box.hasKey(id)).sort();
  if (missing.length > 0) throw new EncryptionKeyUnknownError(missing, box.keyIds);
  return inUse;
}

/** Re-encrypts every secret not already under the current key. Returns how many values were rewritten. */
export async function reencryptAll(
  db: DbExecutor,
  box: SecretBox,
  now: number,
  logger?: Logger,
): Promise<number> {
  const current = box.currentKeyId;
  if (current === undefined) throw new EncryptionKeyMissingError('re-encrypt stored secrets');
  await recordKeyUse(db, current, now);
  let count = 0;
  for (const { table, column, rowKey } of SECRET_COLUMNS) {
    const rows = await db.query<{ workspace_id: string; v: string; r?: string }>(
      `SELECT workspace_id, ${column} AS v${rowKey ? `, ${rowKey} AS r` : ''} FROM ${table} WHERE ${column} IS NOT NULL AND ${column} NOT LIKE $1`,
      [`v1.${current}.%`],
    );
    for (const row of rows) {
      const ctx = {
        table,
        workspaceId: row.workspace_id,
        field: column,
        ...(rowKey ? { row: String(row.r) } : {}),
      };
      const fresh = box.encrypt(box.decrypt(row.v, ctx), ctx);
      // Compare-and-swap: a value rewritten meanwhile (already under the current key) is left alone.
      count += await db.execute(
        `UPDATE ${table} SET ${column} = $1 WHERE workspace_id = $2 AND ${column} = $3`,
        [fresh, row.workspace_id, row.v],
      );
    }
  }
  await syncKeyTable(db, await scanKeyIds(db), now);
  logger?.info({ reencrypted: count, currentKeyId: current }, 'secrets re-encrypted under the current key');
  return count;
}
