/**
 * POST /trunk/webhooks/<workspace>: Trunk's webhooks (through Svix), plugged into Bolt's receiver as a
 * customRoute (HTTP and Socket Mode alike). The raw body is read up to MAX_BODY_BYTES (413 beyond), verified
 * against the workspace's signing secrets (src/webhooks/verify.ts), written to the durable inbox keyed by
 * the delivery's id, and answered 200 at once: the work is done from the inbox by its worker, which is
 * kicked here. A retry of a delivery already kept answers 200 and changes nothing.
 * Unsigned, forged, stale or unknown-workspace deliveries get 401 with a fixed body; nothing is written and
 * neither secrets nor signatures are logged or echoed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { TRUNK_WEBHOOKS_PATH } from '../webhooks/endpoint.ts';
import type { InboxRepository } from '../webhooks/inbox.ts';
import type { WebhookDelivery } from '../webhooks/ports.ts';
import { verifyDelivery } from '../webhooks/verify.ts';

/** Trunk's payloads are a few kilobytes; anything near this is not one of them. */
export const MAX_BODY_BYTES = 1024 * 1024;

const WORKSPACE_ID = /^[TE][A-Z0-9]{2,40}$/;

export interface TrunkWebhookRouteDeps {
  /** The workspace's signing secrets (stored, and TRUNK_WEBHOOK_SECRET for the single workspace); [] if none. */
  secretsFor(workspaceId: string): Promise<readonly string[]>;
  inbox: Pick<InboxRepository, 'record'>;
  /** A delivery was kept: drain the inbox now. */
  kept(workspaceId: string): void;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** The app's clock (when a delivery arrived). The signature's tolerance is checked on the wall clock. */
  now: () => number;
  lifecycle: { isShuttingDown(): boolean };
  maxBodyBytes?: number;
}

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    ...(status === 413 ? { connection: 'close' } : {}),
  });
  res.end(body);
}

/** The raw body, or undefined once it passes `max` bytes (the rest is not read). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The type of a payload without `type` (Svix catalog examples of Trunk's older payloads carry none), read from
 * its fields: a merge-queue PR's or batch's `action`, or the fields only one flaky-test event has.
 */
function typeFromShape(p: Record<string, unknown>): string {
  const action = typeof p['action'] === 'string' && p['action'] !== '' ? p['action'] : undefined;
  if (action && typeof p['pr_number'] === 'number') return `pull_request.${action}`;
  if (action && Array.isArray(p['pr_numbers'])) return `pull_request_batch.${action}`;
  if (!p['test_case'] || typeof p['test_case'] !== 'object') return 'unknown';
  if ('new_status' in p) return 'v2.test_case.status_changed';
  if ('markdown_summary' in p) return 'test_case.investigation_completed';
  if ('monitor' in p) return 'test_case.monitor_status_changed';
  if ('status_change' in p) return 'test_case.status_changed';
  return 'unknown';
}

/** The payload's type (or what its fields say it is: typeFromShape) and timestamp (epoch ms). */
function describe(payload: unknown, receivedAt: number): { type: string; occurredAt: number } {
  const p = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const type = typeof p['type'] === 'string' && p['type'] !== '' ? p['type'] : typeFromShape(p);
  const ts = typeof p['timestamp'] === 'string' ? Date.parse(p['timestamp']) : Number.NaN;
  return { type, occurredAt: Number.isFinite(ts) ? ts : receivedAt };
}

export async function handleTrunkWebhook(
  deps: TrunkWebhookRouteDeps,
  workspaceId: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { metrics } = deps;
  if (deps.lifecycle.isShuttingDown()) return answer(res, 503, 'shutting down\n');
  const body = await readBody(req, deps.maxBodyBytes ?? MAX_BODY_BYTES);
  if (!body) {
    metrics.webhookDeliveries.inc({ outcome: 'too_large' });
    return answer(res, 413, 'payload too large\n');
  }
  const secrets = WORKSPACE_ID.test(workspaceId) ? await deps.secretsFor(workspaceId) : [];
  const checked =
    secrets.length === 0
      ? ({ ok: false, reason: 'unknown workspace' } as const)
      : verifyDelivery(body, req.headers, secrets);
  if (!checked.ok) {
    metrics.webhookDeliveries.inc({ outcome: 'rejected' });
    deps.logger.info({ workspace: workspaceId, reason: checked.reason }, 'trunk webhook refused');
    return checked.reason === 'not_json'
      ? answer(res, 400, 'bad request\n')
      : answer(res, 401, 'unauthorized\n');
  }
  const receivedAt = deps.now();
  const delivery: WebhookDelivery = {
    deliveryId: checked.id,
    workspaceId,
    ...describe(checked.payload, receivedAt),
    receivedAt,
    payload: checked.payload,
  };
  const fresh = await deps.inbox.record(delivery);
  if (!fresh) {
    metrics.webhookDeliveries.inc({ outcome: 'duplicate' });
    return answer(res, 200, 'ok\n');
  }
  answer(res, 200, 'ok\n');
  deps.kept(workspaceId);
}

export function createTrunkWebhookRoutes(deps: TrunkWebhookRouteDeps): CustomRoute[] {
  return [
    {
      path: `${TRUNK_WEBHOOKS_PATH}/:workspace`,
      method: 'POST',
      handler: (req, res) => {
        const workspaceId = String(
          (req as IncomingMessage & { params?: Record<string, string> }).params?.['workspace'] ?? '',
        );
        handleTrunkWebhook(deps, workspaceId, req, res).catch((err: unknown) => {
          // The store did not answer: nothing was kept, so Svix must retry.
          deps.logger.warn(
            { err, workspace: workspaceId },
            'trunk webhook could not be kept; asking for a retry',
          );
          if (!res.headersSent) answer(res, 503, 'try again later\n');
        });
      },
    },
  ];
}
