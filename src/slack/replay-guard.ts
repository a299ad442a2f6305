/**
 * A signed Slack request is valid for five minutes; one captured on the way (a proxy's body log, say)
 * could be sent again in that time and act again. Before Bolt runs a listener, each correctly signed
 * request claims a hash of what was verified (the HMAC of its timestamp and body, not the header as
 * spelled) in the store (idempotency_claims, shared by every replica on PostgreSQL) until the signature's
 * timestamp is too old for Bolt to accept; a second arrival is refused with 401 and counted. A signature
 * header is exactly `v0=` and 64 lowercase hex digits and a timestamp header only decimal digits, as
 * Slack sends them: any other spelling (uppercase, extra characters, two headers) is refused as forged,
 * so no respelling of one request can claim anew (issue 26). Only requests whose signature verifies are
 * remembered, so forged ones cannot fill the table or block a real request. Socket Mode has no
 * signatures and does not pass through here.
 *
 * This is the one signature check of the HTTP receiver (app.ts turns Bolt's own off): an unsigned, forged
 * or stale request gets Bolt's answer (401, no body, the same warning), an unsigned `ssl_check` Bolt's 200.
 * It computes one HMAC with a key made once; Bolt's check made a key and three HMACs per request
 * (tsscmp), and doing both cost an ack more than all of a bare Bolt app's work (ADR 0007).
 */
import { createHash, createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseForm } from 'node:querystring';
import { HTTPModuleFunctions, type ReceiverEvent } from '@slack/bolt';
import { Counter, type Registry } from 'prom-client';
import { answerWithin } from '../core/deadline.ts';
import { requestPath } from '../core/request-path.ts';
import type { Logger } from '../observability/log.ts';
import type { OnceClaims } from './ports.ts';

/** Bolt refuses a timestamp older than this; a claim must outlive it. */
const SIGNATURE_LIFETIME_MS = 5 * 60 * 1000;
/** Extra time a claim is kept, for replicas whose clocks disagree a little. */
const CLOCK_MARGIN_MS = 60 * 1000;
/** The store must confirm within this, so that the listener can still ack inside Slack's 3 s. */
const CLAIM_BUDGET_MS = 1500;

export interface ReplayGuardOptions {
  signingSecret: string;
  store: OnceClaims;
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
  const hmacKey = createSecretKey(Buffer.from(signingSecret));
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
    const now = nowMs();
    const verified = verifySignature(
      hmacKey,
      req.headers['x-slack-signature'],
      req.headers['x-slack-request-timestamp'],
      body,
      now,
    );
    if (typeof verified === 'string') {
      // Slack's ssl_check needs no signature; anything it carried besides is not read.
      if (isSslCheck(req, body)) {
        res.writeHead(200);
        res.end();
        return;
      }
      logger.warn(`Failed to parse and verify the request data: ${verified}`);
      res.writeHead(401);
      res.end();
      return;
    }

    const { stamp, mac } = verified;
    // What was verified (the HMAC, spelled the one way Slack spells it), never the header as received: one
    // request, one key. A hash, not the signature; the same key earlier versions claimed for a well-formed
    // header, so replicas of both versions side by side (a rolling deploy) refuse each other's replays.
    const canonical = `v0=${mac.toString('hex')}`;
    const claimKey = `slack-signature:${createHash('sha256').update(canonical).digest('hex')}`;
    const ttlMs = Math.max(1000, stamp * 1000 + SIGNATURE_LIFETIME_MS + CLOCK_MARGIN_MS - now);
    let first: boolean;
    try {
      first = await withBudget(store.claimOnce(claimKey, ttlMs), CLAIM_BUDGET_MS);
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
        { path: requestPath(req), timestamp: stamp },
        'replayed Slack request refused (its signature was already used)',
      );
      refuse(res, 401, 'request already received');
      return;
    }
    return next(req, res);
  };

  receiver.requestListener = (req, res) => {
    const path = requestPath(req);
    if (req.method !== 'POST' || !endpoints.includes(path)) return next(req, res);
    void check(req, res).catch((err: unknown) => {
      logger.error({ err }, 'replay check failed');
      if (!res.headersSent) refuse(res, 500, 'internal error');
    });
  };
}

/** The only spelling Slack sends: version v0 and the HMAC-SHA256 as 64 lowercase hex digits. */
const SIGNATURE_FORMAT = /^v0=[0-9a-f]{64}$/;
/** Unix seconds in decimal digits, as Slack sends them (no sign, point, exponent or padding). */
const TIMESTAMP_FORMAT = /^[1-9][0-9]{0,11}$/;

/**
 * Verifies a request's signature headers against its body (as Bolt's verifySlackRequest does, but strictly:
 * one header of each, spelled exactly as Slack spells them). Answers what was verified (the timestamp and
 * the HMAC bytes), or why the request does not hold, in Bolt's words where Bolt has them.
 */
