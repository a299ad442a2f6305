/**
 * The app's background work, assembled in one place and registered on the lifecycle as workers, in the
 * order they stop: audit retention (every replica), then the digests, the freezer, the waiting Workflow
 * Builder steps and the queue watcher
 * (only where SCHEDULER_ENABLED; the others still answer Slack). Each starts when the app listens and
 * stops by the shutdown's deadline; see Worker in src/lifecycle.ts.
 */
import type { Config } from '../config.ts';
import { DEFAULT_BRANCH } from '../core/target.ts';
import type { HealthReports } from '../digest/index.ts';
import { mergedStays } from '../history/repository.ts';
import { computeQueueStats, previousWindow } from '../history/stats.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { renderHealthDigest } from '../slack/blocks/health-digest.ts';
import { digestSurface } from '../slack/digest-surface.ts';
import type { DirectoryCache } from '../slack/directory.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';

import { listFollowedQueues, type QueueTarget, queueKeyOf } from '../watch/index.ts';
import { createMergeQueueSink } from '../watch/webhook-sink.ts';
import type { WebhookSink } from '../webhooks/ports.ts';
import { createAuditRetentionWorker } from './audit-retention.ts';
import { botStanding } from './bot-standing.ts';
import { createDashboardsWorker, type DashboardsWorker } from './dashboards.ts';
import { createDigestWorker, type DigestWorker } from './digests.ts';
import { createFreezerWorker, type FreezerWorker } from './freezer.ts';
import { createHistoryWorkers } from './history.ts';
import { turnedOff } from './periodic-worker.ts';
import { createQueueWatcher, type QueueEvents } from './queue-watcher.ts';
import { createSlowQueuesWorker, type SlowQueuesWorker } from './slow-queues.ts';
import { createStepWaitsWorker, type StepWaitsWorker } from './step-waits.ts';
import { createTestCaseSink, type TestCaseSink } from './test-case-sink.ts';
import { createWebhookInboxWorker, type WebhookInboxWorker } from './webhook-inbox.ts';

export type { DashboardsWorker } from './dashboards.ts';
export type { QueueEvents } from './queue-watcher.ts';
export type { SlowQueuesWorker } from './slow-queues.ts';
export type { StepWaitsWorker } from './step-waits.ts';
export type { TestCaseSink } from './test-case-sink.ts';

export interface WorkersOptions {
  config: Config;
  store: Store;
  workspaces: Workspaces;
  /** The app's cache of who is who (users.info, user groups). */
  directory: DirectoryCache;
  /** Everything the workers post goes through it; it is stopped with the queue watcher, after every loop. */
  outbox: SlackOutbox;
  logger: Logger;
  metrics: Metrics;
  /** The app's clock (epoch ms): digests, freeze windows, live messages and retention follow it. */
  now: () => number;
  /** Names this replica in the claims and leases it takes. */
  replicaId: string;
  /** The seams of createApp's AppOverrides that reach the workers (see there). */
  overrides: {
    digest?: false | { tickCron?: string; leaseMs?: number; paceMs?: number };
    watch?: false | { leaseMs?: number };
    freeze?: { tickMs?: number; leaseMs?: number };
    steps?: { tickMs?: number };
    /** How often every followed queue is checked for being slow; default 10 minutes. */
    slow?: { everyMs?: number };
    /** How often dashboards are looked at; default 20 s. */
    dashboards?: { everyMs?: number };
  };
}

export interface Workers {
  /** undefined when turned off (AppOverrides.digest false): commands answer that digests are unavailable. */
  readonly digests: DigestWorker | undefined;
  readonly freezer: FreezerWorker;
  /** undefined when turned off (AppOverrides.watch false). */
  readonly events: QueueEvents | undefined;
  /** Drains Trunk's webhook inbox into the sinks (kicked by POST /trunk/webhooks/<workspace>). */
  readonly webhooks: WebhookInboxWorker;
  /** Workflow Builder steps waiting for a PR: their time limits, and completions to retry. */
  readonly steps: StepWaitsWorker;
  /** The flaky-test sink of Trunk's webhooks: the inbox worker hands it `test_case.*` deliveries. */
  readonly testCases: TestCaseSink;
  /** Slow-queue alerts: evaluated on every merge the app learns and every 10 minutes. */
  readonly slow: SlowQueuesWorker;
  /** Dashboard canvases kept current (at most one edit a minute each). */
  readonly dashboards: DashboardsWorker;
}

