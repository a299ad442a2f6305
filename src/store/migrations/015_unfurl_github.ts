/**
 * Whether pasted GitHub PR links unfurl in a workspace (`/mergequeue config unfurl github on|off`). Off by
 * default: another app (GitHub's own) may already unfurl them. Trunk links always unfurl, so they need no column.
 */
import type { Migration } from '../types.ts';

const sql = `ALTER TABLE workspace_settings ADD COLUMN unfurl_github INTEGER NOT NULL DEFAULT 0;`;

export const unfurlGithubMigration: Migration = { id: 15, name: 'unfurl_github', sqlite: sql, postgres: sql };
