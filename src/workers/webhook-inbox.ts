/**
 * The worker that drains Trunk's webhook inbox (src/webhooks/drainer.ts), a periodic worker
 * (./periodic-worker.ts): a pass every few seconds where the scheduler runs, and one at once whenever the
 * route keeps a new delivery (on any replica: the drain's lease keeps one replica per workspace at a time, so
 * each delivery is applied once). A pass that found a drain held by another replica asks its loop for one
 * more shortly; stop cancels that look with the rest.
 */
import { randomBytes } from 'node:crypto';
import { InboxDrainer, type InboxDrainerOptions } from '../webhooks/drainer.ts';
import { type PeriodicWorker, periodicWorker } from './periodic-worker.ts';

/** How often the inbox is looked at without a kick (deliveries left by a replica that stopped mid-drain). */
export const INBOX_PASS_MS = 5_000;
/** How soon a replica that found a workspace's drain held by another looks again. */
export const BUSY_RETRY_MS = 200;

export interface WebhookInboxWorker extends PeriodicWorker {
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
  const worker = periodicWorker({
    name: 'webhook-inbox',
    every: INBOX_PASS_MS,
    pass: async () => {
      // Another replica was draining a workspace: what arrived meanwhile may be this replica's to apply.
      if (await drainer.pass()) worker.passes.requestWithin(BUSY_RETRY_MS);
    },
    onError: (err) => logger.error({ err }, 'draining the webhook inbox failed'),
  });
  return {
    ...worker,
    drainer,
    kick: () => worker.passes.request(),
    idle: () => worker.passes.idle(),
  };
}