export function verifySignature(
  key: KeyObject,
  signature: string | string[] | undefined,
  timestamp: string | string[] | undefined,
  body: string,
  nowMs: number,
): { stamp: number; mac: Buffer } | string {
  if (signature === undefined) return 'header x-slack-signature is missing';
  if (typeof signature !== 'string' || !SIGNATURE_FORMAT.test(signature))
    return 'header x-slack-signature is not one "v0=" and 64 lowercase hex digits';
  if (typeof timestamp !== 'string' || !TIMESTAMP_FORMAT.test(timestamp))
    return 'header x-slack-request-timestamp did not have the expected type';
  const stamp = Number(timestamp);
  if (stamp < Math.floor(nowMs / 1000) - SIGNATURE_LIFETIME_MS / 1000)
    return 'x-slack-request-timestamp must differ from system time by no more than 5 minutes or request is stale';
  const mac = createHmac('sha256', key).update(`v0:${timestamp}:${body}`).digest();
  if (!timingSafeEqual(Buffer.from(signature.slice('v0='.length), 'hex'), mac)) return 'signature mismatch';
  return { stamp, mac };
}

/** A form body with `ssl_check=1`, which Slack sends unsigned (Bolt answers it with an empty 200). */
function isSslCheck(req: IncomingMessage, body: string): boolean {
  if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return false;
  return parseForm(body)['ssl_check'] === '1';
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(text);
}

function withBudget<T>(p: Promise<T>, ms: number): Promise<T> {
  return answerWithin(p, ms, () => new Error(`store did not answer within ${ms} ms`));
}

/**
 * Slack retries an Events API delivery it thinks was lost (no 200 within 3 s, or an error): a new request,
 * new signature and timestamp, the same `event_id`, up to three times over about five minutes.
 */
export const EVENT_ONCE_MS = 10 * 60 * 1000;

export interface EventsOnceOptions {
  store: OnceClaims;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
  registry: Registry;
}

/**
 * An event is handled once, wherever its deliveries land: before Bolt runs a listener, each Events API
 * delivery claims its event (the `event_id`, with the installation and the event itself, so a body that
 * merely reuses an id is not mistaken for a retry) for ten minutes in the store, shared by every replica on
 * PostgreSQL. A delivery whose event was already claimed is acknowledged with an empty 200 and does
 * nothing. A delivery answered 503 while shutting down (src/lifecycle.ts) never got this far, so it claimed
 * nothing and its retry is handled, once. Socket Mode passes here too (its envelopes carry the same body).
 */
export function handleEventsOnce(
  app: { processEvent(event: ReceiverEvent): Promise<void> },
  opts: EventsOnceOptions,
): void {
  const { store, logger } = opts;
  const ignored = counterOf(opts.registry, {
    name: 'mergequeue_event_retries_ignored_total',
    help: 'Events API deliveries acknowledged without handling: their event_id had already been handled',
  });
  const process = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    const key = eventKeyOf(event.body);
    if (!key) return process(event);
    let first: boolean;
    try {
      first = await withBudget(store.claimOnce(key, EVENT_ONCE_MS), CLAIM_BUDGET_MS);
    } catch (err) {
      // Without the store nothing the event would do can be done either; handling it is the lesser risk.
      logger.error({ err }, 'event de-duplication skipped: the store did not answer');
      return process(event);
    }
    if (first) return process(event);
    ignored.inc();
    logger.info(
      { eventId: (event.body as { event_id?: unknown }).event_id, retryNum: event.retryNum },
      'an Events API retry of an event already handled was acknowledged and ignored',
    );
    await event.ack();
  };
}

/** `slack-event:<event_id>:<hash of installation and event>`, or undefined for anything but an event. */
export function eventKeyOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (b['type'] !== 'event_callback' || typeof b['event_id'] !== 'string' || !b['event_id']) return undefined;
  const auth = Array.isArray(b['authorizations']) ? b['authorizations'][0] : undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify([b['team_id'] ?? null, b['enterprise_id'] ?? null, auth ?? null, b['event']]))
    .digest('hex')
    .slice(0, 32);
  return `slack-event:${b['event_id'].slice(0, 64)}:${digest}`;
}

/** One counter per registry and name (several apps in one test process each have their own). */
const counters = new WeakMap<Registry, Map<string, Counter>>();
function counterOf(registry: Registry, spec: { name: string; help: string }): Counter {
  const { name, help } = spec;
  let byName = counters.get(registry);
  if (!byName) {
    byName = new Map();
    counters.set(registry, byName);
  }
  let c = byName.get(name);
  if (!c) {
    c = new Counter({ name, help, registers: [registry] });
    byName.set(name, c);
  }
  return c;
}

function replayCounter(registry: Registry): Counter {
  return counterOf(registry, {
    name: 'mergequeue_replayed_requests_total',
    help: 'Signed Slack requests refused because their signature had already been used',
  });
}
