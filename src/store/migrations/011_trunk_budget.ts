/**
 * The Trunk request budget shared by replicas (src/store/trunk-budget.ts, src/trunk/budget.ts): one row per
 * Trunk organization holding the next start time nobody has claimed yet. Each claim is one row update, so
 * replicas together never start more than TRUNK_MAX_RPS requests a second. No workspace's data: a row is
 * a time, kept while the organization is used by any workspace.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE trunk_budget (
  org TEXT PRIMARY KEY,                    -- Trunk organization slug, lower case
  next_at ${bigint} NOT NULL               -- epoch ms: the earliest start not yet claimed
);
`;

export const trunkBudgetMigration: Migration = {
  id: 11,
  name: 'trunk_budget',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
};
