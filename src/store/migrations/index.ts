/**
 * Every schema migration, in order. Forward-only: never edit a migration that has shipped; add one.
 * Each file owns one concern: 001 the core (store/), 002 digests (digest/), 003 who may act (authz),
 * 005 audit retention and replay claims (trust), 006 queue watching (watch/), 007 freeze windows (freeze/), 008 team digests and shared digest
 * collections (digest/), 009 the one lease table every claim uses (store/leases.ts), 011 the Trunk budget
 * shared by replicas (trunk/budget.ts), 012 the workspace's Trunk v2 API key (store/), 013 Trunk's webhooks: signing
 * secrets, the inbox (webhooks/) and the transitions the webhook and poll paths share (watch/), 014 flaky-test
 * feeds (flaky/), 015 whether GitHub links unfurl (unfurl/), 016 Workflow Builder steps waiting for a PR
 * (watch/waits.ts), 017 the queue's memory: transitions, queue states, ETAs shown, read-back progress (history/),
 * 018 leases finished: the claim columns that kept their own expiry, and watch_leases, dropped (store/leases.ts),
 * 019 the autopilot's settings and re-submission claims, and who submitted a PR from Slack (kicks/), 020 dashboards,
 * the slow-queue state and health digests' branch (dashboard/, watch/slow-state.ts, digest/), 021 merged PRs'
 * stays (history/), 022 the autopilot's claims on a lease, their own expiry column dropped
 * (kicks/repository.ts), 023 history written with fewer index pages (history/).
 *
 * To add one: create `NNN_name.ts` exporting a `Migration` (`id` one more than the last, `sqlite` and
 * `postgres` scripts, and `workspaceTables` naming its tables with a `workspace_id` column so that
 * `deleteWorkspace` removes their rows), then append it to this list.
 */
import type { Migration } from '../types.ts';
import { coreMigration } from './001_core.ts';
import { digestsMigration } from './002_digests.ts';
import { authzMigration } from './003_authz.ts';
import { trustMigration } from './005_trust.ts';
import { watchMigration } from './006_watch.ts';
import { freezeMigration } from './007_freeze.ts';
import { digestCollectionsMigration } from './008_digest_collections.ts';
import { leasesMigration } from './009_leases.ts';
import { trunkBudgetMigration } from './011_trunk_budget.ts';
import { trunkV2KeyMigration } from './012_trunk_v2_key.ts';
import { trunkWebhooksMigration } from './013_trunk_webhooks.ts';
import { testWatchesMigration } from './014_test_watches.ts';
import { unfurlGithubMigration } from './015_unfurl_github.ts';
import { stepWaitsMigration } from './016_step_waits.ts';
import { historyMigration } from './017_history.ts';
import { leasesFinishedMigration } from './018_leases_finished.ts';
import { autopilotMigration } from './019_autopilot.ts';
import { dashboardsHealthMigration } from './020_dashboards_health.ts';
import { queueStaysMigration } from './021_queue_stays.ts';
import { autopilotLeasesMigration } from './022_autopilot_leases.ts';
import { leanHistoryMigration } from './023_lean_history.ts';

export const migrations: Migration[] = [
  coreMigration,
  digestsMigration,
  authzMigration,
  trustMigration,
  watchMigration,
  freezeMigration,
  digestCollectionsMigration,
  leasesMigration,
  trunkBudgetMigration,
  trunkV2KeyMigration,
  trunkWebhooksMigration,
  testWatchesMigration,
  unfurlGithubMigration,
  stepWaitsMigration,
  historyMigration,
  leasesFinishedMigration,
  autopilotMigration,
  dashboardsHealthMigration,
  queueStaysMigration,
  autopilotLeasesMigration,
  leanHistoryMigration,
];
