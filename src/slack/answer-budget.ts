/**
 * Work that must finish before an answer Slack waits for (a view submission's ack): budgeted from the
 * moment the request arrived, not from when the listener started, with margin for what still follows.
 * Work that overruns is abandoned, not awaited: its result is ignored, so nothing it would have led to
 * (storing a token) happens after the answer went out.
 */
import { answerWithin } from '../core/deadline.ts';
import { currentRequestContext } from '../observability/request-context.ts';

/** Slack gives 3 s; half a second of margin for the network and the answer itself. */
export const ANSWER_BUDGET_MS = 2_500;

export class OutOfTime extends Error {
  constructor() {
    super('the answer budget ran out');
    this.name = 'OutOfTime';
  }
}

export interface AnswerBudget {
  /** Milliseconds left until `reserveMs` before the deadline (never negative). */
  left(reserveMs?: number): number;
  /** `work`'s result, or OutOfTime once the budget (minus `reserveMs`) is spent. */
  within<T>(work: Promise<T>, reserveMs?: number): Promise<T>;
}

export function answerBudget(
  now: () => number = Date.now,
  budgetMs: number = ANSWER_BUDGET_MS,
): AnswerBudget {
  const deadline = (currentRequestContext()?.receivedAt ?? now()) + budgetMs;
  const left = (reserveMs = 0) => Math.max(0, deadline - reserveMs - now());
  return {
    left,
    // The abandoned work may still fail later: settleBy (core/deadline.ts) keeps that from going unhandled.
    within: <T>(work: Promise<T>, reserveMs = 0) =>
      answerWithin(work, left(reserveMs), () => new OutOfTime()),
  };
}
