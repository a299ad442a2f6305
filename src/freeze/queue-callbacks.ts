/**
 * The freezer's changeQueue and readQueue over the queue: changes go through the application's audited
 * change flow (`changeState` below, services/queue.ts's changeQueueAs handed in by workers/freezer.ts), so
 * each is audited under the window's creator with the window's reason, like a typed command, by the
 * application layer and not by freeze/; reads say who last changed the queue's state and when, from that
 * audit, when it matches.
 */

import { formatQueueRef, type QueueRef } from '../core/target.ts';
import { type ChangeResult, readQueue as readQueueState } from '../queue/operations.ts';
import type { Store } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { type SettableQueueState, stateAfterChange } from '../trunk/types.ts';
import {
  type ChangeQueue,
  FREEZE_REASON_PREFIX,
  type PersonChanges,
  type QueueReading,
  type ReadQueue,
} from './types.ts';

/** Who changes the queue for a window: its creator, in its workspace, with the workspace's Trunk client. */
export interface WindowActor {
  workspaceId: string;
  userId: string;
  trunk: TrunkApi;
}

export interface QueueCallbackDeps {
  /** The audit, read only: who last changed a queue's state. */
  audit: Pick<Store, 'listAudit'>;
  /**
   * The queue's audited change flow: changes the queue as `as` and writes its audit row (services/queue.ts
   * `changeQueueAs`, handed in by the composition root).
   */
  changeState: (
    as: WindowActor,
    target: QueueRef,
    desired: SettableQueueState,
    reason: string,
  ) => Promise<ChangeResult>;
  /** The workspace's Trunk client; undefined when Trunk is not connected. */
  trunkFor(workspaceId: string): Promise<TrunkApi | undefined> | TrunkApi | undefined;
  /**
   * A failed change or read in one sentence for the channel. The words (what to type in Slack) are the
   * Slack side's: `describeTrunkFailure` in src/slack/blocks/errors.ts.
   */
  describeFailure: (err: unknown) => string;
}

const NOT_CONNECTED = 'Trunk is not connected for this workspace (an admin can run `/mergequeue connect`).';

export function queueCallbacks(deps: QueueCallbackDeps): {
  changeQueue: ChangeQueue;
  readQueue: ReadQueue;
  personChanges: PersonChanges;
} {
  const changeQueue: ChangeQueue = async (workspaceId, target, state, reason, window) => {
    const trunk = await deps.trunkFor(workspaceId);
    if (!trunk) return { outcome: 'failed', error: NOT_CONNECTED };
    const r = await deps.changeState({ workspaceId, userId: window.createdBy, trunk }, target, state, reason);
    if (r.outcome === 'ok') return { outcome: 'ok', state: String(r.after.state) };
    if (r.outcome === 'noop')
      return r.before
        ? { outcome: 'noop', state: String(r.before.state), reason: r.reason }
        : { outcome: 'noop', reason: r.reason };
    return { outcome: 'failed', error: deps.describeFailure(r.error) };
  };

  const readQueue: ReadQueue = async (workspaceId, target: QueueRef) => {
    const trunk = await deps.trunkFor(workspaceId);
    if (!trunk) throw new Error(NOT_CONNECTED);
    let queue: Awaited<ReturnType<typeof readQueueState>>;
    try {
      queue = await readQueueState({ trunk }, target);
    } catch (err) {
      throw new Error(deps.describeFailure(err));
    }
    const reading: QueueReading = { state: String(queue.state) };
    const audit = await deps.audit.listAudit(workspaceId, { target: formatQueueRef(target), limit: 20 });
    const last = audit.find((e) => e.outcome === 'ok' && stateAfterChange(e.action) !== undefined);
    if (last && stateAfterChange(last.action) === reading.state.toLowerCase()) {
      reading.changedAt = last.at;
      reading.changedBy = last.userId;
    }
    return reading;
  };

  // From the audit: ok pauses, drains and resumes whose reason is not a freeze window's own.
  const personChanges: PersonChanges = async (workspaceId, target, since) => {
    const audit = await deps.audit.listAudit(workspaceId, { target: formatQueueRef(target), limit: 50 });
    return audit
      .filter(
        (e) =>
          e.outcome === 'ok' &&
          stateAfterChange(e.action) !== undefined &&
          e.at >= since &&
          !String(e.detail['reason'] ?? '').startsWith(FREEZE_REASON_PREFIX),
      )
      .sort((a, b) => b.at - a.at)
      .map((e) => ({ userId: e.userId, at: e.at, state: stateAfterChange(e.action)! }));
  };

  return { changeQueue, readQueue, personChanges };
}
