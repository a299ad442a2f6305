/**
 * The outbox: events written with their snapshot (queue-state.ts), and one delivery row per (event,
 * destination), claimed with a lease (store/leases.ts). A destination is claimed before the Slack side is called
 * and marked sent after; a claim whose owner died is taken over once its lease expires; a failed delivery
 * is retried on the next tick until the event's grace period ends. So each event reaches each destination
 * once, including after a takeover.
 */
import { LEGACY_LEASE_UNTIL, SqlLeases } from '../store/leases.ts';
import type { Db, Row } from '../store/types.ts';
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

function toDelivery(r: Row): DeliveryRow {
  const d: DeliveryRow = {
    eventId: String(r['event_id']),
    destination: String(r['destination']),
    status: String(r['status']) as DeliveryStatus,
    owner: String(r['owner']),
    attempts: Number(r['attempts']),
  };
  if (typeof r['detail'] === 'string') d.detail = r['detail'];
  return d;
}

/** Each (event, destination) is a lease in the store's lease table (store/leases.ts). */
const DELIVERY_LEASE = 'watch.delivery';
const deliveryLease = (eventId: string, destination: string) => ({
  kind: DELIVERY_LEASE,
  key: `${eventId}|${destination}`,
});
// The row's `owner` and `attempts` stay its record of who sends (or sent) it and on which attempt; the
// lease decides who may. Its lease_until is LEGACY_LEASE_UNTIL (see store/leases.ts).

export class OutboxRepository {
  readonly #db: Db;
  readonly #leases: SqlLeases;
  constructor(db: Db) {
    this.#db = db;
    this.#leases = new SqlLeases(db);
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
    const got = await this.#leases.together(
      async (tx) => {
        const c = await this.#leases.claim(
          { ...deliveryLease(eventId, destination), workspaceId, holder: owner, ttlMs: leaseMs, now },
          tx,
        );
        return c.acquired ? c : undefined;
      },
      // Refused when sent, failed for good or expired (a row whose lease was pruned): nothing more to do.
      (tx, c) =>
        tx.execute(
          `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner, lease_until)
           VALUES ($1, $2, $3, 'claimed', $4, $5)
           ON CONFLICT (event_id, destination) DO UPDATE SET status = 'claimed', owner = $4, attempts = $6
           WHERE watch_deliveries.status IN ('retry', 'claimed')`,
          [eventId, destination, workspaceId, owner, LEGACY_LEASE_UNTIL, c.attempts],
        ),
    );
    return got !== undefined;
  }

  /** Records the outcome of a claimed delivery (fenced by the lease). */
  async settle(
    eventId: string,
    destination: string,
    owner: string,
    outcome: 'sent' | 'retry' | 'failed',
    now: number,
    detail?: string,
  ): Promise<boolean> {
    const hold = { ...deliveryLease(eventId, destination), holder: owner };
    const done = await this.#leases.together(
      (tx) =>
        outcome === 'retry'
          ? this.#leases.release(hold, tx)
          : this.#leases.finish({ ...hold, now, result: outcome }, tx),
      // Refused when given up meanwhile (the event expired).
      (tx) =>
        tx.execute(
          `UPDATE watch_deliveries SET status = $3, detail = $4, sent_at = $5
           WHERE event_id = $1 AND destination = $2 AND status = 'claimed'`,
          [eventId, destination, outcome, detail ?? null, outcome === 'sent' ? now : null],
        ),
    );
    return done === true;
  }

  async deliveries(eventId: string): Promise<DeliveryRow[]> {
    const rows = await this.#db.query(
      `SELECT d.event_id, d.destination, d.status, COALESCE(l.holder, d.owner) AS owner,
              COALESCE(l.attempts, d.attempts) AS attempts, d.detail
       FROM watch_deliveries d
       LEFT JOIN leases l ON l.kind = $2 AND l.lease_key = d.event_id || '|' || d.destination
       WHERE d.event_id = $1 ORDER BY d.destination`,
      [eventId, DELIVERY_LEASE],
    );
    return rows.map(toDelivery);
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
