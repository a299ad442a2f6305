/**
 * The outbox: events written with their snapshot (queue-state.ts), and one delivery row per (event,
 * destination), claimed with a lease (store/leases.ts). A destination is claimed before the Slack side is called
 * and marked sent after; a claim whose owner died is taken over once its lease expires; a failed delivery
 * is retried on the next tick until the event's grace period ends. So each event reaches each destination
 * once, including after a takeover.
 */
import { type ClaimRow, ClaimRows, type ClaimRowsSpec, holdingOf } from '../store/claim-rows.ts';
import type { Db, LeaseStore, Leases } from '../store/types.ts';
import { POLL_LEASE } from './queue-state.ts';
import type { WatchEvent } from './types.ts';

export interface PendingEvent {
  event: WatchEvent;
  createdAt: number;
}

export type DeliveryStatus = 'claimed' | 'sent' | 'retry' | 'failed' | 'expired';

export interface DeliveryRow {
  eventId: string;
  destination: string;
  status: DeliveryStatus;
  owner: string;
  attempts: number;
  detail?: string;
}

function toDelivery(claimed: ClaimRow): DeliveryRow {
  const r = claimed.row;
  const { owner, attempts } = holdingOf(claimed);
  const d: DeliveryRow = {
    eventId: String(r['event_id']),
    destination: String(r['destination']),
    status: String(r['status']) as DeliveryStatus,
    owner,
    attempts,
  };
  if (typeof r['detail'] === 'string') d.detail = r['detail'];
  return d;
}

/** Each (event, destination) is a claim row (`watch_deliveries`) on a lease (store/claim-rows.ts). */
const DELIVERY_LEASE = 'watch.delivery';
const DELIVERY_ROWS: ClaimRowsSpec = {
  kind: DELIVERY_LEASE,
  table: 'watch_deliveries',
  key: ['event_id', 'destination'],
  columns: ['event_id', 'destination', 'status', 'owner', 'attempts', 'detail'],
};

export class OutboxRepository {
  readonly #db: Db;
  readonly #leases: Leases;
  readonly #rows: ClaimRows;
  constructor(store: LeaseStore) {
    this.#db = store.db;
    this.#leases = store.leases;
    this.#rows = new ClaimRows(store, DELIVERY_ROWS);
  }

  /** Events of the queue not yet delivered everywhere, oldest first. */
  async pending(workspaceId: string, queueKey: string, limit = 200): Promise<PendingEvent[]> {
    const rows = await this.#db.query(
      `SELECT payload, created_at FROM watch_events WHERE workspace_id = $1 AND queue_key = $2 AND done_at IS NULL
       ORDER BY created_at, seq, event_id LIMIT $3`,
      [workspaceId, queueKey, limit],
    );
    return rows.map((r) => ({
      event: JSON.parse(String(r['payload'])) as WatchEvent,
      createdAt: Number(r['created_at']),
    }));
  }

  /**
   * Claims the (event, destination) for this replica: a first claim, a retry of a failed attempt, or a
   * takeover of a claim whose lease expired. False when it was sent, given up, or is being sent by a live owner.
   */
  async claim(
    eventId: string,
    destination: string,
    workspaceId: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const got = await this.#rows.claim(
      { key: [eventId, destination], workspaceId, holder: owner, ttlMs: leaseMs, now },
      // Refused when sent, failed for good or expired (a row whose lease was pruned): nothing more to do.
      (tx, c) =>
        this.#rows.insert(
          {
            event_id: eventId,
            destination,
            workspace_id: workspaceId,
            status: 'claimed',
            owner,
            attempts: c.attempts,
          },
          { tx, conflict: { update: ['status', 'owner', 'attempts'], whileStatus: ['retry', 'claimed'] } },
        ),
    );
    return got !== undefined;
  }

  /** Records the outcome of a claimed delivery (fenced by the lease). */
  settle(
    eventId: string,
    destination: string,
    owner: string,
    outcome: 'sent' | 'retry' | 'failed',
    now: number,
    detail?: string,
  ): Promise<boolean> {
    return this.#rows.write(
      [eventId, destination],
      owner,
      outcome === 'retry' ? { step: 'release' } : { step: 'finish', now, result: outcome },
      { status: outcome, detail: detail ?? null, sent_at: outcome === 'sent' ? now : null },
      // Refused when given up meanwhile (the event expired).
      { whileStatus: ['claimed'] },
    );
  }

  async deliveries(eventId: string): Promise<DeliveryRow[]> {
    return (await this.#rows.select('event_id = $1', [eventId], 'ORDER BY destination')).map(toDelivery);
  }

  /** The event needs nothing more: every destination was sent, failed for good, or its grace ran out. */
  async finish(eventId: string, now: number, expired: boolean): Promise<void> {
    await this.#db.transaction(async (tx) => {
      if (expired)
        await tx.execute(
          "UPDATE watch_deliveries SET status = 'expired' WHERE event_id = $1 AND status IN ('retry', 'claimed')",
          [eventId],
        );
      await tx.execute('UPDATE watch_events SET done_at = $2 WHERE event_id = $1 AND done_at IS NULL', [
        eventId,
        now,
      ]);
    });
  }

  /**
   * Forgets events finished before `before`, their deliveries and the deliveries' leases; and, as the
   * watcher's one pruning pass, the leases of queues given up (unfollowed) before `before`.
   */
  async prune(before: number): Promise<number> {
    const n = await this.#db.transaction(async (tx) => {
      await tx.execute(
        'DELETE FROM watch_deliveries WHERE event_id IN (SELECT event_id FROM watch_events WHERE done_at < $1)',
        [before],
      );
      return tx.execute('DELETE FROM watch_events WHERE done_at < $1', [before]);
    });
    await this.#leases.prune({ kind: DELIVERY_LEASE, before });
    await this.#leases.prune({ kind: POLL_LEASE, before });
    return n;
  }
}
