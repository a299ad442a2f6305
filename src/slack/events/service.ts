/**
 * Queue events in Slack, wired for app.ts: the domain's watch service (one poller per queue, with the
 * Trunk budget's `watch` caller) delivering through deliver.ts into the Slack outbox, and the expiry of
 * live status messages on the same interval. start/stop follow the digest service.
 */
import type { Config } from '../../config.ts';
import type { Logger } from '../../observability/log.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { Store } from '../../store/types.ts';
import {
  createWatchService,
  LiveMessageRepository,
  WatchRepository,
  type WatchService,
} from '../../watch/index.ts';
import type { SlackOutbox } from '../outbox/outbox.ts';
import type { Workspaces } from '../workspace.ts';
import { createSlackDeliver, type DeliverDeps } from './deliver.ts';
import { expireLive, type LiveStatus, liveStatus } from './live.ts';

export interface QueueEventsOptions {
  config: Config;
  store: Store;
  workspaces: Workspaces;
  /** Every write goes through it (the app's one outbox). */
  outbox: SlackOutbox;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  replicaId: string;
  /** The watcher's queue lease (AppOverrides.watch.leaseMs); default the watcher's own. */
  leaseMs?: number;
}

export interface QueueEvents {
  readonly watch: WatchService;
  readonly live: LiveStatus;
  start(): void;
  stop(): Promise<void>;
  /**
   * One watcher pass, then the live messages whose time is up; resolves once every write it queued was
   * answered (tests drive the clock and call this; the timer's passes do not wait for Slack).
   */
  tick(): Promise<void>;
}

export function createQueueEvents(o: QueueEventsOptions): QueueEvents {
  const logger = o.logger.child({ component: 'watch' });
  const liveDeps: DeliverDeps = {
    repo: new LiveMessageRepository(o.store.db),
    watches: new WatchRepository(o.store.db),
    workspaces: o.workspaces,
    outbox: o.outbox,
    logger,
    now: o.now,
    appUrl: o.config.trunk.appUrl,
    liveHours: o.config.watch.liveStatusHours,
  };
  const deliverBatch = createSlackDeliver(liveDeps);
  const watch = createWatchService({
    store: o.store,
    trunkFor: async (id) => (await o.workspaces.backgroundTrunkFor(id, 'watch'))?.api,
    deliverBatch,
    deliver: async (event, destinations) => (await deliverBatch([{ event, destinations }]))[0] ?? [],
    clock: o.now,
    replicaId: o.replicaId,
    intervalSeconds: o.config.watch.intervalSeconds,
    stuckMinutes: o.config.watch.stuckMinutes,
    pausedReminderHours: o.config.watch.pausedReminderHours,
    logger,
    metrics: o.metrics,
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    ...(o.config.defaultTarget ? { defaultTarget: o.config.defaultTarget } : {}),
  });
  const expire = () =>
    expireLive(liveDeps).catch((err: unknown) => {
      logger.error({ err }, 'ending live status messages failed');
      return 0;
    });
  let timer: NodeJS.Timeout | undefined;
  return {
    watch,
    live: liveStatus(liveDeps),
    start() {
      watch.start();
      if (!timer) {
        timer = setInterval(() => void expire(), o.config.watch.intervalSeconds * 1000);
        timer.unref();
      }
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await watch.stop();
    },
    async tick() {
      await watch.tick();
      await expire();
    },
  };
}
