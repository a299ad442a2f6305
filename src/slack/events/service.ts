/**
 * Queue events in Slack: how the watcher's events reach channels, live status messages and authors
 * (deliver.ts, one pacer per channel), the live status messages people ask for, and their expiry. The
 * watcher that produces the events, and the loop that expires live messages, run as a worker
 * (src/workers/queue-watcher.ts).
 */
import type { Config } from '../../config.ts';
import type { Logger } from '../../observability/log.ts';
import type { Store } from '../../store/types.ts';
import { type DeliverBatch, LiveMessageRepository } from '../../watch/index.ts';
import type { Workspaces } from '../workspace.ts';
import { createSlackDeliver } from './deliver.ts';
import { expireLive, type LiveDeps, type LiveStatus, liveStatus } from './live.ts';
import { ChannelPacer } from './pacer.ts';

export interface QueueEventDeliveryOptions {
  config: Config;
  store: Store;
  workspaces: Workspaces;
  logger: Logger;
  now: () => number;
}

export interface QueueEventDelivery {
  readonly deliverBatch: DeliverBatch;
  readonly live: LiveStatus;
  /** Ends the live status messages whose time is up; answers how many (0 when it failed, logged). */
  expire(): Promise<number>;
}

export function createQueueEventDelivery(o: QueueEventDeliveryOptions): QueueEventDelivery {
  const liveDeps: LiveDeps = {
    repo: new LiveMessageRepository(o.store.db),
    workspaces: o.workspaces,
    pacer: new ChannelPacer(),
    logger: o.logger,
    now: o.now,
    appUrl: o.config.trunk.appUrl,
    liveHours: o.config.watch.liveStatusHours,
  };
  return {
    deliverBatch: createSlackDeliver(liveDeps),
    live: liveStatus(liveDeps),
    expire: () =>
      expireLive(liveDeps).catch((err: unknown) => {
        o.logger.error({ err }, 'ending live status messages failed');
        return 0;
      }),
  };
}
