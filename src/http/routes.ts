/**
 * Operational endpoints, plugged into Bolt's receiver as customRoutes:
 *   GET /healthz  the process is alive and its event loop answers (liveness);
 *   GET /readyz   the store answers and every migration is applied, and we are not shutting down (readiness).
 *                 Its body is one of three fixed answers; why the store is not ready (host names, user
 *                 names, driver messages) goes to the log only, since the endpoint is usually public;
 *   GET /metrics  Prometheus text format from the app's own registry.
 */
import type { ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { answerWithin } from '../core/deadline.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';

export interface HttpRouteDeps {
  metrics: Pick<Metrics, 'registry'>;
  store: Pick<Store, 'ready'>;
  lifecycle: { isShuttingDown(): boolean };
  /** How long /readyz waits for the store before calling it unreachable. */
  readyTimeoutMs?: number;
  /** Where the reason for "not ready" goes. */
  logger?: Pick<Logger, 'warn' | 'info'>;
}

/** Every body /readyz can answer. */
export type ReadyBody = { status: 'ready' } | { status: 'not_ready' } | { status: 'shutting_down' };

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
): Promise<{ status: number; body: ReadyBody; detail?: string; schemaVersion?: number }> {
  if (deps.lifecycle.isShuttingDown()) return { status: 503, body: { status: 'shutting_down' } };
  const timeoutMs = deps.readyTimeoutMs ?? 2000;
  try {
    const result = await answerWithin(
      deps.store.ready(),
      timeoutMs,
      () => new Error(`store did not answer within ${timeoutMs} ms`),
    );
    if (!result.ok)
      return {
        status: 503,
        body: { status: 'not_ready' },
        schemaVersion: result.schemaVersion,
        detail: result.detail ?? 'migrations not applied',
      };
    return { status: 200, body: { status: 'ready' }, schemaVersion: result.schemaVersion };
  } catch (err) {
    return {
      status: 503,
      body: { status: 'not_ready' },
      detail: `store unreachable: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

export function createHttpRoutes(deps: HttpRouteDeps): CustomRoute[] {
  // Probes ask every few seconds: log a reason when it changes, not on every probe.
  let lastDetail: string | undefined;
  const noteReadiness = (detail: string | undefined, schemaVersion: number | undefined) => {
    if (detail === lastDetail) return;
    if (detail !== undefined) deps.logger?.warn({ detail, schemaVersion }, 'not ready');
    else if (lastDetail !== undefined) deps.logger?.info({ schemaVersion }, 'ready again');
    lastDetail = detail;
  };
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
        void readiness(deps).then(({ status, body, detail, schemaVersion }) => {
          if (body.status !== 'shutting_down') noteReadiness(detail, schemaVersion);
          sendJson(res, status, body);
        });
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
