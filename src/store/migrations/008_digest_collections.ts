/**
 * Team digests and shared collections (issues 12 and 13).
 * - `owner_filter`: a digest limited to the tests of one code owner (`digest add … owner @acme/payments`).
 * - `digest_collections`: one row per (workspace, kind, Trunk source, scheduled instant). The first replica
 *   to insert it paginates Trunk and stores the pages in `digest_collection_pages`; every other digest of
 *   that repository, kind and minute, on any replica, reads them instead of paginating again. The row's
 *   lease is renewed while collecting, and taken over (with a new generation) when its collector dies.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
ALTER TABLE digest_subscriptions ADD COLUMN owner_filter TEXT;
CREATE TABLE digest_collections (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,                    -- org slug and repository: org/host/owner/name
  scheduled_at ${bigint} NOT NULL,
  status TEXT NOT NULL,                    -- collecting | done | failed
  owner TEXT NOT NULL,
  lease_until ${bigint} NOT NULL,
  generation INTEGER NOT NULL DEFAULT 1,   -- bumped by a takeover; pages of older generations are ignored
  pages INTEGER NOT NULL DEFAULT 0,
  failure TEXT,                            -- the Trunk error (JSON, no secrets) when status = failed
  created_at ${bigint} NOT NULL,
  finished_at ${bigint},
  PRIMARY KEY (workspace_id, kind, source, scheduled_at)
);
CREATE INDEX digest_collections_scheduled ON digest_collections (scheduled_at);
CREATE TABLE digest_collection_pages (
  workspace_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  scheduled_at ${bigint} NOT NULL,
  generation INTEGER NOT NULL,
  page_no INTEGER NOT NULL,
  body TEXT NOT NULL,                      -- the page's rows, JSON, reduced to what a digest reads
  PRIMARY KEY (workspace_id, kind, source, scheduled_at, generation, page_no)
);
CREATE INDEX digest_collection_pages_scheduled ON digest_collection_pages (scheduled_at);
`;

export const digestCollectionsMigration: Migration = {
  id: 8,
  name: 'digest_collections',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['digest_collection_pages', 'digest_collections'],
};
