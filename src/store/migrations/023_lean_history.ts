/**
 * Queue memory written with fewer index pages (issue 28: keeping history adds at most 5 % to a webhook
 * delivery's apply time). Each b-tree a transition touches is one more page the delivery's commit writes:
 * - `queue_history_age` and `queue_stays_age` go: pruning walks each queue's range of
 *   `queue_history_window` and of `queue_stays`'s keys instead (history/repository.ts, pruneHistory).
 * - SQLite: `queue_stays` becomes a WITHOUT ROWID table keyed (workspace, queue, merged_at, PR), so its key
 *   holds every column that `mergedStays` reads in the order it reads them: its rowid table and
 *   `queue_stays_window` go, and a merge writes one page there instead of four. Rows are copied over.
 *   (`queue_history` keeps its rowid: `stats` reads columns outside its indexes, and a rowid finds them
 *   faster than a text key would.)
 * - PostgreSQL keeps its heap tables and `queue_stays_window` (its index-only scans serve `stats`).
 *
 * Replicas of the release before read and write the same columns and conflict targets, so a rolling deploy
 * is safe; they prune without the age indexes, only more slowly.
 */
import type { Migration } from '../types.ts';

const STAY_COLUMNS = 'workspace_id, queue_key, pr_number, merged_at, entered_at, tested_at';

const sqlite = `
DROP INDEX queue_history_age;
CREATE TABLE queue_stays_keyed (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  merged_at INTEGER NOT NULL,
  entered_at INTEGER,
  tested_at INTEGER,
  PRIMARY KEY (workspace_id, queue_key, merged_at, pr_number)
) WITHOUT ROWID;
INSERT INTO queue_stays_keyed (${STAY_COLUMNS}) SELECT ${STAY_COLUMNS} FROM queue_stays;
DROP TABLE queue_stays;
ALTER TABLE queue_stays_keyed RENAME TO queue_stays;
`;

const postgres = `
DROP INDEX queue_history_age;
DROP INDEX queue_stays_age;
`;

export const leanHistoryMigration: Migration = {
  id: 23,
  name: 'lean_history',
  sqlite,
  postgres,
};
