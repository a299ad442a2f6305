/**
 * The fake Trunk's webhooks, delivered as Svix delivers Trunk's: a `whsec_` secret per subscribed endpoint,
 * a `msg_…` id per message (the same on every retry), `svix-id` / `svix-timestamp` / `svix-signature` headers
 * signed with the Standard Webhooks scheme (the `standardwebhooks` package), retries after a non-2xx answer
 * or a network error (short, test-friendly delays), and on request an occasional duplicate or an
 * out-of-order delivery. `setOutage(true)` loses every message until turned off (the endpoint never hears).
 *
 * Messages come from `deliver(type, payload)`, or from the fake's own PR activity (activity.ts) through
 * `fromActivity`.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { ActivityEvent } from './activity.ts';
import { createRng, type Rng } from './rng.ts';

/** A fresh signing secret, shaped as Svix shows it on an endpoint's page. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** A fresh Svix message id. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

export type HeaderStyle = 'svix' | 'webhook';

/**
 * The headers Svix sends with `body` (signed with `secret`, message `id`, at `timestampSec`). Tests use it
 * to sign their own deliveries; `style: 'webhook'` gives the white-labelled `webhook-*` names.
 */
export function signDelivery(
  secret: string,
  id: string,
  timestampSec: number,
  body: string,
  style: HeaderStyle = 'svix',
): Record<string, string> {
  const signature = new Webhook(secret).sign(id, new Date(timestampSec * 1000), body);
  return {
    [`${style}-id`]: id,
    [`${style}-timestamp`]: String(timestampSec),
    [`${style}-signature`]: signature,
  };
}

export interface Subscription {
  url: string;
  secret: string;
  /** Event types sent (exact names, or a family prefix ending in `.`); default every type. */
  types?: readonly string[];
  style: HeaderStyle;
}

export interface SentAttempt {
  id: string;
  type: string;
  url: string;
  attempt: number;
  /** HTTP status, or 0 for a network error. */
  status: number;
}

export interface WebhookChaos {
  /** Chance a message is delivered a second time (same id) after it succeeded; default 0. */
  duplicateRate?: number;
  /** Chance a message is held back and sent after the next one; default 0. */
  reorderRate?: number;
  seed?: number;
}

/** Svix's schedule is 5 s, 5 min, 30 min…; the fake's is short so tests see retries happen. */
export const RETRY_DELAYS_MS = [50, 200, 500, 1_000];

export class FakeWebhooks {
  readonly subscriptions: Subscription[] = [];
  /** Every attempt, oldest first. */
  readonly attempts: SentAttempt[] = [];
  /** Messages lost to an outage. */
  readonly lost: Array<{ id: string; type: string }> = [];
  #outage = false;
  #chaos: Required<WebhookChaos> = { duplicateRate: 0, reorderRate: 0, seed: 1 };
  #rng: Rng = createRng(1);
  #held: (() => Promise<unknown>) | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Sends `types` (default all) to `url`, signed with `secret`. */
  subscribe(
    url: string,
    secret: string,
    opts: { types?: readonly string[]; style?: HeaderStyle } = {},
  ): Subscription {
    const s: Subscription = {
      url,
      secret,
      style: opts.style ?? 'svix',
      ...(opts.types ? { types: opts.types } : {}),
    };
    this.subscriptions.push(s);
    return s;
  }

  unsubscribeAll(): void {
    this.subscriptions.length = 0;
  }

  /** While on, every message is lost (never delivered, never retried). */
  setOutage(on: boolean): void {
    this.#outage = on;
  }

  setChaos(chaos: WebhookChaos): void {
    this.#chaos = { duplicateRate: 0, reorderRate: 0, seed: 1, ...chaos };
    this.#rng = createRng(this.#chaos.seed);
  }

  /**
   * One message of `type` to every subscription that takes it; resolves once it is handed over (not
   * delivered: see settled()). The payload gets `type` and, unless it has one, `timestamp`.
   */
  deliver(type: string, payload: Record<string, unknown>, opts: { id?: string } = {}): string {
    const id = opts.id ?? newMessageId();
    const body = JSON.stringify({ type, timestamp: new Date(this.#now()).toISOString(), ...payload });
    if (this.#outage) {
      this.lost.push({ id, type });
      return id;
    }
    const send = (): Promise<unknown> => {
      const sending = this.subscriptions
        .filter((s) => takes(s, type))
        .map((s) => this.#send(s, id, type, body, 1));
      for (const p of sending) this.#track(p);
      return Promise.allSettled(sending);
    };
    const held = this.#held;
    this.#held = undefined;
    if (!held && this.#rng() < this.#chaos.reorderRate) this.#held = send;
    else {
      const sent = send();
      // The message held back goes once this later one has been delivered: out of order, for sure.
      if (held) this.#track(sent.then(() => held()).then(() => undefined));
    }
    return id;
  }

  /** Sends a message held back for reordering now (a test's last delivery). */
  flush(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held) this.#track(held().then(() => undefined));
  }

  /** The activity's PR transitions as Trunk's merge-queue webhooks. */
  fromActivity(
    events: readonly ActivityEvent[],
    authorOf: (queue: string, pr: number) => string | undefined,
  ): void {
    for (const e of events) {
      if (e.prNumber === undefined) continue;
      const action = e.kind === 'cancelled' ? 'canceled' : e.kind;
      if (!['submitted', 'testing', 'merged', 'failed', 'canceled'].includes(action)) continue;
      const [repo = '', branch = 'main'] = e.queue.split(':');
      const [owner = '', name = ''] = repo.split('/');
      this.deliver(`pull_request.${action}`, {
        action,
        status: action,
        author: authorOf(e.queue, e.prNumber) ?? 'unknown',
        pr_number: e.prNumber,
        repository: { host: 'github.com', owner, name },
        target_branch: branch,
        http_details_url: `https://app.trunk.io/gh/${owner}/${name}/merge/${branch}/${e.prNumber}`,
        timestamp: e.at,
        ...(action === 'failed' ? { failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' } : {}),
        ...(action === 'canceled' ? { cancellation_reason: 'USER_REQUESTED' } : {}),
      });
    }
  }

  /** Resolves when every attempt started so far (and its retries) is over. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  async #send(s: Subscription, id: string, type: string, body: string, attempt: number): Promise<void> {
    const timestampSec = Math.floor(Date.now() / 1000);
    let status = 0;
    try {
      const res = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signDelivery(s.secret, id, timestampSec, body, s.style),
        },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch {
      status = 0;
    }
    this.attempts.push({ id, type, url: s.url, attempt, status });
    const ok = status >= 200 && status < 300;
    if (ok) {
      if (attempt === 1 && this.#rng() < this.#chaos.duplicateRate)
        await this.#send(s, id, type, body, attempt + 1);
      return;
    }
    const delay = RETRY_DELAYS_MS[attempt - 1];
    if (delay === undefined) return;
    await new Promise((r) => setTimeout(r, delay));
    await this.#send(s, id, type, body, attempt + 1);
  }
}

function takes(s: Subscription, type: string): boolean {
  return !s.types || s.types.some((t) => (t.endsWith('.') ? type.startsWith(t) : t === type));
}
