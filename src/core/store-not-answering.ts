/**
 * The database did not answer in time: a PostgreSQL connect, query, statement or idle-in-transaction
 * timeout, or SQLite still locked by another process after its busy timeout. Both engines throw this one
 * error so the person is told "the store is not answering" instead of waiting on a hung request. It lives in
 * core/ because two parts share it: the store throws it (store/not-answering.ts maps the engines' errors to
 * it) and the renderers (slack/blocks/errors.ts) put it in words, without importing the store.
 */
export class StoreNotAnsweringError extends Error {
  constructor(what: string, options?: { cause?: unknown }) {
    super(`The store is not answering (${what})`, options);
    this.name = 'StoreNotAnsweringError';
  }
}

export function isStoreNotAnswering(err: unknown): err is StoreNotAnsweringError {
  return err instanceof StoreNotAnsweringError;
}
