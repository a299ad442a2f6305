/**
 * The watch poll: the watcher on this store, and its pass. The loop that ticks it (start, stop by a
 * deadline, then the leases released so another replica polls those queues at once) is a worker,
 * src/workers/queue-watcher.ts.
 */
import { randomBytes } from 'node:crypto';
import type { TargetSpec } from '../core/target.ts';
import type { Store } from '../store/types.ts';
import { listFollowedQueues } from './followed.ts';
import type { DeliverBatch } from './types.ts';
import { Watcher, type WatcherOptions } from './watcher.ts';

export interface WatchPollDeps
  extends Omit<WatcherOptions, 'db' | 'leases' | 'followed' | 'listAudit' | 'deliver' | 'deliverBatch'>,
    Partial<Pick<WatcherOptions, 'followed'>> {
  store: Pick<Store, 'db' | 'leases' | 'listAudit'>;
  /** The Slack side (src/slack/queue-events/deliver.ts): every claimed event of one queue in one call. */
  deliverBatch: DeliverBatch;
  /** DEFAULT_REPO: counts as each workspace's default queue. */
  defaultTarget?: TargetSpec;
}

export interface WatchPoll {
  readonly watcher: Watcher;
  /** One pass now, and the deliveries it started (tests drive the clock and call this). */
  tick(): Promise<void>;
}

export function createWatchPoll(deps: WatchPollDeps): WatchPoll {
  const now = deps.clock ?? Date.now;
  const watcher = new Watcher({
    ...deps,
    db: deps.store.db,
    leases: deps.store.leases,
    // The watcher's per-event callback is never used once deliverBatch is given; it answers the same way.
    deliver: async (event, destinations) => (await deps.deliverBatch([{ event, destinations }]))[0] ?? [],
    // Leases are fenced by owner: a suffix keeps two replicas apart even when both report pid 1 (containers).
    replicaId: `${deps.replicaId}-${randomBytes(3).toString('hex')}`,
    followed:
      deps.followed ??
      ((t) =>
        listFollowedQueues(deps.store, t, deps.defaultTarget ? { defaultTarget: deps.defaultTarget } : {})),
    listAudit: (ws, opts) => deps.store.listAudit(ws, opts),
    clock: now,
  });
  return {
    watcher,
    async tick() {
      await watcher.tick();
      await watcher.settled();
    },
  };
}
