/**
 * The watch service: the watcher on a timer, with the lifecycle app.ts uses for digests (start, stop).
 * Stopping releases this replica's leases so another replica polls those queues at once.
 */
import { randomBytes } from 'node:crypto';
import type { TargetSpec } from '../core/target.ts';
import type { Store } from '../store/types.ts';
import { listFollowedQueues } from './followed.ts';
import { Watcher, type WatcherOptions } from './watcher.ts';

export interface WatchServiceDeps
  extends Omit<WatcherOptions, 'db' | 'followed' | 'listAudit'>,
    Partial<Pick<WatcherOptions, 'followed'>> {
  store: Pick<Store, 'db' | 'listAudit'>;
  /** DEFAULT_REPO: counts as each workspace's default queue. */
  defaultTarget?: TargetSpec;
  /** How often the loop runs; default a quarter of the interval (at least 1 s). Polls still happen once an interval. */
  tickMs?: number;
}

export interface WatchService {
  readonly watcher: Watcher;
  start(): void;
  /**
   * Stops ticking and waits for the tick in progress (up to timeoutMs, default 10 s). `releaseLeases: false`
   * leaves the leases to expire, as a crashed replica would (tests of takeover).
   */
  stop(opts?: { timeoutMs?: number; releaseLeases?: boolean }): Promise<void>;
  /** One pass now, and the deliveries it started (tests drive the clock and call this). */
  tick(): Promise<void>;
}

export function createWatchService(deps: WatchServiceDeps): WatchService {
  const now = deps.clock ?? Date.now;
  const watcher = new Watcher({
    ...deps,
    db: deps.store.db,
    // Leases are fenced by owner: a suffix keeps two replicas apart even when both report pid 1 (containers).
    replicaId: `${deps.replicaId}-${randomBytes(3).toString('hex')}`,
    followed:
      deps.followed ??
      ((t) =>
        listFollowedQueues(
          deps.store.db,
          t,
          deps.defaultTarget ? { defaultTarget: deps.defaultTarget } : {},
        )),
    listAudit: (ws, opts) => deps.store.listAudit(ws, opts),
    clock: now,
  });
  const tickMs = deps.tickMs ?? Math.max(1000, (deps.intervalSeconds * 1000) / 4);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const loop = () => {
    if (stopped) return;
    running = watcher
      .tick()
      .catch((err: unknown) => deps.logger.error({ err }, 'watch tick failed'))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(loop, tickMs);
      });
  };

  return {
    watcher,
    start() {
      if (!stopped) return;
      stopped = false;
      loop();
      deps.logger.info({ intervalSeconds: deps.intervalSeconds }, 'queue watcher started');
    },
    async stop(opts = {}) {
      stopped = true;
      clearTimeout(timer);
      if (running) {
        let t: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise((r) => (t = setTimeout(r, opts.timeoutMs ?? 10_000)))]);
        clearTimeout(t);
      }
      if (opts.releaseLeases ?? true) await watcher.releaseAll();
    },
    async tick() {
      await watcher.tick();
      await watcher.settled();
    },
  };
}
