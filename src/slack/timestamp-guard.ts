/**
 * Bolt refuses a signed request whose timestamp is more than five minutes old. One stamped more than
 * five minutes in the future is as suspect (a request captured or prepared for a later replay), so it
 * gets the same 401 before Bolt sees it.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestPath } from '../core/request-path.ts';

export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

export function rejectFutureTimestamps(
  receiver: { requestListener: RequestListener },
  endpoints: readonly string[],
  nowMs: () => number = Date.now,
): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    const stamp = Number(req.headers['x-slack-request-timestamp']);
    if (
      req.method === 'POST' &&
      endpoints.includes(path) &&
      stamp - nowMs() / 1000 > MAX_CLOCK_SKEW_SECONDS
    ) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('request timestamp is in the future');
      return;
    }
    return next(req, res);
  };
}
