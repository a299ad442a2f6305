/**
 * Who may act: the per-digest cooldown of manual runs (`digest run`). One row per digest holds when it
 * was last run by hand and by whom; claiming a run is one conditional upsert, so however many replicas
 * and concurrent commands race, one run starts per cooldown window.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE digest_manual_runs (
  subscription_id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  started_at ${bigint} NOT NULL,
  started_by TEXT NOT NULL
);
CREATE INDEX digest_manual_runs_workspace ON digest_manual_runs (workspace_id);
`;

export const authzMigration: Migration = {
  id: 3,
  name: 'authz',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['digest_manual_runs'],
};
