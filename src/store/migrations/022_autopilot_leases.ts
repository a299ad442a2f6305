/**
 * The autopilot's claims on a lease (ADR 0008): a re-submission claim (`autopilot_resubmissions`, migration
 * 019) becomes a claim row on a lease of kind `autopilot.resubmit` (kicks/repository.ts, store/claim-rows.ts),
 * keyed `queue_key|workspace_id|pr_number|head_sha` (the queue key first: a branch name may hold `|`). Its
 * `claimed_until` column, the claim's own expiry, goes, as 018 dropped the other claims' own expiry columns.
 *
 * Rows from before are kept. A claim still `claimed` gets a lease from its row, as 018 converted the work it
 * found: its owner holds it until `claimed_until` (released at once when it was released: 0), with the row's
 * attempts as fence and attempts and its `created_at`, which a takeover compares with when the PR last moved.
 * So a claim in flight is taken over once its old expiry passes, reading Trunk back first. A settled row
 * (`done`, `refused`) needs no lease: its status refuses a new claim of the same head commit.
 *
 * The column is not indexed, so SQLite drops it as is. After this migration, replicas of an earlier release
 * fail every autopilot claim they insert or release (the column they write is gone): deploy stop-then-start
 * (README, "Upgrading").
 */
import type { Migration } from '../types.ts';

const KEY =
  "autopilot_resubmissions.queue_key || '|' || autopilot_resubmissions.workspace_id || '|' || autopilot_resubmissions.pr_number || '|' || autopilot_resubmissions.head_sha";

const sql = `
INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
SELECT 'autopilot.resubmit', ${KEY}, workspace_id, owner, attempts,
       CASE WHEN claimed_until = 0 THEN 'released' ELSE 'held' END, claimed_until, attempts, created_at
FROM autopilot_resubmissions
WHERE status = 'claimed'
  AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'autopilot.resubmit' AND l.lease_key = ${KEY});

ALTER TABLE autopilot_resubmissions DROP COLUMN claimed_until;
`;

export const autopilotLeasesMigration: Migration = {
  id: 22,
  name: 'autopilot_leases',
  sqlite: sql,
  postgres: sql,
};
