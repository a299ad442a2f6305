/**
 * A Trunk error as plain JSON and back, for work shared through the store: one replica's failed digest
 * collection is told to every digest that was waiting for it, with the same words and hint as its own.
 * Only the error's facts are kept (kind, operation, status, Trunk's detail); never a token or a cause.
 */
import type { TrunkOperation } from './api.ts';
import {
  TrunkAuthError,
  type TrunkError,
  type TrunkErrorInit,
  type TrunkErrorKind,
  TrunkInvalidRequestError,
  TrunkInvalidResponseError,
  TrunkNotFoundError,
  TrunkRateLimitedError,
  TrunkUnavailableError,
} from './errors.ts';
import type { TrunkV2Operation } from './v2/operations.ts';

export interface TrunkErrorRecord {
  kind: TrunkErrorKind;
  message: string;
  operation: TrunkOperation | TrunkV2Operation;
  code?: string;
  status?: number;
  detail?: string;
  subject?: string;
  field?: string;
  rule?: string;
  retryAfterMs?: number;
  timedOut?: boolean;
}

export function trunkErrorRecord(err: TrunkError): TrunkErrorRecord {
  const rec: TrunkErrorRecord = { kind: err.kind, message: err.message, operation: err.operation };
  if (err.code !== undefined) rec.code = err.code;
  if (err.status !== undefined) rec.status = err.status;
  if (err.detail !== undefined) rec.detail = err.detail;
  if (err.subject !== undefined) rec.subject = err.subject;
  if (err instanceof TrunkInvalidRequestError || err instanceof TrunkInvalidResponseError) {
    if (err.field !== undefined) rec.field = err.field;
  }
  if (err instanceof TrunkInvalidRequestError && err.rule !== undefined) rec.rule = err.rule;
  if (err instanceof TrunkRateLimitedError && err.retryAfterMs !== undefined)
    rec.retryAfterMs = err.retryAfterMs;
  if (err instanceof TrunkUnavailableError) rec.timedOut = err.timedOut;
  return rec;
}

export function trunkErrorFromRecord(rec: TrunkErrorRecord): TrunkError {
  const init: TrunkErrorInit = { operation: rec.operation };
  if (rec.status !== undefined) init.status = rec.status;
  if (rec.code !== undefined) init.code = rec.code;
  if (rec.detail !== undefined) init.detail = rec.detail;
  if (rec.subject !== undefined) init.subject = rec.subject;
  const extra = {
    ...(rec.field !== undefined ? { field: rec.field } : {}),
    ...(rec.rule !== undefined ? { rule: rec.rule } : {}),
  };
  switch (rec.kind) {
    case 'auth':
      return new TrunkAuthError(rec.message, init);
    case 'not_found':
      return new TrunkNotFoundError(rec.message, init);
    case 'invalid_request':
      return new TrunkInvalidRequestError(rec.message, { ...init, ...extra });
    case 'rate_limited':
      return new TrunkRateLimitedError(rec.message, {
        ...init,
        ...(rec.retryAfterMs !== undefined ? { retryAfterMs: rec.retryAfterMs } : {}),
      });
    case 'invalid_response':
      return new TrunkInvalidResponseError(rec.message, { ...init, ...extra });
    default:
      return new TrunkUnavailableError(rec.message, { ...init, timedOut: rec.timedOut === true });
  }
}
