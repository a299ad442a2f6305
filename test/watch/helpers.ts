/**
 * Watch services on their loop (src/workers/queue-watcher.ts: createWatchWorker) on the world (test/helpers/world.ts) — real store (SQLite or PostgreSQL), real Trunk
 * client over HTTP to the Trunk fake, a clock the test moves — delivering through what production runs:
 * the Slack side's deliverBatch (as src/workers/queue-watcher.ts builds it) through the app's
 * Slack outbox to the fake Slack, as src/workers/queue-watcher.ts wires it. `delivered` records what that
 * path delivered; `failing` makes Slack refuse writes to a destination.
 */

import type { SlackFake } from '../../dev/fakes/slack/server.ts';
import type { TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { silentLogger } from '../../src/observability/log.ts';
import type { Metrics } from '../../src/observability/metrics.ts';
import type { Store } from '../../src/store/types.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import type { DeliverBatch, Destination, WatchEvent } from '../../src/watch/index.ts';
import {
  createWatchWorker,
  queueEventDelivery,
  type WatchWorker,
  type WatchWorkerOptions,
} from '../../src/workers/queue-watcher.ts';
import { startWorld, type World, type WriteFaults } from '../helpers/world.ts';

export const WS = 'T0WATCH01';
export const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
export const TARGET = { repo: REPO, branch: 'main' };

export interface Delivered {
  replica: string;
  event: WatchEvent;
  destination: Destination;
}

export interface Rig {
  world: World;
  store: Store;
  trunk: TrunkFake;
  slack: SlackFake;
  /** The Trunk client a person's command (or Trunk's web app) would change the queue with. */
  api: TrunkApi;
  clock: { now: number };
  metrics: Metrics;
  delivered: Delivered[];
  /** Destinations (`channel:C1`) whose next Slack writes are refused: how many more times, and whether for good. */
  failing: WriteFaults;
  service(name: string, overrides?: Partial<WatchWorkerOptions>): WatchWorker;
  close(): Promise<void>;
}

export async function startRig(opts: { database?: { kind: 'postgres'; url: string } } = {}): Promise<Rig> {
  const world = await startWorld({
    ...(opts.database ? { database: opts.database } : {}),
    trunkTokens: ['token-one'],
  });
  const { store, trunk, clock, metrics } = world;
  const api = createTrunkClient({
    baseUrl: trunk.url,
    auth: apiTokenAuth('token-one'),
    retry: { maxAttempts: 1 },
  });
  const delivered: Delivered[] = [];
  const failing: WriteFaults = new Map();
  const app = await world.app();
  const outbox = world.outbox({ faults: failing });
  // The Slack side of queue events exactly as the queue-watcher worker builds it.
  const delivery = queueEventDelivery({
    config: app.config,
    store,
    workspaces: app.workspaces,
    outbox,
    logger: silentLogger(),
    now: () => clock.now,
  });
  /** Production's deliverBatch, recording what it delivered and for which replica. */
  const recording =
    (replica: string): DeliverBatch =>
    async (items, context) => {
      const results = await delivery.deliverBatch(items, context);
      for (const [i, { event, destinations }] of items.entries())
        for (const destination of destinations)
          if (results[i]?.find((r) => r.key === destination.key)?.ok)
            delivered.push({ replica, event, destination });
      return results;
    };
  const services: WatchWorker[] = [];
  return {
    world,
    store,
    trunk,
    slack: world.slack,
    api,
    clock,
    metrics,
    delivered,
    failing,
    service(name, overrides = {}) {
      const s = createWatchWorker({
        store,
        trunkFor: (ws) => (ws === WS ? api : undefined),
        deliverBatch: recording(name),
        clock: () => clock.now,
        replicaId: name,
        intervalSeconds: 20,
        stuckMinutes: 45,
        pausedReminderHours: 4,
        logger: silentLogger(),
        metrics,
        ...overrides,
      });
      services.push(s);
      return s;
    },
    async close() {
      for (const s of services) await s.stop({ releaseLeases: false }).catch(() => undefined);
      await world.close();
    },
  };
}

/** What was delivered, as `kind PR → destination` lines (one per delivery), in order. */
export function lines(delivered: readonly Delivered[]): string[] {
  return delivered.map(({ event, destination }) => {
    const what =
      event.kind === 'state'
        ? `state ${event.changes.map((c) => `${c.field}:${String(c.before)}→${String(c.after)}`).join(',')}${event.outsideSlack ? ' (outside Slack)' : ''}`
        : event.kind === 'health'
          ? `health ${event.condition} ${event.phase}`
          : event.kind === 'slow'
            ? `slow ${event.phase}`
            : `${event.kind} #${event.pr.number}`;
    return `${what} → ${destination.key}`;
  });
}
