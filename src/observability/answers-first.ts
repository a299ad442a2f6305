/**
 * Answers first: Slack wants every request's answer (its ack) within 3 s, while the work a command does
 * after its ack, the outbox's writes and the workers' Trunk reads can wait a moment. They share one event
 * loop, and on a busy CPU an ack waits behind whatever runs before it (ADR 0007).
 *
 * The HTTP receiver counts the signed requests it has read and not yet answered (`countUnanswered`). Work
 * that may wait (`answersFirst()`) is released only while that count is zero, one piece per turn of the
 * event loop, so that requests which arrived meanwhile are read, and answered, between two pieces. No
 * pass and no request's work after its ack waits longer than MAX_DEFER_MS in all, however many pieces it
 * has: under a load that never lets the count reach zero, work still goes on.
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
 * Counts the requests to `endpoints` as unanswered from the moment they reach it until their answer is
 * written (`res.end`) or the connection closes. Put it behind the body read and the signature check
 * (app.ts): only a request that can be answered is waited for; one whose body has not arrived, or whose
 * signature failed, must hold nothing back (a stranger could otherwise hold the gate shut).
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
    const end = res.end;
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      answered();
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['end'];
    res.once('close', answered);
    return next(req, res);
  };
}
