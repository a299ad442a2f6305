/**
 * Queue memory's stays (history/): one row per `merged` transition in `queue_history`, holding the PR's
 * attempt that it ended — from its first `submitted` (`entered_at`, NULL when the app does not know it) to
 * the merge, and its last `testing` (`tested_at`) — as `mergedStays` defined them over `queue_history`: the
 * attempt holds the PR's rows after its previous conclusion (merged, failed, cancelled) and up to the merge.
 * Kept when a transition is recorded (history/repository.ts), so `stats` reads a window's stays by one range
 * of `queue_stays_window` instead of looking up each merged PR's attempt (issue 28's p95). Existing history
 * is filled in here.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE queue_stays (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  merged_at ${bigint} NOT NULL,
  entered_at ${bigint},
  tested_at ${bigint},
  PRIMARY KEY (workspace_id, queue_key, pr_number, merged_at)
);
CREATE INDEX queue_stays_window ON queue_stays (workspace_id, queue_key, merged_at, pr_number, entered_at, tested_at);
CREATE INDEX queue_stays_age ON queue_stays (merged_at);
INSERT INTO queue_stays (workspace_id, queue_key, pr_number, merged_at, entered_at, tested_at)
SELECT workspace_id, queue_key, pr_number, ends_at,
  MIN(CASE WHEN state = 'submitted' THEN occurred_at END),
  MAX(CASE WHEN state = 'testing' THEN occurred_at END)
FROM (
  SELECT workspace_id, queue_key, pr_number, state, occurred_at,
    MIN(CASE WHEN state IN ('merged', 'failed', 'cancelled') THEN occurred_at END) OVER (
      PARTITION BY workspace_id, queue_key, pr_number ORDER BY occurred_at
      RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS ends_at
  FROM queue_history WHERE state IN ('submitted', 'testing', 'merged', 'failed', 'cancelled')
) AS attempt_rows
WHERE ends_at IS NOT NULL
GROUP BY workspace_id, queue_key, pr_number, ends_at
HAVING MAX(CASE WHEN state = 'merged' AND occurred_at = ends_at THEN 1 ELSE 0 END) = 1;
`;

export const queueStaysMigration: Migration = {
  id: 21,
  name: 'queue_stays',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['queue_stays'],
};
