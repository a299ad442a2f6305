/**
 * Counts Slack Web API errors and rate-limit waits. Every WebClient (Bolt's per-workspace clients, the
 * digest's clients) and Bolt's respond() take `fetch` from the client options, so one wrapped fetch sees
 * every call without touching the call sites.
 */
import type { FetchFunction } from '@slack/web-api';
import type { Metrics } from './metrics.ts';

/** `chat.postMessage` for Web API URLs; `response_url` for respond() posts to Slack's hooks. */
export function slackMethodOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return 'unknown';
  }
  const i = path.lastIndexOf('/api/');
  if (i === -1) return 'response_url';
  return path.slice(i + '/api/'.length) || 'unknown';
}

export function instrumentedSlackFetch(
  metrics: Pick<Metrics, 'slackApiErrors' | 'slackRateLimitWaits'>,
  base: typeof fetch = globalThis.fetch,
): FetchFunction {
  return async (url, init) => {
    const method = slackMethodOf(String(url));
    let res: Response;
    try {
      res = await base(url, init as RequestInit);
    } catch (err) {
      const aborted = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      metrics.slackApiErrors.inc({ method, error: aborted ? 'timeout' : 'network' });
      throw err;
    }
    if (res.status === 429) {
      // WebClient sleeps for Retry-After and tries again: each 429 is one wait.
      metrics.slackRateLimitWaits.inc({ method });
    } else if (res.status !== 200) {
      metrics.slackApiErrors.inc({ method, error: `http_${res.status}` });
    } else if ((res.headers.get('content-type') ?? '').includes('json')) {
      // Slack reports most failures as 200 with {"ok": false, "error": "..."}.
      try {
        const body = (await res.clone().json()) as { ok?: unknown; error?: unknown };
        if (body && body.ok === false)
          metrics.slackApiErrors.inc({
            method,
            error: typeof body.error === 'string' ? body.error : 'unknown',
          });
      } catch {
        // Not JSON after all: WebClient reports it; nothing to count here.
      }
    }
    return res;
  };
}
