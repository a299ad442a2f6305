/**
 * The worker that drains Trunk's webhook inbox (src/webhooks/drainer.ts) with core/periodic-passes.ts: a pass
 * every few seconds where the scheduler runs, and one at once whenever the route keeps a new delivery (on any
 * replica: the drain's lease keeps one replica per workspace at a time, so each delivery is applied once).
 */
import { randomBytes } from 'node:crypto';
import { PeriodicPasses } from '../core/periodic-passes.ts';
import type { Worker } from '../lifecycle.ts';
import { InboxDrainer, type InboxDrainerOptions } from '../webhooks/drainer.ts';

/** How often the inbox is looked at without a kick (deliveries left by a replica that stopped mid-drain). */
export const INBOX_PASS_MS = 5_000;
/** How soon a replica that found a workspace's drain held by another looks again. */
export const BUSY_RETRY_MS = 200;

export interface WebhookInboxWorker extends Worker {
  readonly drainer: InboxDrainer;
  /** A delivery was kept: drain now (or right after the pass in progress). */
  kick(): void;
  /** Settles when no pass runs (tests). */
  idle(): Promise<void>;
}

export function createWebhookInboxWorker(o: InboxDrainerOptions): WebhookInboxWorker {
  const logger = o.logger.child({ component: 'webhooks' });
  // A suffix keeps two replicas apart even when both report pid 1 (containers).
  const drainer = new InboxDrainer({
    ...o,
    replicaId: `${o.replicaId}-${randomBytes(3).toString('hex')}`,
    logger,
  });
  const passes = new PeriodicPasses({
    every: INBOX_PASS_MS,
    pass: async () => {
      // Another replica was draining a workspace: what arrived meanwhile may be this replica's to apply.
      if (await drainer.pass()) setTimeout(() => passes.request(), BUSY_RETRY_MS).unref();
    },
    onError: (err) => logger.error({ err }, 'draining the webhook inbox failed'),
  });
  return {
    name: 'webhook-inbox',
    drainer,
    kick: () => passes.request(),
    idle: () => passes.idle(),
    start: () => void passes.start(),
    stop: async (deadline) => void (await passes.stop(deadline)),
  };
}
