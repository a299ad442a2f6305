/**
 * Verifies one delivery of Trunk's webhooks (sent through Svix, signed with the Standard Webhooks scheme) with
 * the maintained `standardwebhooks` library: HMAC-SHA256 over `id.timestamp.rawBody`, compared in constant
 * time, a five-minute tolerance, any `v1,` signature of the header (Svix sends several during a rotation)
 * matching any of the workspace's secrets (one per endpoint, old and new during a rotation).
 * Svix names the headers `svix-id`, `svix-timestamp`, `svix-signature`; white-labelled senders use
 * `webhook-*`. Both are read; the library is handed the `webhook-*` names it expects.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** Svix's (and the library's) tolerance between the signature's timestamp and now. */
export const TOLERANCE_SECONDS = 5 * 60;

export interface SignatureHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

type HeaderBag = Record<string, string | string[] | undefined>;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** The delivery's id, timestamp and signatures, under either family of names; undefined when incomplete. */
export function signatureHeaders(headers: HeaderBag): SignatureHeaders | undefined {
  for (const prefix of ['webhook', 'svix']) {
    const id = one(headers[`${prefix}-id`]);
    const timestamp = one(headers[`${prefix}-timestamp`]);
    const signature = one(headers[`${prefix}-signature`]);
    if (id && timestamp && signature) return { id, timestamp, signature };
  }
  return undefined;
}

export type Verification =
  | { ok: true; id: string; timestampSec: number; payload: unknown }
  /** unsigned: headers missing; stale: outside the tolerance; forged: no secret matches; not_json: signed but not JSON. */
  | { ok: false; reason: 'unsigned' | 'stale' | 'forged' | 'not_json' };

/**
 * Checks `body` (the raw bytes, before any parsing) against each secret. `nowMs` is the wall clock: the
 * library checks the tolerance against it too.
 */
export function verifyDelivery(
  body: Buffer,
  headers: HeaderBag,
  secrets: readonly string[],
  nowMs: number = Date.now(),
): Verification {
  const h = signatureHeaders(headers);
  if (!h) return { ok: false, reason: 'unsigned' };
  const timestampSec = Number(h.timestamp);
  if (!/^\d{1,12}$/.test(h.timestamp) || Math.abs(nowMs / 1000 - timestampSec) > TOLERANCE_SECONDS)
    return { ok: false, reason: 'stale' };
  const unbranded = {
    'webhook-id': h.id,
    'webhook-timestamp': h.timestamp,
    'webhook-signature': h.signature,
  };
  for (const secret of secrets) {
    let wh: Webhook;
    try {
      wh = new Webhook(secret);
    } catch {
      continue; // checked where secrets enter the app; one bad value must not hide the others
    }
    try {
      return { ok: true, id: h.id, timestampSec, payload: wh.verify(body, unbranded) };
    } catch (err) {
      if (err instanceof WebhookVerificationError) continue;
      // The signature matched (the library parses only then): the body is not JSON.
      return { ok: false, reason: 'not_json' };
    }
  }
  return { ok: false, reason: 'forged' };
}
