/**
 * The queue history's background work: pruning what is older than HISTORY_DAYS (hourly and at start, on
 * every replica: indexed DELETEs per queue, harmless when replicas run them together), and reading Trunk's
 * record back for each followed queue whose read-back is not finished (a queue just followed, or one whose
 * read-back was interrupted), where SCHEDULER_ENABLED. The read-back is claimed per queue
 * (history/readback.ts), so replicas never read one queue twice; it waits behind people in the budget.
 */
import { PeriodicPasses } from '../core/periodic-passes.ts';
import { readBack, unreadQueues } from '../history/readback.ts';
import { pruneHistory } from '../history/repository.ts';
import type { Logger } from '../observability/log.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import { createV2Ids } from '../trunk/v2/ids.ts';
import type { FollowedQueue } from '../watch/followed.ts';
import { queueKeyOf } from '../watch/types.ts';

const DAY_MS = 86_400_000;
export const HISTORY_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
export const HISTORY_READBACK_INTERVAL_MS = 60 * 1000;

export interface HistoryWorkersOptions {
  store: Store;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor' | 'v2For'>;
  historyDays: number;
  /** The followed queues now (watch/followed.ts). */
  followed: (now: number) => Promise<FollowedQueue[]>;
  logger: Pick<Logger, 'info' | 'warn'>;
  now: () => number;
  replicaId: string;
  pruneEveryMs?: number;
  readBackEveryMs?: number;
}

export interface HistoryWorkers {
  pruning: { start(): Promise<void>; stop(deadline: number): Promise<boolean> };
  readback: { start(): Promise<void>; stop(deadline: number): Promise<boolean> };
}

export function createHistoryWorkers(o: HistoryWorkersOptions): HistoryWorkers {
  const pruning = new PeriodicPasses({
    every: o.pruneEveryMs ?? HISTORY_PRUNE_INTERVAL_MS,
    pass: async () => {
      const deleted = await pruneHistory(o.store.db, o.now() - o.historyDays * DAY_MS);
      if (deleted > 0) o.logger.info({ deleted, historyDays: o.historyDays }, 'old queue history pruned');
    },
    onError: (err) => o.logger.warn({ err }, 'queue history pruning failed'),
  });
  const readback = new PeriodicPasses({
    every: o.readBackEveryMs ?? HISTORY_READBACK_INTERVAL_MS,
    pass: async () => {
      const followed = await o.followed(o.now());
      const byKey = new Map(followed.map((q) => [`${q.workspaceId}|${queueKeyOf(q.target)}`, q]));
      const unread = await unreadQueues(
        o.store.db,
        followed.map((q) => ({ workspaceId: q.workspaceId, queueKey: queueKeyOf(q.target) })),
      );
      for (const u of unread) {
        const q = byKey.get(`${u.workspaceId}|${u.queueKey}`);
        const trunk = q && (await o.workspaces.backgroundTrunkFor(u.workspaceId, 'history'));
        if (!q || !trunk) continue;
        const v2 = await o.workspaces.v2For(u.workspaceId, 'history').catch(() => undefined);
        const outcome = await readBack(
          o.store.db,
          o.store.leases,
          { v1: trunk.api, ...(v2 ? { v2: { api: v2.api, ids: createV2Ids(v2.api) } } : {}) },
          {
            ...u,
            address: { repo: q.target.repo, targetBranch: q.target.branch },
            holder: o.replicaId,
          },
          o.now,
        );
        if (outcome.kind === 'failed')
          o.logger.warn(
            { err: outcome.error, queue: u.queueKey },
            'reading queue history back failed; retried later',
          );
        else if (outcome.kind === 'done')
          o.logger.info(
            { queue: u.queueKey, prs: outcome.prs, requests: outcome.requests },
            'queue history read back',
          );
      }
    },
    onError: (err) => o.logger.warn({ err }, 'queue history read-back pass failed'),
  });
  return {
    pruning: { start: () => pruning.start(), stop: (d) => pruning.stop(d) },
    // Start-up does not wait for a first read-back: it may take minutes on a busy queue.
    readback: {
      start: async () => {
        void readback.start();
      },
      stop: (d) => readback.stop(d),
    },
  };
}
