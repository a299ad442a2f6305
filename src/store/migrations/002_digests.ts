/**
 * Digest subscriptions, the owner → Slack mention map, and one claim row per occurrence.
 * The claim's primary key (subscription_id, scheduled_at) is what makes a digest post once however many
 * replicas share the database; the row also records progress (header ts, messages posted) so a
 * replica that takes over an expired lease continues instead of starting again.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE digest_subscriptions (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  repo_host TEXT NOT NULL,
  repo_owner TEXT NOT NULL,
  repo_name TEXT NOT NULL,
  minute_of_day INTEGER NOT NULL,
  tz TEXT NOT NULL,
  days TEXT NOT NULL,
  skip_empty INTEGER NOT NULL DEFAULT 1,
  top_n INTEGER NOT NULL DEFAULT 10,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  next_due_at ${bigint} NOT NULL,
  baseline TEXT,
  baseline_at ${bigint}
);
CREATE INDEX digest_subscriptions_due ON digest_subscriptions (next_due_at);
CREATE INDEX digest_subscriptions_workspace ON digest_subscriptions (workspace_id, channel_id);
CREATE TABLE digest_owner_mentions (
  workspace_id TEXT NOT NULL,
  codeowner TEXT NOT NULL,
  mentions TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  updated_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, codeowner)
);
CREATE TABLE digest_runs (
  subscription_id TEXT NOT NULL,
  scheduled_at ${bigint} NOT NULL,
  workspace_id TEXT NOT NULL,
  manual INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  outcome TEXT,
  owner TEXT NOT NULL,
  lease_until ${bigint} NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 1,
  late INTEGER NOT NULL DEFAULT 0,
  payload TEXT,
  header_ts TEXT,
  posted_count INTEGER NOT NULL DEFAULT 0,
  detail TEXT,
  claimed_at ${bigint} NOT NULL,
  finished_at ${bigint},
  PRIMARY KEY (subscription_id, scheduled_at)
);
CREATE INDEX digest_runs_lease ON digest_runs (status, lease_until);
CREATE INDEX digest_runs_scheduled ON digest_runs (scheduled_at);
`;

export const digestsMigration: Migration = {
  id: 2,
  name: 'digests',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['digest_runs', 'digest_owner_mentions', 'digest_subscriptions'],
  // Every digest posts as the bot: without its token none can run.
  botTables: ['digest_runs', 'digest_owner_mentions', 'digest_subscriptions'],
};
