/**
 * Drains the inbox: for each workspace with deliveries waiting, one replica at a time (a lease per workspace,
 * store/leases.ts) hands each delivery, in payload-timestamp order, to the first sink that accepts its type,
 * and marks it done with the sink's outcome. A type no sink accepts is `ignored`. A sink that throws (a store
 * or Trunk fault) stops the workspace's pass, so later transitions never overtake it; the delivery is tried
 * again on the next pass and given up (`failed`, logged) after MAX_ATTEMPTS.
 */
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Db, Leases } from '../store/types.ts';
import { InboxRepository, KEEP_DELIVERIES_MS } from './inbox.ts';
import type { WebhookSink } from './ports.ts';

export const INBOX_LEASE = 'webhooks.inbox';
export const MAX_ATTEMPTS = 5;

export interface InboxDrainerOptions {
  db: Db;
  /** The store's lease service (who drains a workspace's inbox). */
  leases: Leases;
  /** Every sink, asked in order (the composition root's list). */
  sinks: readonly WebhookSink[];
  replicaId: string;
  clock: () => number;
  logger: Logger;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
  /** How long a workspace's drain is this replica's without finishing; default 60 s. */
  leaseMs?: number;
}

export class InboxDrainer {
  readonly inbox: InboxRepository;
  readonly #o: InboxDrainerOptions;
  readonly #leases: Leases;
  #prunedAt = 0;

  constructor(o: InboxDrainerOptions) {
    this.#o = o;
    this.inbox = new InboxRepository(o.db);
    this.#leases = o.leases;
  }

  /**
   * One pass over every workspace with deliveries waiting. Resolves true when another replica was draining a
   * workspace (what it kept meanwhile may be left for this replica: pass again shortly).
   */
  async pass(): Promise<boolean> {
    let busy = false;
    for (const ws of await this.inbox.workspacesWithPending()) {
      try {
        if (!(await this.#drain(ws))) busy = true;
      } catch (err) {
        this.#o.logger.error({ err, workspace: ws }, 'draining webhook deliveries failed; retrying');
      }
    }
    const now = this.#o.clock();
    if (now - this.#prunedAt > 3_600_000) {
      this.#prunedAt = now;
      await this.inbox.prune(now - KEEP_DELIVERIES_MS);
      await this.#leases.prune({ kind: INBOX_LEASE, before: now - KEEP_DELIVERIES_MS });
    }
    return busy;
  }

  /** False when another replica holds the workspace's drain. */
  async #drain(workspaceId: string): Promise<boolean> {
    const hold = { kind: INBOX_LEASE, key: workspaceId, holder: this.#o.replicaId };
    const claim = await this.#leases.claim({
      ...hold,
      workspaceId,
      ttlMs: this.#o.leaseMs ?? 60_000,
      now: this.#o.clock(),
    });
    // Another replica drains this workspace now: its order is kept by not draining beside it.
    if (!claim.acquired) return false;
    const log = this.#o.logger.child({ workspace: workspaceId });
    try {
      for (const d of await this.inbox.pending(workspaceId)) {
        const sink = this.#o.sinks.find((s) => s.accepts(d.type));
        if (!sink) {
          await this.inbox.finish(d, 'ignored', this.#o.clock());
          this.#o.metrics.webhookDeliveries.inc({ outcome: 'ignored' });
          continue;
        }
        try {
          const outcome = await sink.apply(d);
          await this.inbox.finish(d, outcome, this.#o.clock());
          this.#o.metrics.webhookDeliveries.inc({ outcome });
        } catch (err) {
          if (d.attempts + 1 >= MAX_ATTEMPTS) {
            await this.inbox.finish(d, 'failed', this.#o.clock());
            this.#o.metrics.webhookDeliveries.inc({ outcome: 'failed' });
            log.error(
              { err, delivery: d.deliveryId, type: d.type },
              'webhook delivery given up after retries',
            );
            continue;
          }
          await this.inbox.failedOnce(d);
          log.warn(
            { err, delivery: d.deliveryId, type: d.type },
            'applying a webhook delivery failed; retrying',
          );
          return true;
        }
      }
      return true;
    } finally {
      await this.#leases.release(hold).catch(() => false);
    }
  }
}
