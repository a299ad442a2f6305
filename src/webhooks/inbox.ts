/**
 * The durable inbox of verified deliveries, keyed by Svix's message id (migration 013). A delivery is
 * written here before the HTTP answer leaves, so a 2xx means it is kept; a retry of the same message
 * (same id, any replica) finds its row and changes nothing. The worker drains it per workspace in the order
 * of the payload's timestamp; rows stay at least 72 h after arrival (Svix retries for about a day), then go.
 */
import type { Db, Row } from '../store/types.ts';
import type { SinkOutcome, WebhookDelivery } from './ports.ts';

/** How long a delivery's id is remembered after it arrived. */
export const KEEP_DELIVERIES_MS = 72 * 3_600_000;

export type InboxOutcome = SinkOutcome | 'failed';

export interface PendingDelivery extends WebhookDelivery {
  attempts: number;
}

function toDelivery(r: Row): PendingDelivery {
  let payload: unknown;
  try {
    payload = JSON.parse(String(r['payload']));
  } catch {
    payload = undefined;
  }
  return {
    deliveryId: String(r['delivery_id']),
    workspaceId: String(r['workspace_id']),
    type: String(r['type']),
    occurredAt: Number(r['occurred_at']),
    receivedAt: Number(r['received_at']),
    payload,
    attempts: Number(r['attempts']),
  };
}

export class InboxRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Keeps a verified delivery; false when its id is already here for this workspace (a retry, or another
   * replica got it). Svix gives one message the same id at every endpoint it goes to, so two workspaces
   * whose endpoints are in one Trunk organization receive the same id: rows are keyed by (workspace, id).
   */
  async record(d: WebhookDelivery): Promise<boolean> {
    const n = await this.#db.execute(
      `INSERT INTO webhook_inbox (delivery_id, workspace_id, type, occurred_at, received_at, payload, status)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (workspace_id, delivery_id) DO NOTHING`,
      [d.deliveryId, d.workspaceId, d.type, d.occurredAt, d.receivedAt, JSON.stringify(d.payload ?? null)],
    );
    return n === 1;
  }

  /** Workspaces with deliveries waiting. */
  async workspacesWithPending(limit = 100): Promise<string[]> {
    const rows = await this.#db.query(
      `SELECT DISTINCT workspace_id FROM webhook_inbox WHERE status = 'pending' ORDER BY workspace_id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => String(r['workspace_id']));
  }

  /** One workspace's waiting deliveries, in the order their transitions happened. */
  async pending(workspaceId: string, limit = 200): Promise<PendingDelivery[]> {
    const rows = await this.#db.query(
      `SELECT delivery_id, workspace_id, type, occurred_at, received_at, payload, attempts FROM webhook_inbox
       WHERE workspace_id = $1 AND status = 'pending' ORDER BY occurred_at, received_at, delivery_id LIMIT $2`,
      [workspaceId, limit],
    );
    return rows.map(toDelivery);
  }

  async finish(d: Pick<WebhookDelivery, 'workspaceId' | 'deliveryId'>, outcome: InboxOutcome, now: number) {
    await this.#db.execute(
      `UPDATE webhook_inbox SET status = 'done', outcome = $3, done_at = $4, attempts = attempts + 1
       WHERE workspace_id = $1 AND delivery_id = $2 AND status = 'pending'`,
      [d.workspaceId, d.deliveryId, outcome, now],
    );
  }

  /** A sink threw: counted, left waiting for the next pass. */
  async failedOnce(d: Pick<WebhookDelivery, 'workspaceId' | 'deliveryId'>): Promise<void> {
    await this.#db.execute(
      'UPDATE webhook_inbox SET attempts = attempts + 1 WHERE workspace_id = $1 AND delivery_id = $2',
      [d.workspaceId, d.deliveryId],
    );
  }

  /** When the workspace's latest delivery arrived (epoch ms), if any is remembered. */
  async lastReceived(workspaceId: string): Promise<number | undefined> {
    const rows = await this.#db.query(
      'SELECT MAX(received_at) AS at FROM webhook_inbox WHERE workspace_id = $1',
      [workspaceId],
    );
    const at = rows[0]?.['at'];
    return at === null || at === undefined ? undefined : Number(at);
  }

  /** Forgets finished deliveries that arrived before `before`. */
  prune(before: number): Promise<number> {
    return this.#db.execute(`DELETE FROM webhook_inbox WHERE status = 'done' AND received_at < $1`, [before]);
  }
}
