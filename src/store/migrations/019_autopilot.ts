/**
 * Issue 29 (src/kicks/): the autopilot and who submitted a PR from Slack.
 * - `autopilot_settings`: per workspace, one row for the workspace (`queue_key` '') and one per queue that
 *   differs from it: on or off, and the kick classes it re-submits (space-separated; default `flaky infra`);
 *   a queue's NULL column follows the workspace's row.
 * - `autopilot_resubmissions`: the claim on one kick, one row per (workspace, queue, PR, head commit), so a
 *   kick is re-submitted at most once per head commit across replicas. `status`: `claimed` (a replica is
 *   sending it until `claimed_until`; a dead replica's claim is taken over after it, reading Trunk back
 *   first), `done` (Trunk accepted it), `refused` (Trunk refused it; said once in the feed).
 * - `pr_submitters`: who last submitted a PR from Slack (command, button, Workflow Builder step), so that
 *   person hears of it besides its author (`submitted_by` on history rows); `notify_optouts`: `me notify off`
 *   of a person with no GitHub link (a submitter who is not an author), the same opt-out as the link's.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE autopilot_settings (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  enabled INTEGER,
  classes TEXT,
  updated_by TEXT NOT NULL,
  updated_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, queue_key)
);
CREATE TABLE autopilot_resubmissions (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  head_sha TEXT NOT NULL,
  kick_class TEXT NOT NULL,
  evidence TEXT NOT NULL,
  status TEXT NOT NULL,
  owner TEXT NOT NULL,
  claimed_until ${bigint} NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 1,
  detail TEXT,
  created_at ${bigint} NOT NULL,
  done_at ${bigint},
  PRIMARY KEY (workspace_id, queue_key, pr_number, head_sha)
);
CREATE INDEX autopilot_resubmissions_at ON autopilot_resubmissions (workspace_id, queue_key, created_at);
CREATE TABLE pr_submitters (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  via TEXT NOT NULL,
  submitted_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, queue_key, pr_number)
);
CREATE TABLE notify_optouts (
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
`;

export const autopilotMigration: Migration = {
  id: 19,
  name: 'autopilot',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['autopilot_settings', 'autopilot_resubmissions', 'pr_submitters', 'notify_optouts'],
};
