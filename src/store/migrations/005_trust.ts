/**
 * Audit retention and collapsed refusals: `last_at` is when a row was last seen (its `at` is the first
 * time), `repeat_count` how many times; retention prunes by `last_at`, and the second index finds the
 * refusal row to count into.
 */
import type { Migration } from '../types.ts';

const sql = `
ALTER TABLE audit_log ADD COLUMN repeat_count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE audit_log ADD COLUMN last_at BIGINT;
UPDATE audit_log SET last_at = at;
CREATE INDEX audit_log_last_at ON audit_log (last_at);
CREATE INDEX audit_log_repeats ON audit_log (workspace_id, user_id, action, outcome, last_at);
`;

export const trustMigration: Migration = { id: 5, name: 'trust', sqlite: sql, postgres: sql };
