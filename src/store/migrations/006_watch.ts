/**
 * Queue watching (watch/): channel feeds, live status messages, people ↔ GitHub logins, and the machinery
 * that makes each queue event reach each destination once across replicas: one snapshot and one lease per
 * followed queue, an outbox of events written with the snapshot, and one delivery row per (event,
 * destination) claimed like a digest occurrence.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE watch_channels (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  repo_host TEXT NOT NULL,
  repo_owner TEXT NOT NULL,
  repo_name TEXT NOT NULL,
  branch TEXT NOT NULL,
  topics TEXT NOT NULL,
  stuck_minutes INTEGER,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  UNIQUE (workspace_id, channel_id, queue_key)
);
CREATE INDEX watch_channels_queue ON watch_channels (workspace_id, queue_key);
CREATE TABLE watch_live_messages (
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  message_ts TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  repo_host TEXT NOT NULL,
  repo_owner TEXT NOT NULL,
  repo_name TEXT NOT NULL,
  branch TEXT NOT NULL,
  live_until ${bigint} NOT NULL,
  created_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, channel_id, message_ts)
);
CREATE INDEX watch_live_messages_queue ON watch_live_messages (workspace_id, queue_key, live_until);
CREATE TABLE watch_people (
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  github_login TEXT NOT NULL,
  github_login_lc TEXT NOT NULL,
  verified INTEGER NOT NULL DEFAULT 0,
  notify INTEGER NOT NULL DEFAULT 1,
  linked_by TEXT NOT NULL,
  linked_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, user_id),
  UNIQUE (workspace_id, github_login_lc)
);
CREATE TABLE watch_snapshots (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  snapshot TEXT NOT NULL,
  taken_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, queue_key)
);
CREATE TABLE watch_leases (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  owner TEXT NOT NULL,
  lease_until ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, queue_key)
);
CREATE TABLE watch_events (
  event_id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  done_at ${bigint}
);
CREATE INDEX watch_events_pending ON watch_events (workspace_id, queue_key, done_at);
CREATE TABLE watch_deliveries (
  event_id TEXT NOT NULL,
  destination TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  status TEXT NOT NULL,
  owner TEXT NOT NULL,
  lease_until ${bigint} NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 1,
  detail TEXT,
  sent_at ${bigint},
  PRIMARY KEY (event_id, destination)
);
CREATE TABLE watch_health (
  watch_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  condition TEXT NOT NULL,
  since ${bigint} NOT NULL,
  alerted_at ${bigint},
  recovered_at ${bigint},
  PRIMARY KEY (watch_id, condition)
);
`;

export const watchMigration: Migration = {
  id: 6,
  name: 'watch',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: [
    'watch_health',
    'watch_deliveries',
    'watch_events',
    'watch_leases',
    'watch_snapshots',
    'watch_people',
    'watch_live_messages',
    'watch_channels',
  ],
};
