/** The digest service: what people may do with digests, the scheduler, manual runs. Wires the modules of digest/ together. */
import { randomBytes } from 'node:crypto';
import { ClaimRepository } from './claims.ts';
import { MANUAL_RUN_COOLDOWN_MS, ManualRunCooldown } from './cooldown.ts';
import type { DigestDeps } from './deps.ts';
import { createDigestManager, type DigestCommandContext, type DigestManager } from './manage.ts';
import { SubscriptionRepository } from './repository.ts';
import type { RunnerContext } from './runner.ts';
import { Scheduler } from './scheduler.ts';
import { CollectionRepository } from './shared-collection.ts';
import type { RunOutcome } from './types.ts';

export type { DigestCommandContext };

export interface DigestService {
  /** Starts the ticker (node-cron, every minute in UTC) and an immediate catch-up tick. */
  start(): void;
  /** Stops claiming; waits up to timeoutMs (default 10 s) for digests being posted. */
  stop(timeoutMs?: number): Promise<void>;
  /** The operations behind `/mergequeue digest …`, answering with plain data. */
  readonly manage: DigestManager;
  /** Posts a digest now (as `digest run` does) and resolves when it is done. */
  runNow(workspaceId: string, id: string): Promise<RunOutcome>;
  /** One scheduler pass now (tests drive the clock and call this instead of waiting for the minute). */
  tick(): Promise<void>;
  /** Resolves when nothing is being ticked or posted by this replica. */
  idle(): Promise<void>;
  readonly subscriptions: SubscriptionRepository;
  readonly claims: ClaimRepository;
}

export function createDigestService(input: DigestDeps): DigestService {
  const deps: DigestDeps = {
    ...stripUndefined(input),
    // Claims are fenced by owner: a suffix keeps two replicas apart even when both report pid 1 (containers).
    replicaId: `${input.replicaId}-${randomBytes(3).toString('hex')}`,
  };
  const now = deps.clock ?? Date.now;
  const subs = new SubscriptionRepository(deps.store.db);
  const claims = new ClaimRepository(deps.store);
  const logger = deps.logger.child({ component: 'digest', replica: deps.replicaId });
  let abandon = false;
  const ctx: RunnerContext = {
    deps,
    subs,
    claims,
    collections: new CollectionRepository(deps.store),
    logger,
    metrics: deps.metrics,
    now,
    leaseMs: deps.leaseMs ?? 60_000,
    graceMs: deps.graceHours * 3_600_000,
    appUrl: (deps.trunkAppUrl ?? 'https://app.trunk.io').replace(/\/+$/, ''),
    stopping: () => abandon,
  };
  const scheduler = new Scheduler(ctx, deps.concurrency ?? 50);

  const manage = createDigestManager({
    deps,
    subs,
    now,
    logger,
    runManual: (sub) => scheduler.startManual(sub),
    cooldown: new ManualRunCooldown(deps.store.db),
    cooldownMs: deps.manualRunCooldownMs ?? MANUAL_RUN_COOLDOWN_MS,
  });

  return {
    subscriptions: subs,
    manage,
    claims,
    start() {
      abandon = false;
      scheduler.start(deps.tickCron ?? '* * * * *');
      logger.info('digest scheduler started');
    },
    async stop(timeoutMs = 10_000) {
      await scheduler.stop(Date.now() + timeoutMs);
      abandon = true;
    },
    async runNow(workspaceId, id) {
      const sub = await subs.get(workspaceId, id);
      if (!sub) return { outcome: 'failed', detail: `no digest ${id}` };
      return scheduler.runManual(sub);
    },
    tick: () => scheduler.tick(),
    idle: () => scheduler.idle(),
  };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
