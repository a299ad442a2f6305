/**
 * Trunk's webhooks (issue 21): the workspace's signing secrets (`whsec_…`, one per Trunk endpoint, encrypted
 * like the Trunk token: one ciphertext holding the newline-separated list), the durable inbox of verified
 * deliveries keyed by workspace and Svix's message id (src/webhooks/inbox.ts: written before the 2xx, drained by a worker,
 * kept at least 72 h so Svix's retries of a day find their id), and the last transition delivered per PR and
 * queue (src/watch/transitions.ts), which the webhook path and the poll's diff share so that one transition
 * reaches each destination once.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
ALTER TABLE workspace_settings ADD COLUMN trunk_webhook_secrets TEXT;
CREATE TABLE webhook_inbox (
  delivery_id TEXT NOT NULL,               -- svix-id / webhook-id: the same on every retry of one message
  workspace_id TEXT NOT NULL,              -- and at every endpoint it goes to: two workspaces may share an id
  type TEXT NOT NULL,
  occurred_at ${bigint} NOT NULL,          -- the payload's timestamp (epoch ms), else received_at
  received_at ${bigint} NOT NULL,
  payload TEXT NOT NULL,                   -- the verified JSON body
  status TEXT NOT NULL,                    -- pending | done
  outcome TEXT,                            -- applied | ignored | stale | failed
  attempts INTEGER NOT NULL DEFAULT 0,
  done_at ${bigint},
  PRIMARY KEY (workspace_id, delivery_id)
);
CREATE INDEX webhook_inbox_pending ON webhook_inbox (workspace_id, status, occurred_at);
CREATE INDEX webhook_inbox_received ON webhook_inbox (workspace_id, received_at);
CREATE TABLE watch_transitions (
  workspace_id TEXT NOT NULL,
  queue_key TEXT NOT NULL,
  pr_number INTEGER NOT NULL,
  kind TEXT NOT NULL,                      -- submitted | queued | testing | merged | failed | cancelled
  occurred_at ${bigint} NOT NULL,          -- when it happened, on Trunk's clock where known
  recorded_at ${bigint} NOT NULL,          -- when this app delivered it
  source TEXT NOT NULL,                    -- webhook | poll
  PRIMARY KEY (workspace_id, queue_key, pr_number)
);
`;

export const trunkWebhooksMigration: Migration = {
  id: 13,
  name: 'trunk_webhooks',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['webhook_inbox', 'watch_transitions'],
};
