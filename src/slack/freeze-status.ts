/** The freeze window a status message shows: read beside the queue, never in the way of it. */
import type { QueueRef } from '../core/target.ts';
import { nextOrActiveWindow } from '../freeze/index.ts';
import type { StatusFreeze } from './blocks/status.ts';
import type { SlackDeps } from './deps.ts';

/** The queue's open or next window; undefined when it has none or the store did not answer (logged). */
export async function statusFreeze(
  deps: Pick<SlackDeps, 'store' | 'logger' | 'now'>,
  workspaceId: string,
  ref: QueueRef,
): Promise<StatusFreeze | undefined> {
  try {
    return await nextOrActiveWindow(deps.store.db, workspaceId, ref, deps.now());
  } catch (err) {
    // The status itself still matters more than the window line.
    deps.logger.warn({ err }, 'could not read freeze windows for a status message');
    return undefined;
  }
}
