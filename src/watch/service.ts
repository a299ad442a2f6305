/**
 * The watch service: the watcher ticking with core/periodic-passes.ts (start, stop by a deadline), as every
 * background worker does.
 * Stopping releases this replica's leases so another replica polls those queues at once.
 */
import { randomBytes } from 'node:crypto';
import { PeriodicPasses } from '../core/periodic-passes.ts';
import type { TargetSpec } from '../core/target.ts';
import type { Store } from '../store/types.ts';
import { listFollowedQueues } from './followed.ts';
import type { DeliverBatch } from './types.ts';
import { Watcher, type WatcherOptions } from './watcher.ts';

export interface WatchServiceDeps
  extends Omit<WatcherOptions, 'db' | 'leases' | 'followed' | 'listAudit' | 'deliver' | 'deliverBatch'>,
    Partial<Pick<WatcherOptions, 'followed'>> {
  store: Pick<Store, 'db' | 'leases' | 'listAudit'>;
  /** The Slack side (src/slack/queue-events/deliver.ts): every claimed event of one queue in one call. */
  deliverBatch: DeliverBatch;
  /** DEFAULT_REPO: counts as each workspace's default queue. */
  defaultTarget?: TargetSpec;
  /** How often the loop runs; default a quarter of the interval (at least 1 s). Polls still happen once an interval. */
  tickMs?: number;
}

export interface WatchService {
  readonly watcher: Watcher;
  start(): void;
  /**
   * Stops ticking and waits for the tick in progress until `deadline` (epoch ms; default 10 s from now, or
   * `timeoutMs`). `releaseLeases: false` leaves the leases to expire, as a crashed replica would (tests of
   * takeover).
   */
  stop(opts?: { deadline?: number; timeoutMs?: number; releaseLeases?: boolean }): Promise<void>;
  /** One pass now, and the deliveries it started (tests drive the clock and call this). */
  tick(): Promise<void>;
}

export function createWatchService(deps: WatchServiceDeps): WatchService {
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
  const passes = new PeriodicPasses({
    every: deps.tickMs ?? Math.max(1000, (deps.intervalSeconds * 1000) / 4),
    pass: () => watcher.tick(),
    onError: (err) => deps.logger.error({ err }, 'watch tick failed'),
  });

  return {
    watcher,
    start() {
      void passes.start();
      deps.logger.info({ intervalSeconds: deps.intervalSeconds }, 'queue watcher started');
    },
    async stop(opts = {}) {
      await passes.stop(opts.deadline ?? Date.now() + (opts.timeoutMs ?? 10_000));
      if (opts.releaseLeases ?? true) await watcher.releaseAll();
    },
    async tick() {
      await watcher.tick();
      await watcher.settled();
    },
  };
}
