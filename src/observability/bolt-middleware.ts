/**
 * Bolt global middleware: gives each Slack request a request id and a child logger bound to it, placed in
 * the listener context as `context.reqId` and `context.logger`.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { type Logger, requestLogger } from './log.ts';
import { currentRequestContext, newRequestId, runWithRequestContext } from './request-context.ts';

export function requestContextMiddleware(logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async ({ context, next }) => {
    // trackBoltRequests already opened a request context; Socket Mode or tests may not have.
    const existing = currentRequestContext();
    const reqId = existing?.reqId ?? newRequestId();
    context['reqId'] = reqId;
    // Built on first use: a pino child per request costs ~60 µs, and most requests never log.
    let child: Logger | undefined;
    Object.defineProperty(context, 'logger', {
      configurable: true,
      enumerable: true,
      get: () => {
        child ??= requestLogger(logger, reqId);
        return child;
      },
    });
    if (existing) return next();
    return runWithRequestContext({ reqId }, next);
  };
}
