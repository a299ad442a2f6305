/**
 * One lease table for every claim (issue 18, ADR 0003): store/leases.ts is the one protocol (claim,
 * heartbeat, take over, finish, release, prune) that digest runs, shared digest collections, freeze starts
 * and ends, watch polls and watch deliveries used to write each for itself. A lease row names its work by
 * `kind` and `lease_key`; the users keep their own data in their own tables.
 *
 * Keys (composed by the users; the store never parses them):
 *   digest.run         subscription_id|scheduled_at             (digest/claims.ts)
 *   digest.collection  workspace_id|kind|scheduled_at|source    (digest/shared-collection.ts)
 *   freeze.phase       window_id|occurrence_start|phase         (freeze/claims.ts)
 *   watch.poll         workspace_id|queue_key                   (watch/queue-state.ts)
 *   watch.delivery     event_id|destination                     (watch/deliveries.ts)
 *
 * Existing rows are converted in place, so no claim is lost across the upgrade:
 * - digest_runs, freeze_claims, watch_deliveries and digest_collections stay the users' own records (what
 *   was posted, the window's state, what was sent, which pages were collected); their rows still being
 *   worked on become leases with the same holder, expiry and attempts (the fence starts at the attempts; a
 *   collection's at its generation, which keeps its stored pages). Their finished rows need no lease: a
 *   new claim of the same occurrence, delivery or collection is refused by the record's own primary key
 *   or status, as before. Their lease_until column is no longer read; release 009 fills it on insert with
 *   9007199254740991, because it is NOT NULL and so that a replica of an earlier release never takes over
 *   work a 009 replica claimed. Their owner and attempts columns stay the record of who works (or
 *   worked) on it; the lease decides who may.
 * - watch_leases was nothing but leases: every row moves. The table is left in place, unused by 009, so
 *   replicas of an earlier release still running during a rolling deploy keep working; a later migration
 *   drops it.
 *
 * A rolling deploy across 009 (replicas of release 008 and 009 on one database at once) is not safe for
 * background work, because 008 replicas renew and claim through the old columns, which 009 does not read:
 * - work in flight on an 008 replica when 009 migrates gets a converted lease that the 008 replica never
 *   renews, so a 009 replica takes it over one lease later while the 008 one is still at it (a digest or
 *   watch event posted twice);
 * - work an 008 replica claims after the migration has no lease: if that replica then stops before
 *   finishing, no 009 replica recovers it (a digest occurrence not posted, a freeze start or end not
 *   done), and a delivery it holds can be claimed by a 009 replica as well;
 * - 008 and 009 replicas both poll a watched queue (the snapshot's compare-and-set keeps events single).
 * Nothing is lost the other way: 008 replicas never take over work a 009 replica claimed.
 * So deploy stop-then-start, or set SCHEDULER_ENABLED=false on the 008 replicas before the first 009 one
 * starts (it turns off the digest scheduler, the freezer and the watcher); the request path (commands,
 * buttons) is unaffected.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE leases (
  kind TEXT NOT NULL,
  lease_key TEXT NOT NULL,
  workspace_id TEXT NOT NULL DEFAULT '',
  holder TEXT NOT NULL,
  fence INTEGER NOT NULL DEFAULT 1,         -- bumped by every acquisition; fenced writes name it
  state TEXT NOT NULL,                      -- held | released | finished
  expires_at ${bigint} NOT NULL,            -- held: until; released: free to take from
  attempts INTEGER NOT NULL DEFAULT 1,
  result TEXT,                              -- what finish recorded
  created_at ${bigint} NOT NULL,
  finished_at ${bigint},
  PRIMARY KEY (kind, lease_key)
);
CREATE INDEX leases_available ON leases (kind, state, expires_at);
CREATE INDEX leases_created ON leases (kind, created_at);
CREATE INDEX leases_workspace ON leases (workspace_id);

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'digest.run', subscription_id || '|' || scheduled_at, workspace_id, owner, attempts, 'held', lease_until,
       attempts, claimed_at
FROM digest_runs WHERE status = 'running';

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'freeze.phase', window_id || '|' || occurrence_start || '|' || phase, workspace_id, owner, attempts,
       CASE WHEN status = 'retrying' THEN 'released' ELSE 'held' END, lease_until, attempts, claimed_at
FROM freeze_claims WHERE status IN ('running', 'retrying');

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'watch.delivery', event_id || '|' || destination, workspace_id, owner, attempts,
       CASE WHEN status = 'retry' THEN 'released' ELSE 'held' END,
       CASE WHEN status = 'retry' THEN 0 ELSE lease_until END, attempts, lease_until
FROM watch_deliveries WHERE status IN ('claimed', 'retry');

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'watch.poll', workspace_id || '|' || queue_key, workspace_id, owner, 1, 'held', lease_until, 1, lease_until
FROM watch_leases;

INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'digest.collection', workspace_id || '|' || kind || '|' || scheduled_at || '|' || source, workspace_id, owner,
       generation, 'held', lease_until, generation, created_at
FROM digest_collections WHERE status = 'collecting';
`;

export const leasesMigration: Migration = {
  id: 9,
  name: 'leases',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['leases'],
};
