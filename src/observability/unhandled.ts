/**
 * A rejected promise nobody awaited is a bug, but it must not take the process down with it (Node's
 * default since v15): log it, count it (mergequeue_unhandled_rejections_total) and keep serving.
 */
import type { Logger } from './log.ts';
import type { Metrics } from './metrics.ts';

/** Installs the process-wide handler; returns a function that removes it. */
export function trackUnhandledRejections(
  logger: Logger,
  metrics: Pick<Metrics, 'unhandledRejections'>,
): () => void {
  const onRejection = (reason: unknown) => {
    metrics.unhandledRejections.inc();
    logger.error(
      { err: reason instanceof Error ? reason : new Error(String(reason)) },
      'unhandled promise rejection',
    );
  };
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('unhandledRejection', onRejection);
  };
}
