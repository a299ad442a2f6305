/**
 * Operational endpoints, plugged into Bolt's receiver as customRoutes:
 *   GET /healthz  the process is alive and its event loop answers (liveness);
 *   GET /readyz   the store answers and every migration is applied, and we are not shutting down (readiness);
 *   GET /metrics  Prometheus text format from the app's own registry.
 */
import type { ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';

export interface HttpRouteDeps {
  metrics: Pick<Metrics, 'registry'>;
  store: Pick<Store, 'ready'>;
  lifecycle: { isShuttingDown(): boolean };
  /** How long /readyz waits for the store before calling it unreachable. */
  readyTimeoutMs?: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function readiness(
  deps: HttpRouteDeps,
): Promise<{ status: number; body: { status: string; schemaVersion?: number; detail?: string } }> {
  if (deps.lifecycle.isShuttingDown()) return { status: 503, body: { status: 'shutting_down' } };
  const timeoutMs = deps.readyTimeoutMs ?? 2000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await Promise.race([
      deps.store.ready(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`store did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    if (!result.ok)
      return {
        status: 503,
        body: {
          status: 'not_ready',
          schemaVersion: result.schemaVersion,
          detail: result.detail ?? 'migrations not applied',
        },
      };
    return { status: 200, body: { status: 'ready', schemaVersion: result.schemaVersion } };
  } catch (err) {
    // The store's own message names the problem (host unreachable, timeout); never a stack trace.
    return {
      status: 503,
      body: { status: 'store_unreachable', detail: err instanceof Error ? err.message : String(err) },
    };
  } finally {
    clearTimeout(timer);
  }
}

export function createHttpRoutes(deps: HttpRouteDeps): CustomRoute[] {
  return [
    {
      path: '/healthz',
      method: ['GET', 'HEAD'],
      handler: (_req, res) => sendJson(res, 200, { status: 'ok' }),
    },
    {
      path: '/readyz',
      method: ['GET', 'HEAD'],
      handler: (_req, res) => {
        void readiness(deps).then(({ status, body }) => sendJson(res, status, body));
      },
    },
    {
      path: '/metrics',
      method: 'GET',
      handler: (_req, res) => {
        deps.metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, {
              'content-type': deps.metrics.registry.contentType,
              'cache-control': 'no-store',
            });
            res.end(text);
          },
          () => sendJson(res, 500, { status: 'error', detail: 'metrics could not be collected' }),
        );
      },
    },
  ];
}
