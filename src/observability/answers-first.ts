/**
 * Answers first: Slack wants every request's answer (its ack) within 3 s, while the work a command does
 * after its ack, the outbox's writes and the workers' Trunk reads can wait a moment. They share one event
 * loop, and on a busy CPU an ack waits behind whatever runs before it (ADR 0007).
 *
 * The HTTP receiver counts the requests it has received and not yet answered (`countUnanswered`; a forged
 * or half-sent one not for long). Work that may wait (`answersFirst()`) is released only while that count
 * is zero, one piece per turn of the event loop, so that requests which arrived meanwhile are read, and
 * answered, between two pieces. No pass and no request's work after its ack waits longer than MAX_DEFER_MS
 * in all, however many pieces it has: under a load that never lets the count reach zero, work still goes on.
 *
 * Only work done after an answer, or in the background, waits here. A request's own work before its
 * answer (a form validated before its ack) goes on at once, or it would wait for itself: the request
 * context says which (`answered`, set when the request is acknowledged, slack/unhandled-interactions.ts).
 * The pieces are cut where work resumes: right after a command's ack (slack/after-ack.ts),
 * for each reader of a cached Trunk read (trunk/read-cache.ts), and before each periodic pass (core).
 * Never inside the Slack or Trunk clients: a request may, before its ack, await a call something else
 * started (auth.test asked at start, a read another request began), and that answer must not wait for
 * the very request that needs it (test/slack/e2e/first-ack.test.ts).
 *
 * The count and the wait itself are core/scheduling-gate.ts's, where the periodic passes (core) wait too.
 */

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { requestPath } from '../core/request-path.ts';
import { type DeferBudget, deferBudget, requestReceived, whenAnswered } from '../core/scheduling-gate.ts';
import { currentRequestContext, type RequestLogContext } from './request-context.ts';

/** Each request's work after its ack shares one wait budget (MAX_DEFER_MS in all, not per wait). */
const budgets = new WeakMap<RequestLogContext, DeferBudget>();

/**
 * Resolves on a later turn of the event loop once no request is waiting for its answer (or after
 * MAX_DEFER_MS at most): the wait of work that comes after an answer. At once inside a request that has
 * not been answered yet.
 */
export function answersFirst(): Promise<void> {
  // A request's own work before its answer never waits here: it would wait for itself.
  const request = currentRequestContext();
  if (!request) return whenAnswered();
  if (!request.answered) return Promise.resolve();
  let budget = budgets.get(request);
  if (!budget) {
    budget = deferBudget();
    budgets.set(request, budget);
  }
  return whenAnswered(budget);
}

/**
 * How long a request whose body has not fully arrived may hold work back. A Slack request's body follows its
 * headers within a millisecond or two (often in a packet of its own, a loop turn later); a stranger's
 * trickled body is let go after this, so it holds nothing back for longer (issue 26).
 */
export const BODY_GRACE_MS = 100;

/** Requests counted on arrival whose bodies are still coming: released from the count past the grace. */
const arriving = new Map<IncomingMessage, { at: number; release: () => void }>();
let sweeper: NodeJS.Timeout | undefined;

function sweepArriving(): void {
  const now = performance.now();
  for (const [req, a] of arriving) {
    if (now - a.at < BODY_GRACE_MS) continue;
    arriving.delete(req);
    a.release();
  }
  if (arriving.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/**
 * Counts the requests to `endpoints` as unanswered from the moment they arrive until their answer is
 * written (`res.end`) or the connection closes. Put it outermost (app.ts): counting from arrival keeps work
 * after other acks from starting between a request's headers and its body (ack p50 vs bare Bolt, median of
 * quick quiet runs: 1.53× counted here, 1.71× counted only behind the signature check). What a stranger can
 * hold is bounded: a forged or stale request is answered (401) at once and leaves the count, and one whose
 * body is not all there within BODY_GRACE_MS leaves it then, whenever (or whether) the rest arrives.
 */
export function countUnanswered(
  receiver: { requestListener: RequestListener },
  endpoints: readonly string[],
): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    if (req.method !== 'POST' || !endpoints.includes(path)) return next(req, res);
    const answered = requestReceived();
    const done = () => {
      arriving.delete(req);
      answered();
    };
    if (!req.complete) {
      arriving.set(req, { at: performance.now(), release: answered });
      req.once('end', () => arriving.delete(req));
      if (!sweeper) {
        // One timer for all arriving requests, not one each: this is on every request's way to its ack.
        sweeper = setInterval(sweepArriving, BODY_GRACE_MS / 2);
        sweeper.unref();
      }
    }
    const end = res.end;
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      done();
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['end'];
    res.once('close', done);
    return next(req, res);
  };
}
