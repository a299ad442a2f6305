/** How each engine's timeouts become the one StoreNotAnsweringError (core/store-not-answering.ts). */
import { StoreNotAnsweringError } from '../core/store-not-answering.ts';

/** PostgreSQL SQLSTATEs: query_canceled (statement_timeout), idle_in_transaction_session_timeout. */
const PG_TIMEOUT_CODES = new Set(['57014', '25P03']);
/** pg's own client-side messages for query_timeout and connectionTimeoutMillis. */
const PG_TIMEOUT_MESSAGE =
  /Query read timeout|timeout exceeded when trying to connect|timeout expired|connection timeout|Connection terminated unexpectedly/i;

/** The engine's timeout errors as StoreNotAnsweringError; anything else unchanged. */
export function asNotAnswering(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof StoreNotAnsweringError) return err;
  const e = err as Error & { code?: unknown; errcode?: unknown };
  if (typeof e.code === 'string' && PG_TIMEOUT_CODES.has(e.code))
    return new StoreNotAnsweringError('statement timeout', { cause: err });
  // SQLITE_BUSY (5) and SQLITE_LOCKED (6), also as extended codes (low byte).
  if (typeof e.errcode === 'number' && ((e.errcode & 0xff) === 5 || (e.errcode & 0xff) === 6))
    return new StoreNotAnsweringError('database is locked', { cause: err });
  if (PG_TIMEOUT_MESSAGE.test(e.message)) return new StoreNotAnsweringError('timeout', { cause: err });
  return err;
}

/** Runs `fn`, mapping the engine's timeout errors (see asNotAnswering). */
export async function mappingTimeouts<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asNotAnswering(err);
  }
}
