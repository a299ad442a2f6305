/**
 * The Slack request being handled, carried through async calls (AsyncLocalStorage) so every log line
 * written while handling it carries its request id, without passing a logger through every layer.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestLogContext {
  reqId: string;
  /** Date.now() when the app took the request; answers due within Slack's 3 s count from here. */
  receivedAt?: number;
  /** Set once the request is acknowledged: what it does from then on may wait (answers-first.ts). */
  answered?: boolean;
}

const storage = new AsyncLocalStorage<RequestLogContext>();

/** A short, unique-enough id for correlating one request's log lines. */
export function newRequestId(): string {
  return randomUUID().replaceAll('-', '').slice(0, 16);
}

export function runWithRequestContext<T>(ctx: RequestLogContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentRequestContext(): RequestLogContext | undefined {
  return storage.getStore();
}
