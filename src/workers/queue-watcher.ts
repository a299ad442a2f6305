/**
 * Queue events as the app runs them: the watch domain's watcher (one poller per followed queue, with the
 * Trunk budget's `watch` caller) delivering through the Slack side (slack/queue-events/delivery.ts), and the expiry
 * of live status messages once a watch interval. One worker, two loops (./periodic-worker.ts); stopping it
 * releases this replica's queue leases so another replica polls those queues at once.
 */
import type { Config } from '../config.ts';
import type { Worker } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { createKickHandlers } from '../services/kicks.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import {
  createQueueEventDelivery,
  type QueueEventDelivery,
  type QueueEventDeliveryOptions,
} from '../slack/queue-events/delivery.ts';
import type { LiveStatus } from '../slack/queue-events/live.ts';
import type { StepCompleter } from '../slack/steps/completion.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import {
  createWatchPoll,
  LiveMessageRepository,
  type QueueTarget,
  type WatchPoll,
  type WatchPollDeps,
  WatchRepository,
} from '../watch/index.ts';
import type { BotStanding } from './bot-standing.ts';
import { periodicWorker } from './periodic-worker.ts';

export interface QueueWatcherOptions {
  config: Config;
  store: Store;
  workspaces: Workspaces;
  /** Every write goes through it (the app's one outbox). */
  outbox: SlackOutbox;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  replicaId: string;
  /** Feeds poll only while the workspace's bot token stands (not after tokens_revoked, until a re-install). */
  botStanding: BotStanding;
  /** The watcher's queue lease (AppOverrides.watch.leaseMs); default the watcher's own. */
  leaseMs?: number;
  /** Completes the Workflow Builder steps waiting for a PR that left the queue. */
  steps?: StepCompleter;
  /** Told when a poll learned that a PR of the queue merged (slow-queue alerts). */
  onMerged?: (workspaceId: string, target: QueueTarget) => void;
}

export interface WatchWorkerOptions extends WatchPollDeps {
  /** How often the loop runs; default a quarter of the interval (at least 1 s). Polls still happen once an interval. */
  tickMs?: number;
}

/** The watch poll (watch/poll.ts) ticking on its own loop. */
export interface WatchWorker extends WatchPoll {
  start(): void;
  /**
   * Stops ticking and waits for the tick in progress until `deadline` (epoch ms; default 10 s from now, or
   * `timeoutMs`). `releaseLeases: false` leaves the leases to expire, as a crashed replica would (tests of
   * takeover).
   */
  stop(opts?: { deadline?: number; timeoutMs?: number; releaseLeases?: boolean }): Promise<void>;
}

export function createWatchWorker(o: WatchWorkerOptions): WatchWorker {
  const { tickMs, ...deps } = o;
  const watch = createWatchPoll(deps);
  const loop = periodicWorker({
    name: 'watch',
    every: tickMs ?? Math.max(1000, (o.intervalSeconds * 1000) / 4),
    pass: () => watch.watcher.tick(),
    onError: (err) => o.logger.error({ err }, 'watch tick failed'),
  });
  return {
    ...watch,
    start() {
      void loop.start();
      o.logger.info({ intervalSeconds: o.intervalSeconds }, 'queue watcher started');
    },
    async stop(opts = {}) {
      await loop.stop(opts.deadline ?? Date.now() + (opts.timeoutMs ?? 10_000));
      if (opts.releaseLeases ?? true) await watch.watcher.releaseAll();
    },
  };
}

export interface QueueEvents extends Worker {
  readonly watch: WatchWorker;
  readonly live: LiveStatus;
  /** One watcher pass, then the live messages whose time is up (tests drive the clock and call this). */
  tick(): Promise<void>;
}

/**
 * The Slack side of queue events (slack/queue-events/delivery.ts) on this store: its rows (live messages,
 * watches) are built here, in the composition, and handed in as ports.
 */
export function queueEventDelivery(
  o: Omit<QueueEventDeliveryOptions, 'liveMessages' | 'watches'> & { store: Store },
): QueueEventDelivery {
  const { store, ...rest } = o;
  return createQueueEventDelivery({
    ...rest,
    liveMessages: new LiveMessageRepository(store.db),
    watches: new WatchRepository(store.db),
  });
}

export function createQueueWatcher(o: QueueWatcherOptions): QueueEvents {
  const logger = o.logger.child({ component: 'watch' });
  // Kick classes and the autopilot (issue 29): the autopilot announces through the watcher, bound below.
  let deliverNow: (ws: string, target: QueueTarget) => Promise<void> = async () => undefined;
  const kicks = createKickHandlers({
    store: o.store,
    trunkFor: async (id) => (await o.workspaces.trunkFor(id))?.api,
    deliverNow: (ws, target) => deliverNow(ws, target),
    clock: o.now,
    replicaId: o.replicaId,
    logger,
  });
  const delivery = queueEventDelivery({ ...o, logger, kicks });
  const watch = createWatchWorker({
    store: o.store,
    // A workspace whose bot token Slack revoked is not polled (its queues are skipped) until a re-install.
    trunkFor: async (id) =>
      (await o.botStanding(id)) ? (await o.workspaces.backgroundTrunkFor(id, 'watch'))?.api : undefined,
    deliverBatch: delivery.deliverBatch,
    departures: delivery.departures,
    extraDestinations: async (event) =>
      (await kicks.wants(event))
        ? [{ kind: 'autopilot' as const, key: 'autopilot', workspaceId: event.workspaceId }]
        : [],
    clock: o.now,
    replicaId: o.replicaId,
    intervalSeconds: o.config.watch.intervalSeconds,
    stuckMinutes: o.config.watch.stuckMinutes,
    pausedReminderHours: o.config.watch.pausedReminderHours,
    logger,
    metrics: o.metrics,
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    ...(o.onMerged ? { onMerged: o.onMerged } : {}),
    ...(o.config.defaultTarget ? { defaultTarget: o.config.defaultTarget } : {}),
  });
  deliverNow = (ws, target) => watch.watcher.deliverNow(ws, target);
  const expiry = periodicWorker({
    name: 'live-expiry',
    every: o.config.watch.intervalSeconds * 1000,
    pass: async () => void (await delivery.expire()),
    onError: (err) => logger.error({ err }, 'ending live status messages failed'),
  });
  return {
    name: 'queue-watcher',
    watch,
    live: delivery.live,
    start() {
      watch.start();
      void expiry.start();
    },
    async stop(deadline) {
      await Promise.all([expiry.stop(deadline), watch.stop({ deadline })]);
    },
    async tick() {
      await watch.tick();
      await delivery.expire();
    },
  };
}
