/**
 * The seam between receiving Trunk's webhooks (the route, the signature check, the durable inbox and the worker
 * that drains it, in src/webhooks/) and what each family of events means to the app:
 *   - merge-queue transitions (`pull_request.*`, `pull_request_batch.*`) feed the watch pipeline (src/watch/);
 *   - flaky-test events (`v2.test_case.status_changed`, `test_case.monitor_status_changed`,
 *     `test_case.investigation_completed`, …) feed the test feeds (src/flaky/).
 * The inbox worker hands each verified, de-duplicated delivery to the sink of its family, in payload-timestamp order
 * per workspace. A sink must be idempotent for a given (workspaceId, deliveryId): a delivery may be handed over
 * again after a crash between the sink's work and the inbox marking it done.
 */

/** One verified delivery, as the inbox keeps it. */
export interface WebhookDelivery {
  /**
   * Svix's message id (`svix-id` / `webhook-id`): the same on every retry of one message, and at every endpoint
   * the message goes to (so two workspaces may each hold one delivery of the same id).
   */
  deliveryId: string;
  /** The Slack team id (or enterprise id of an org-wide install) named in the endpoint's path. */
  workspaceId: string;
  /** The payload's `type` (or, for old merge-queue payloads without one, `pull_request.<action>`). */
  type: string;
  /** The payload's `timestamp` (epoch ms) when it has one, else when the delivery arrived. */
  occurredAt: number;
  /** When the delivery arrived (epoch ms). */
  receivedAt: number;
  /** The parsed JSON body, unvalidated: each sink validates what it reads and ignores unknown fields. */
  payload: unknown;
}

/** What a sink says it did with a delivery (counted in /metrics by outcome). */
export type SinkOutcome = 'applied' | 'ignored' | 'stale';

export interface WebhookSink {
  /** Whether this sink handles deliveries of `type`. */
  accepts(type: string): boolean;
  /** Apply one delivery. Throws to have the inbox retry it later (a store or Trunk fault). */
  apply(delivery: WebhookDelivery): Promise<SinkOutcome>;
}
