/**
 * Flaky tests to the people who own them (flaky/): which channels hear about a test's status changes
 * (`/mergequeue tests watch [owner <team>] [owner/repo]`, one row per channel, repository and code owner;
 * '' stands for "any"), and the message each channel got last about each test (its ts, so an investigation
 * summary or an override announcement threads under it, and what the message showed, so a button can redraw
 * it and knows whose test it is without trusting the button's value).
 * Exactly-once posting uses the lease table (009): kind `flaky.post`, key `<deliveryId>|<channel>`.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE test_watches (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  repo_key TEXT NOT NULL,
  owner_key TEXT NOT NULL,
  repo TEXT NOT NULL,
  owner TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  UNIQUE (workspace_id, channel_id, repo_key, owner_key)
);
CREATE INDEX test_watches_workspace ON test_watches (workspace_id);
CREATE TABLE test_feed_messages (
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  test_id TEXT NOT NULL,
  message_ts TEXT NOT NULL,
  status_at ${bigint} NOT NULL,
  override_seq INTEGER NOT NULL DEFAULT 0,
  snapshot TEXT NOT NULL,
  updated_at ${bigint} NOT NULL,
  PRIMARY KEY (workspace_id, channel_id, test_id)
);
`;

export const testWatchesMigration: Migration = {
  id: 14,
  name: 'test_watches',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['test_feed_messages', 'test_watches'],
};
