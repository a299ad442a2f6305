/**
 * Team digests (issue 13): `owner_filter` limits a digest to the tests of one code owner
 * (`digest add … owner @acme/payments`).
 */
import type { Migration } from '../types.ts';

const sql = 'ALTER TABLE digest_subscriptions ADD COLUMN owner_filter TEXT;';

export const digestCollectionsMigration: Migration = {
  id: 8,
  name: 'digest_collections',
  sqlite: sql,
  postgres: sql,
};
