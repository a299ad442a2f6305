/**
 * One error taxonomy for every Trunk failure. Each error carries its kind and facts (operation, status,
 * what it was about) and a sentence saying what happened (`userMessage`), never the token. What a person
 * should do about it depends on where they read it, so those words live with the renderers (for Slack,
 * `trunkHint` in src/slack/blocks/errors.ts).
 */
import type { TrunkOperation } from './api.ts';
import type { TrunkV2Operation } from './v2/operations.ts';

export type TrunkErrorKind =
  | 'auth'
  | 'not_found'
  | 'invalid_request'
  | 'rate_limited'
  | 'unavailable'
  | 'invalid_response';

export interface TrunkErrorInit {
  operation: TrunkOperation | TrunkV2Operation;
  /** v2's stable error code (`error.code` of the JSON envelope), when the answer carried one. */
  code?: string;
  status?: number;
  /** Trunk's plain-text body or our own description; safe to show (no secrets). */
  detail?: string;
  /** What the request was about, in words ("the merge queue for acme/web:main"), for messages. */
  subject?: string;
  cause?: unknown;
}

export abstract class TrunkError extends Error {
  abstract readonly kind: TrunkErrorKind;
  /** Whether the same call may succeed if tried again later. */
  abstract readonly retryable: boolean;
  readonly operation: TrunkOperation | TrunkV2Operation;
  readonly code: string | undefined;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly subject: string | undefined;

  constructor(message: string, init: TrunkErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.operation = init.operation;
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail;
    this.subject = init.subject;
  }

  /** One sentence for a person: what happened. */
  abstract get userMessage(): string;
}

/** 401/403: the token is missing, wrong, expired or lacks access. */
export class TrunkAuthError extends TrunkError {
  readonly kind = 'auth' as const;
  readonly retryable = false;
  get userMessage() {
    // v2 names the permission a key lacks in its message ("… requires the Quarantine tests permission").
    if (this.code === 'INSUFFICIENT_PERMISSIONS')
      return `Trunk's v2 API key for this workspace lacks a permission${this.detail ? `: ${this.detail}` : '.'}`;
    return this.operation.startsWith('v2.')
      ? "Trunk rejected this workspace's v2 API key."
      : 'Trunk rejected the API token for this workspace.';
  }
}

/** 404: unknown queue, repository or PR. */
export class TrunkNotFoundError extends TrunkError {
  readonly kind = 'not_found' as const;
  readonly retryable = false;
  get userMessage() {
    // Trunk's text usually restates "… not found"; add it only when it says something else.
    const extra = this.detail && !/not found/i.test(this.detail) ? ` (${this.detail})` : '';
    if (this.subject) return `Trunk found no ${this.subject}${extra}.`;
    return this.detail ? `Trunk could not find that: ${this.detail}` : 'Trunk could not find that.';
  }
}

/** 400 from Trunk, or a request we refused to send because it breaks the contract. */
export class TrunkInvalidRequestError extends TrunkError {
  readonly kind = 'invalid_request' as const;
  readonly retryable = false;
  /** The request field at fault, when known (always set for local validation). */
  readonly field: string | undefined;
  /** The rule it broke, in words. */
  readonly rule: string | undefined;
  /** True when caught before sending: nothing reached the network. */
  readonly local: boolean;
  constructor(message: string, init: TrunkErrorInit & { field?: string; rule?: string; local?: boolean }) {
    super(message, init);
    this.field = init.field;
    this.rule = init.rule;
    this.local = init.local ?? false;
  }
  get userMessage() {
    if (this.field) return `\`${this.field}\` ${this.rule ?? 'is not valid'}.`;
    return this.detail
      ? `Trunk refused the request: ${this.detail}`
      : 'Trunk refused the request as invalid.';
  }
}

/** 429 after retries ran out. */
export class TrunkRateLimitedError extends TrunkError {
  readonly kind = 'rate_limited' as const;
  readonly retryable = true;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, init: TrunkErrorInit & { retryAfterMs?: number }) {
    super(message, init);
    this.retryAfterMs = init.retryAfterMs;
  }
  get userMessage() {
    return 'Trunk is rate limiting requests right now.';
  }
}

/** 5xx, network failure or timeout, after retries ran out. */
export class TrunkUnavailableError extends TrunkError {
  readonly kind = 'unavailable' as const;
  readonly retryable = true;
  readonly timedOut: boolean;
  constructor(message: string, init: TrunkErrorInit & { timedOut?: boolean }) {
    super(message, init);
    this.timedOut = init.timedOut ?? false;
  }
  get userMessage() {
    return this.timedOut ? 'Trunk did not answer in time.' : 'Trunk is not reachable right now.';
  }
}

/** A response that breaks the contract (a required field missing or of the wrong type, or not JSON). */
export class TrunkInvalidResponseError extends TrunkError {
  readonly kind = 'invalid_response' as const;
  readonly retryable = false;
  /** Path of the offending field, e.g. `enqueuedPullRequests[3].prNumber`. */
  readonly field: string | undefined;
  constructor(message: string, init: TrunkErrorInit & { field?: string }) {
    super(message, init);
    this.field = init.field;
  }
  get userMessage() {
    return this.field
      ? `Trunk sent an answer this app does not understand (field \`${this.field}\`).`
      : 'Trunk sent an answer this app does not understand.';
  }
}

export function isTrunkError(err: unknown): err is TrunkError {
  return err instanceof TrunkError;
}
