/**
 * The queue's memory (history/): every PR transition the app learns, once per (workspace, queue, PR, state,
 * time), whichever path saw it (`source`: webhook, poll or readback); the queue's own state changes (for
 * "hours paused or draining"); each ETA the app showed and, once the PR merged, how far off it was; and the
 * progress of reading Trunk's record back for a queue (one row per queue, so an interrupted read-back resumes
 * from its cursor and a finished one is never repeated). Rows older than `HISTORY_DAYS` are pruned by a worker.
 *
 * Indexes: `queue_history`'s primary key serves a PR's rows (and a PR's attempt around one transition);
 * `queue_history_window` serves stats over a time window per queue and state (merged, failed in the last 7
 * days by check, autopilot submissions); `queue_history_age` the pruning pass.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE queue_history (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  state TEXT NOT NULL,
  occurred_at ${bigint} NOT NULL,
  head_sha TEXT,
  priority INTEGER,
  no_batch INTEGER,
  reason_code TEXT,
  failing_checks TEXT,
  kick_class TEXT,
  kick_evidence TEXT,
  submitted_by TEXT,
  source TEXT NOT NULL,
  recorded_at ${bigint} NOT NULL,
  title TEXT,
  author TEXT,
  PRIMARY KEY (workspace_id, queue_key, pr_number, state, occurred_at)
);
CREATE INDEX queue_history_window ON queue_history (workspace_id, queue_key, state, occurred_at);
CREATE INDEX queue_history_age ON queue_history (occurred_at);
CREATE TABLE queue_state_history (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  state TEXT NOT NULL,
  occurred_at ${bigint} NOT NULL,
  source TEXT NOT NULL,
  PRIMARY KEY (workspace_id, queue_key, occurred_at)
);
CREATE INDEX queue_state_history_age ON queue_state_history (occurred_at);
CREATE TABLE eta_estimates (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  shown_at ${bigint} NOT NULL,
  estimated_at ${bigint} NOT NULL,
  source TEXT NOT NULL,
  surface TEXT NOT NULL,
  merged_at ${bigint},
  error_ms ${bigint},
  PRIMARY KEY (workspace_id, queue_key, pr_number, estimated_at, source)
);
CREATE INDEX eta_estimates_merged ON eta_estimates (workspace_id, queue_key, merged_at);
CREATE INDEX eta_estimates_age ON eta_estimates (shown_at);
CREATE TABLE history_readbacks (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  window_from ${bigint} NOT NULL,
  window_to ${bigint} NOT NULL,
  phase TEXT NOT NULL,
  cursor TEXT,
  pending_ids TEXT,
  with_v2 INTEGER NOT NULL DEFAULT 0,
  prs_read INTEGER NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0,
  started_at ${bigint} NOT NULL,
  finished_at ${bigint},
  PRIMARY KEY (workspace_id, queue_key)
);
`;

export const historyMigration: Migration = {
  id: 17,
  name: 'history',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['queue_history', 'queue_state_history', 'eta_estimates', 'history_readbacks'],
};
