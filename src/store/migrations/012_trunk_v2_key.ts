/**
 * A workspace's Trunk v2 API key (`trunk_v2_…`), encrypted like the v1 token: the v1 token does not work on
 * v2, so a workspace that wants PRs' stories and estimates stores a second secret. Nullable: v2 is optional.
 */
import type { Migration } from '../types.ts';

const sql = `ALTER TABLE workspace_settings ADD COLUMN trunk_v2_key TEXT;`;

export const trunkV2KeyMigration: Migration = { id: 12, name: 'trunk_v2_key', sqlite: sql, postgres: sql };
