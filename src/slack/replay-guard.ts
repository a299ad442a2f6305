/**
 * A signed Slack request is valid for five minutes; one captured on the way (a proxy's body log, say)
 * could be sent again in that time and act again. Before Bolt runs a listener, each correctly signed
 * request claims a hash of its signature in the store (idempotency_claims, shared by every replica on
 * PostgreSQL) until the signature's timestamp is too old for Bolt to accept; a second arrival is refused
 * with 401 and counted. Only requests whose signature verifies are remembered, so forged ones cannot
 * fill the table or block a real request. Socket Mode has no signatures and does not pass through here.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HTTPModuleFunctions, isValidSlackRequest } from '@slack/bolt';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../observability/log.ts';
import type { Store } from '../store/types.ts';

/** Bolt refuses a timestamp older than this; a claim must outlive it. */
const SIGNATURE_LIFETIME_MS = 5 * 60 * 1000;
/** Extra time a claim is kept, for replicas whose clocks disagree a little. */
const CLOCK_MARGIN_MS = 60 * 1000;
/** The store must confirm within this, so that the listener can still ack inside Slack's 3 s. */
const CLAIM_BUDGET_MS = 1500;

export interface ReplayGuardOptions {
  signingSecret: string;
  store: Pick<Store, 'claimOnce'>;
  registry: Registry;
  logger: Pick<Logger, 'warn' | 'error'>;
  endpoints: readonly string[];
  nowMs?: () => number;
}

export function rejectReplays(
  receiver: { requestListener: RequestListener },
  opts: ReplayGuardOptions,
): void {
  const { signingSecret, store, logger, endpoints, nowMs = Date.now } = opts;
  const replays = replayCounter(opts.registry);
  const next = receiver.requestListener;

  const check = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: string;
    try {
      // Bolt reads req.rawBody when it is already there, so the body is read once.
      body = (
        await HTTPModuleFunctions.bufferIncomingMessage(req, HTTPModuleFunctions.defaultBodyLimit)
      ).rawBody.toString();
    } catch (err) {
      const tooLarge = HTTPModuleFunctions.isRawBodyError(err) && err.type === 'entity.too.large';
      refuse(res, tooLarge ? 413 : 400, tooLarge ? 'request body too large' : 'request body unreadable');
      return;
    }
    const signature = req.headers['x-slack-signature'];
    const stamp = Number(req.headers['x-slack-request-timestamp']);
    const now = nowMs();
    const valid =
      typeof signature === 'string' &&
      isValidSlackRequest({
        signingSecret,
        body,
        headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': stamp },
        nowMilliseconds: now,
      });
    // Unsigned or forged: Bolt refuses it (401) and logs why; ssl_check needs no signature.
    if (!valid) return next(req, res);

    const key = `slack-signature:${createHash('sha256').update(signature).digest('hex')}`;
    const ttlMs = Math.max(1000, stamp * 1000 + SIGNATURE_LIFETIME_MS + CLOCK_MARGIN_MS - now);
    let first: boolean;
    try {
      first = await withBudget(store.claimOnce(key, ttlMs), CLAIM_BUDGET_MS);
    } catch (err) {
      // Without the store a replay cannot be told apart, but nothing can act either: every change needs
      // the store (claims, defaults, credentials) and will fail there too. Letting the request through
      // means the person reads "the store is not answering" instead of Slack's bare dispatch error.
      logger.error({ err }, 'replay check skipped: the store did not answer');
      return next(req, res);
    }
    if (!first) {
      replays.inc();
      logger.warn(
        { path: (req.url ?? '').split('?')[0], timestamp: stamp },
        'replayed Slack request refused (its signature was already used)',
      );
      refuse(res, 401, 'request already received');
      return;
    }
    return next(req, res);
  };

  receiver.requestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'POST' || !endpoints.includes(path)) return next(req, res);
    void check(req, res).catch((err: unknown) => {
      logger.error({ err }, 'replay check failed');
      if (!res.headersSent) refuse(res, 500, 'internal error');
    });
  };
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(text);
}

function withBudget<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`store did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** One counter per registry (several apps in one test process each have their own). */
const counters = new WeakMap<Registry, Counter>();
function replayCounter(registry: Registry): Counter {
  let c = counters.get(registry);
  if (!c) {
    c = new Counter({
      name: 'mergequeue_replayed_requests_total',
      help: 'Signed Slack requests refused because their signature had already been used',
      registers: [registry],
    });
    counters.set(registry, c);
  }
  return c;
}
