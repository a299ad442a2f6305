/**
 * The gate behind answers first (observability/answers-first.ts explains it): a count of the requests
 * received and not yet answered, and a wait that releases one waiter per turn of the event loop while
 * that count is zero, or once it has waited its bound. The periodic passes wait here before each pass.
 *
 * A wait's bound is MAX_DEFER_MS, or what is left of the budget it belongs to: a periodic pass
 * (`afterAnswers`) or a request's work after its ack shares one budget of MAX_DEFER_MS over all its waits,
 * so a pass of 30 reads is held back a second in all, not a second per read, however busy the app is.
 *
 * One event loop, one count: the count is the process's, whatever the number of apps in it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** How long a piece of work (a pass, a request's work after its ack) waits in all for the answers to leave. */
export const MAX_DEFER_MS = 1_000;

/** What is left of a pass's (or a request's) time to wait for the answers, in ms. */
export interface DeferBudget {
  leftMs: number;
}

export function deferBudget(ms = MAX_DEFER_MS): DeferBudget {
  return { leftMs: ms };
}

let unanswered = 0;
const waiting: Array<{ since: number; limitMs: number; go: () => void }> = [];
let turnScheduled = false;
let timer: NodeJS.Timeout | undefined;
/** The budget of the pass whose work is running (periodic passes). */
const passBudget = new AsyncLocalStorage<DeferBudget>();

/** Requests received and not yet answered (tests, metrics). */
export function unansweredRequests(): number {
  return unanswered;
}

/**
 * A request came in; call the returned function once its answer is written (calling it again does
 * nothing). The HTTP side (observability/answers-first.ts) lets go of a request whose body is not all
 * there within a moment, and a forged one is answered at once: a stranger holds nothing back for long.
 */
export function requestReceived(): () => void {
  unanswered++;
  let answered = false;
  return () => {
    if (answered) return;
    answered = true;
    unanswered--;
    if (unanswered === 0) scheduleTurn();
  };
}

/**
 * Resolves on a later turn of the event loop once no request awaits its answer, or once it has waited
 * what is left of `budget` (by default the running pass's, else MAX_DEFER_MS); the wait is taken from
 * the budget.
 */
export function whenAnswered(budget: DeferBudget | undefined = passBudget.getStore()): Promise<void> {
  return new Promise((go) => {
    const since = performance.now();
    const limitMs = budget ? Math.max(0, budget.leftMs) : MAX_DEFER_MS;
    const release = budget
      ? () => {
          budget.leftMs -= performance.now() - since;
          go();
        }
      : go;
    waiting.push({ since, limitMs, go: release });
    scheduleTurn();
  });
}

/**
 * Runs `pass` once the requests in hand are answered, with one budget of MAX_DEFER_MS for that wait and
 * every wait inside the pass (the read cache's, for each reader).
 */
export function afterAnswers<T>(pass: () => Promise<T>): Promise<T> {
  const budget = deferBudget();
  return passBudget.run(budget, () => whenAnswered(budget).then(pass));
}

function scheduleTurn(): void {
  if (turnScheduled || waiting.length === 0) return;
  turnScheduled = true;
  setImmediate(turn);
}

/** Releases one waiter when the answers are out, or one whose bound is reached (oldest first). */
function turn(): void {
  turnScheduled = false;
  if (waiting.length === 0) return;
  const now = performance.now();
  const i = unanswered === 0 ? 0 : waiting.findIndex((w) => now - w.since >= w.limitMs);
  if (i >= 0) {
    const [w] = waiting.splice(i, 1);
    w!.go();
    scheduleTurn();
    return;
  }
  // Requests are being answered: the last answer schedules the next turn; the nearest bound too.
  let nearest = Number.POSITIVE_INFINITY;
  for (const w of waiting) nearest = Math.min(nearest, w.limitMs - (now - w.since));
  clearTimeout(timer);
  timer = setTimeout(scheduleTurn, Math.max(1, nearest));
  timer.unref();
}