/** Health digests' reports: the queue history's figures of the window and the one before, in Slack's words. */
function healthReports(store: Store, config: Config): HealthReports {
  return {
    async report(sub, window, ctx) {
      const q = {
        workspaceId: sub.workspaceId,
        queueKey: queueKeyOf({ repo: sub.repo, branch: sub.branch ?? DEFAULT_BRANCH }),
        tz: sub.tz,
      };
      const [now, before, ws] = await Promise.all([
        computeQueueStats(store.db, { ...q, ...window }),
        computeQueueStats(store.db, { ...q, ...previousWindow(window) }),
        store.getWorkspace(sub.workspaceId),
      ]);
      const orgSlug = ws?.trunkOrgSlug ?? config.trunk.orgSlug;
      const message = renderHealthDigest(sub, now, before, {
        ...ctx,
        appUrl: config.trunk.appUrl,
        ...(orgSlug ? { orgSlug } : {}),
      });
      return { messages: [message], empty: now.merged + now.kicked + now.cancelled === 0 };
    },
  };
}

/** Builds the workers and registers them on `lifecycle`, which starts them (startWorkers) and stops them. */
export function createWorkers(lifecycle: Lifecycle, o: WorkersOptions): Workers {
  const { config, overrides } = o;
  const scheduler = { enabled: config.digest.schedulerEnabled };
  // Nothing acts on its own in a workspace whose bot token Slack revoked, until a re-install.
  const standing = botStanding({ config, store: o.store, workspaces: o.workspaces });

  // Start-up waits for the first prune, so a restarted app never shows rows past their retention.
  lifecycle.addWorker(
    createAuditRetentionWorker({
      store: o.store,
      retentionDays: config.auditRetentionDays,
      logger: o.logger,
      now: o.now,
    }),
  );

  // The queue history: pruned past HISTORY_DAYS on every replica; Trunk's record read back for followed queues.
  const history = createHistoryWorkers({
    store: o.store,
    workspaces: o.workspaces,
    historyDays: config.historyDays,
    followed: (t) =>
      listFollowedQueues(o.store, t, config.defaultTarget ? { defaultTarget: config.defaultTarget } : {}),
    logger: o.logger.child({ component: 'history' }),
    now: o.now,
    replicaId: o.replicaId,
  });
  lifecycle.addWorker({ name: 'history-retention', ...history.pruning });
  lifecycle.addWorker({ name: 'history-readback', ...history.readback }, scheduler);

  const digest = overrides.digest === false ? undefined : (overrides.digest ?? {});
  const digests = digest
    ? createDigestWorker({
        store: o.store,
        trunkFor: (id) => o.workspaces.backgroundTrunkFor(id, 'digest'),
        notifier: o.outbox,
        surface: digestSurface,
        logger: o.logger.child({ component: 'digest' }),
        metrics: o.metrics,
        graceHours: config.digest.graceHours,
        replicaId: o.replicaId,
        clock: o.now,
        ...(digest.tickCron ? { tickCron: digest.tickCron } : {}),
        ...(digest.leaseMs ? { leaseMs: digest.leaseMs } : {}),
        trunkAppUrl: config.trunk.appUrl,
        ...(config.defaultTarget ? { defaultTarget: config.defaultTarget } : {}),
        health: healthReports(o.store, config),
      })
    : undefined;
  // node-cron stays the digests' ticker; the service lets its claims go when stopped.
  lifecycle.addWorker(digests ?? turnedOff('digest-scheduler'), scheduler);

  // Freeze windows start and end on the app's clock, so tests move time by hand.
  const freezer = createFreezerWorker({
    store: o.store,
    workspaces: o.workspaces,
    outbox: o.outbox,
    directory: o.directory,
    botStanding: standing,
    logger: o.logger.child({ component: 'freeze' }),
    replicaId: o.replicaId,
    clock: o.now,
    ...(overrides.freeze?.tickMs ? { tickMs: overrides.freeze.tickMs } : {}),
    ...(overrides.freeze?.leaseMs ? { leaseMs: overrides.freeze.leaseMs } : {}),
  });
  lifecycle.addWorker(freezer, scheduler);

  // Waiting Workflow Builder steps: completed by the watcher's events, failed at their time limit here.
  const steps = createStepWaitsWorker({
    store: o.store,
    workspaces: o.workspaces,
    outbox: o.outbox,
    logger: o.logger,
    now: o.now,
    replicaId: o.replicaId,
    ...(overrides.steps?.tickMs ? { tickMs: overrides.steps.tickMs } : {}),
  });
  lifecycle.addWorker(steps, scheduler);

  const followed = (t: number) =>
    listFollowedQueues(o.store, t, config.defaultTarget ? { defaultTarget: config.defaultTarget } : {});
  // Late-bound: the watcher tells the slow-queue worker of merges, which hands its events back to the watcher.
  let deliverNow: ((ws: string, target: QueueTarget) => Promise<void>) | undefined;
  const slow = createSlowQueuesWorker({
    db: o.store.db,
    followed,
    stays: (ws, queueKey, from, to) => mergedStays(o.store.db, ws, queueKey, from, to),
    deliverNow: (ws, target) => deliverNow?.(ws, target) ?? Promise.resolve(),
    now: o.now,
    logger: o.logger,
    ...(overrides.slow?.everyMs ? { everyMs: overrides.slow.everyMs } : {}),
  });
  lifecycle.addWorker(slow, scheduler);

  const dashboards = createDashboardsWorker({
    store: o.store,
    workspaces: o.workspaces,
    outbox: o.outbox,
    week: async (workspaceId, queueKey, from, to) => {
      const s = await computeQueueStats(o.store.db, { workspaceId, queueKey, from, to, tz: 'UTC' });
      return {
        merged: s.merged,
        kicked: s.kicked,
        known: s.timeInQueue.known,
        ...(s.timeInQueue.p50Ms !== undefined ? { p50Ms: s.timeInQueue.p50Ms } : {}),
        ...(s.timeInQueue.p90Ms !== undefined ? { p90Ms: s.timeInQueue.p90Ms } : {}),
      };
    },
    now: o.now,
    logger: o.logger,
    appUrl: config.trunk.appUrl,
    ...(config.trunk.orgSlug ? { orgSlug: config.trunk.orgSlug } : {}),
    ...(overrides.dashboards?.everyMs ? { everyMs: overrides.dashboards.everyMs } : {}),
  });
  lifecycle.addWorker(dashboards, scheduler);

  const events =
    overrides.watch === false
      ? undefined
      : createQueueWatcher({
          config,
          store: o.store,
          workspaces: o.workspaces,
          outbox: o.outbox,
          logger: o.logger,
          metrics: o.metrics,
          now: o.now,
          replicaId: o.replicaId,
          botStanding: standing,
          steps: steps.completer,
          onMerged: (ws, target) => slow.merged(ws, target),
          ...(overrides.watch?.leaseMs ? { leaseMs: overrides.watch.leaseMs } : {}),
        });
  // Flaky-test deliveries are applied by whichever replica's inbox worker takes them (leases keep posts once).
  const testCases = createTestCaseSink({
    store: o.store,
    workspaces: o.workspaces,
    outbox: o.outbox,
    appUrl: config.trunk.appUrl,
    logger: o.logger,
    now: o.now,
    replicaId: o.replicaId,
  });

  // Trunk's webhooks: every family's sink, asked in this order; a delivery no sink accepts is ignored.
  const webhookSinks: WebhookSink[] = [testCases];
  if (events)
    webhookSinks.push(
      createMergeQueueSink({
        db: o.store.db,
        leases: o.store.leases,
        followed,
        clock: o.now,
        // A webhook may carry a merge: the queue is evaluated for slowness too.
        deliverNow: (ws, target) => {
          slow.merged(ws, target);
          return events.watch.watcher.deliverNow(ws, target);
        },
        logger: o.logger.child({ component: 'webhooks' }),
      }),
    );
  // The inbox is drained at once on every kick (each delivery kept, any replica); its timed passes, which
  // pick up what a stopped replica left, run where the scheduler does. It starts and stops with the queue
  // watcher (one shutdown step), before it: the events it writes are the watcher's to deliver.
  const webhooks = createWebhookInboxWorker({
    db: o.store.db,
    leases: o.store.leases,
    sinks: webhookSinks,
    replicaId: o.replicaId,
    clock: o.now,
    logger: o.logger,
    metrics: o.metrics,
  });

  // Stopping releases this replica's queue leases so another replica polls them at once. Then the Slack
  // outbox, after every loop that fills it (it is the last worker): it drains until the deadline, then drops
  // (and logs) what is left; the deliveries it answered are settled before the store closes.
  const watcher = events ?? turnedOff('queue-watcher');
  lifecycle.addWorker(
    {
      name: 'queue-watcher',
      start: async () => {
        await webhooks.start();
        await watcher.start();
      },
      stop: async (deadline) => {
        await webhooks.stop(deadline);
        await watcher.stop(deadline);
        await o.outbox.stop(Math.max(0, deadline - Date.now()));
        await events?.watch.watcher.settled();
      },
    },
    scheduler,
  );

  if (events) deliverNow = (ws, target) => events.watch.watcher.deliverNow(ws, target);

  return { digests, freezer, events, steps, testCases, webhooks, slow, dashboards };
}
