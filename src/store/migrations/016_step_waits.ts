/**
 * Workflow Builder steps that wait for a PR (`wait_for_pr`): one row per function execution, so a wait
 * survives restarts and is completed once across replicas. The execution token Slack gave the step (needed
 * to call functions.completeSuccess / completeError later) is encrypted like every secret, with the
 * execution id in its associated data (store/secrets.ts). `status`: `waiting` (nothing decided yet),
 * `decided` (the outcome is set and must reach Slack; its sending is claimed with a `step.complete` lease),
 * `done` (Slack was told, or could never be). The watch domain reads the waiting rows to follow their queues
 * and to route PR events to them (watch/waits.ts).
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE step_waits (
  execution_id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  callback_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  repo_host TEXT NOT NULL,
  repo_owner TEXT NOT NULL,
  repo_name TEXT NOT NULL,
  branch TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  channel_id TEXT,
  user_id TEXT,
  function_token TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting',
  outcome TEXT,
  deadline_at ${bigint} NOT NULL,
  created_at ${bigint} NOT NULL,
  decided_at ${bigint},
  done_at ${bigint},
  detail TEXT
);
CREATE INDEX step_waits_pr ON step_waits (workspace_id, queue_key, pr_number, status);
CREATE INDEX step_waits_status ON step_waits (status, deadline_at);
`;

export const stepWaitsMigration: Migration = {
  id: 16,
  name: 'step_waits',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['step_waits'],
};
