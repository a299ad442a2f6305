/**
 * The one race of work against a deadline, for every stop that must return in time (the lifecycle's
 * shutdown steps, each worker's stop): what was not done by then is left to its lease or abandoned, and
 * the caller says which.
 */
export type Settled = { kind: 'ok' } | { kind: 'timeout' } | { kind: 'error'; error: unknown };

/** Waits for `work` until `deadline` (epoch ms); never throws. */
export async function settleBy(work: Promise<unknown>, deadline: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([
      work.then(
        (): Settled => ({ kind: 'ok' }),
        (error: unknown): Settled => ({ kind: 'error', error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
