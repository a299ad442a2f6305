/**
 * Leases finished (issue 27, ADR 0008): the `leases` table (migration 009) is the only place a claim's expiry
 * lives. The columns that carried it before 009 go:
 * - `lease_until` of digest_runs, freeze_claims, watch_deliveries and digest_collections (release 009 and
 *   later filled it with 9007199254740991 on insert and never read it), with the two indexes that named it;
 * - `watch_leases`, which 009 emptied into `leases` and left only for replicas of release 008.
 *
 * Rows from before are kept. A row still being worked on that has no lease (claimed by a release-008 replica
 * during a rolling deploy across 009, the case migration 009 warns about) gets one here, from its
 * `lease_until`, as 009 converted the rows it found, so the work is taken over once that expiry passes
 * instead of being left unfinished for ever. A row whose lease_until is 009's placeholder is left alone.
 *
 * SQLite refuses DROP COLUMN on an indexed column: each index is dropped first. After this migration,
 * replicas of a release before 018 fail every claim they insert (the column they write is gone): deploy
 * stop-then-start (README, "Upgrading").
 */
import type { Migration } from '../types.ts';

/** What release 009 wrote into lease_until: never a real expiry. */
const PLACEHOLDER = '9007199254740991';

const noLease = (kind: string, key: string) =>
  `lease_until < ${PLACEHOLDER} AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = '${kind}' AND l.lease_key = ${key})`;

const sql = `
INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'digest.run', subscription_id || '|' || scheduled_at, workspace_id, owner, attempts, 'held', lease_until,
       attempts, claimed_at
FROM digest_runs
WHERE status = 'running' AND ${noLease('digest.run', "digest_runs.subscription_id || '|' || digest_runs.scheduled_at")};

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'freeze.phase', window_id || '|' || occurrence_start || '|' || phase, workspace_id, owner, attempts,
       CASE WHEN status = 'retrying' THEN 'released' ELSE 'held' END, lease_until, attempts, claimed_at
FROM freeze_claims
WHERE status IN ('running', 'retrying') AND ${noLease(
  'freeze.phase',
  "freeze_claims.window_id || '|' || freeze_claims.occurrence_start || '|' || freeze_claims.phase",
)};

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'watch.delivery', event_id || '|' || destination, workspace_id, owner, attempts,
       CASE WHEN status = 'retry' THEN 'released' ELSE 'held' END,
       CASE WHEN status = 'retry' THEN 0 ELSE lease_until END, attempts, lease_until
FROM watch_deliveries
WHERE status IN ('claimed', 'retry') AND ${noLease(
  'watch.delivery',
  "watch_deliveries.event_id || '|' || watch_deliveries.destination",
)};

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'digest.collection', workspace_id || '|' || kind || '|' || scheduled_at || '|' || source, workspace_id, owner,
       generation, 'held', lease_until, generation, created_at
FROM digest_collections
WHERE status = 'collecting' AND ${noLease(
  'digest.collection',
  "digest_collections.workspace_id || '|' || digest_collections.kind || '|' || digest_collections.scheduled_at || '|' || digest_collections.source",
)};

DROP INDEX IF EXISTS digest_runs_lease;
ALTER TABLE digest_runs DROP COLUMN lease_until;
DROP INDEX IF EXISTS freeze_claims_lease;
ALTER TABLE freeze_claims DROP COLUMN lease_until;
ALTER TABLE watch_deliveries DROP COLUMN lease_until;
ALTER TABLE digest_collections DROP COLUMN lease_until;
DROP TABLE watch_leases;
`;

export const leasesFinishedMigration: Migration = {
  id: 18,
  name: 'leases_finished',
  sqlite: sql,
  postgres: sql,
  dropsTables: ['watch_leases'],
};
