/**
 * Issue 28's health surfaces: a queue's dashboard canvas in a channel, the slow-queue state each queue is
 * in, and the queue a health digest reports on.
 *
 * - `dashboards`: one canvas per (workspace, channel, queue). `last_hash` is the markdown last written, so
 *   an unchanged queue is not edited again; `last_edit_at` is when the last edit was claimed: a claim is a
 *   conditional UPDATE on it, so one replica edits a canvas at most once a minute.
 * - `queue_slow_state`: whether a queue is slow now, and `episode`, moved on by each transition. A
 *   transition is a conditional UPDATE from the state a replica read; only the replica whose UPDATE moved
 *   the episode writes the event (keyed by the episode), so entering and leaving are each said once.
 * - `digest_subscriptions.repo_branch`: a health digest is about one queue (repository and branch); the
 *   tests' digests leave it empty.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
ALTER TABLE digest_subscriptions ADD COLUMN repo_branch TEXT;
CREATE TABLE dashboards (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  repo_host TEXT NOT NULL,
  repo_owner TEXT NOT NULL,
  repo_name TEXT NOT NULL,
  branch TEXT NOT NULL,
  canvas_id TEXT NOT NULL,
  channel_canvas INTEGER NOT NULL DEFAULT 0,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  last_hash TEXT,
  last_edit_at ${bigint},
  detail TEXT,
  UNIQUE (workspace_id, channel_id, queue_key)
);
CREATE INDEX dashboards_queue ON dashboards (workspace_id, queue_key);
CREATE TABLE queue_slow_state (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  slow INTEGER NOT NULL DEFAULT 0,
  episode INTEGER NOT NULL DEFAULT 0,
  changed_at ${bigint},
  evaluated_at ${bigint},
  figures TEXT,
  PRIMARY KEY (workspace_id, queue_key)
);
`;

export const dashboardsHealthMigration: Migration = {
  id: 20,
  name: 'dashboards_health',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['dashboards', 'queue_slow_state'],
  // A dashboard is edited as the bot: without its token it cannot be kept current.
  botTables: ['dashboards'],
};
