/**
 * The outbox: events written with their snapshot (queue-state.ts), and one delivery row per (event,
 * destination) — the digests' claim discipline. A destination is claimed before the Slack side is called
 * and marked sent after; a claim whose owner died is taken over once its lease expires; a failed delivery
 * is retried on the next tick until the event's grace period ends. So each event reaches each destination
 * once, including after a takeover.
 */
import type { Db, Row } from '../store/types.ts';
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

export class OutboxRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
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
    const rows = await this.#db.query(
      `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner, lease_until)
       VALUES ($1, $2, $3, 'claimed', $4, $5)
       ON CONFLICT (event_id, destination) DO UPDATE SET status = 'claimed', owner = $4, lease_until = $5,
         attempts = watch_deliveries.attempts + 1
       WHERE watch_deliveries.status = 'retry' OR (watch_deliveries.status = 'claimed' AND watch_deliveries.lease_until < $6)
       RETURNING event_id`,
      [eventId, destination, workspaceId, owner, now + leaseMs, now],
    );
    return rows.length === 1;
  }

  /** Records the outcome of a claimed delivery (fenced by owner). */
  async settle(
    eventId: string,
    destination: string,
    owner: string,
    outcome: 'sent' | 'retry' | 'failed',
    now: number,
    detail?: string,
  ): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE watch_deliveries SET status = $4, detail = $5, sent_at = $6
       WHERE event_id = $1 AND destination = $2 AND owner = $3 AND status = 'claimed'`,
      [eventId, destination, owner, outcome, detail ?? null, outcome === 'sent' ? now : null],
    );
    return n === 1;
  }

  async deliveries(eventId: string): Promise<DeliveryRow[]> {
    const rows = await this.#db.query(
      'SELECT event_id, destination, status, owner, attempts, detail FROM watch_deliveries WHERE event_id = $1 ORDER BY destination',
      [eventId],
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

  /** Forgets events finished before `before` and their deliveries. */
  async prune(before: number): Promise<number> {
    return this.#db.transaction(async (tx) => {
      await tx.execute(
        'DELETE FROM watch_deliveries WHERE event_id IN (SELECT event_id FROM watch_events WHERE done_at < $1)',
        [before],
      );
      return tx.execute('DELETE FROM watch_events WHERE done_at < $1', [before]);
    });
  }
}
