/**
 * The gate behind answers first (observability/answers-first.ts explains it): a count of the requests
 * received and not yet answered, and a wait that releases one waiter per turn of the event loop while
 * that count is zero, or once it has waited MAX_DEFER_MS. The periodic passes wait here before each pass.
 *
 * One event loop, one count: the count is the process's, whatever the number of apps in it.
 */

/** How long a piece of work waits at most for the answers to leave. */
export const MAX_DEFER_MS = 1_000;

let unanswered = 0;
const waiting: Array<{ since: number; go: () => void }> = [];
let turnScheduled = false;
let timer: NodeJS.Timeout | undefined;

/** Requests received and not yet answered (tests, metrics). */
export function unansweredRequests(): number {
  return unanswered;
}

/**
 * A request came in; call the returned function once its answer is written (calling it again does
 * nothing).
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

/** Resolves on a later turn of the event loop once no request awaits its answer (or after MAX_DEFER_MS). */
export function whenAnswered(): Promise<void> {
  return new Promise((go) => {
    waiting.push({ since: performance.now(), go });
    scheduleTurn();
  });
}

function scheduleTurn(): void {
  if (turnScheduled || waiting.length === 0) return;
  turnScheduled = true;
  setImmediate(turn);
}

/** Releases one waiter when the answers are out (or the oldest has waited long enough). */
function turn(): void {
  turnScheduled = false;
  const oldest = waiting[0];
  if (!oldest) return;
  const waited = performance.now() - oldest.since;
  if (unanswered === 0 || waited >= MAX_DEFER_MS) {
    waiting.shift();
    oldest.go();
    scheduleTurn();
    return;
  }
  // Requests are being answered: the last answer schedules the next turn; the oldest waiter's bound too.
  clearTimeout(timer);
  timer = setTimeout(scheduleTurn, Math.max(1, MAX_DEFER_MS - waited));
  timer.unref();
}
