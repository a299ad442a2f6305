/**
 * The one race of work against a deadline, for every wait that must end in time: the lifecycle's shutdown
 * steps and each worker's stop, a store or Slack that must answer within a budget, a post or a read that is
 * waited for only so long. What was not done by then is left to its lease, abandoned or answered without
 * it, and the caller says which. No other module races a timer by hand
 * (test/production/dependency-rules.test.ts).
 */
export type Settled<T = unknown> =
  | { kind: 'ok'; value: T }
  | { kind: 'timeout' }
  | { kind: 'error'; error: unknown };

/**
 * Waits for `work` until `deadline` (epoch ms); never throws. Work abandoned at the deadline may still fail
 * later: that never becomes an unhandled rejection.
 */
export async function settleBy<T>(work: Promise<T>, deadline: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([
      work.then(
        (value): Settled<T> => ({ kind: 'ok', value }),
        (error: unknown): Settled<T> => ({ kind: 'error', error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `work`'s answer (or its error) if it comes within `ms`; else throws `late()`, leaving the work to itself. */
export async function answerWithin<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  const settled = await settleBy(work, Date.now() + ms);
  if (settled.kind === 'ok') return settled.value;
  throw settled.kind === 'error' ? settled.error : late();
}
