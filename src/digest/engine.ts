/**
 * The digest engine: what people may do with digests, the scheduler's pass, manual runs. Wires the modules
 * of digest/ together; the loop that ticks it is a worker (src/workers/digests.ts).
 */
import { randomBytes } from 'node:crypto';
import type { PassLoop } from '../core/periodic-passes.ts';
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

export interface DigestEngine {
  /** The operations behind `/mergequeue digest …`, answering with plain data. */
  readonly manage: DigestManager;
  /** Posts a digest now (as `digest run` does) and resolves when it is done. */
  runNow(workspaceId: string, id: string): Promise<RunOutcome>;
  /** One scheduler pass now (tests drive the clock and call this instead of waiting for the minute). */
  tick(): Promise<void>;
  /** Resolves when nothing is being ticked or posted by this replica. */
  idle(): Promise<void>;
  /** The digests this replica is posting now (its loop's stop and idle wait for them). */
  readonly inFlight: Iterable<Promise<unknown>>;
  readonly subscriptions: SubscriptionRepository;
  readonly claims: ClaimRepository;
}

/** How the digests are run, from their worker (src/workers/digests.ts). */
export interface DigestRuntime {
  /** The loop that runs tick(): asked whether it is stopping, for one more tick, and when runs end. */
  loop: PassLoop;
  /** True once runs in flight must let go at their next message (a stop's deadline passed). */
  abandoned: () => boolean;
}

export function createDigestEngine(input: DigestDeps, runtime: DigestRuntime): DigestEngine {
  const deps: DigestDeps = {
    ...stripUndefined(input),
    // Claims are fenced by owner: a suffix keeps two replicas apart even when both report pid 1 (containers).
    replicaId: `${input.replicaId}-${randomBytes(3).toString('hex')}`,
  };
  const now = deps.clock ?? Date.now;
  const subs = new SubscriptionRepository(deps.store.db);
  const claims = new ClaimRepository(deps.store);
  const logger = deps.logger.child({ component: 'digest', replica: deps.replicaId });
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
    stopping: runtime.abandoned,
  };
  const scheduler = new Scheduler(ctx, deps.concurrency ?? 50, runtime.loop);

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
    inFlight: scheduler.inFlight,
    async runNow(workspaceId, id) {
      const sub = await subs.get(workspaceId, id);
      if (!sub) return { outcome: 'failed', detail: `no digest ${id}` };
      return scheduler.runManual(sub);
    },
    tick: () => scheduler.tick(),
    idle: () => runtime.loop.idle(),
  };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
