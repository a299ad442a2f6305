/**
 * Watch services wired as the app will wire them — real store (SQLite or PostgreSQL), real Trunk client
 * over HTTP to the Trunk fake — with a clock the test moves and a deliver callback that records what the
 * Slack side would be asked to send.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import type { DeliveryResult, Destination, WatchEvent } from '../../src/watch/index.ts';
import { createWatchService, type WatchService, type WatchServiceDeps } from '../../src/watch/service.ts';

export const WS = 'T0WATCH01';
export const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
export const TARGET = { repo: REPO, branch: 'main' };

export interface Delivered {
  replica: string;
  event: WatchEvent;
  destination: Destination;
}

export interface Rig {
  store: Store;
  trunk: TrunkFake;
  /** The Trunk client a person's command (or Trunk's web app) would change the queue with. */
  api: TrunkApi;
  clock: { now: number };
  metrics: Metrics;
  delivered: Delivered[];
  /** Destination keys whose next deliveries fail: value = how many more times, and whether for good. */
  failing: Map<string, { times: number; final?: boolean }>;
  service(name: string, overrides?: Partial<WatchServiceDeps>): WatchService;
  close(): Promise<void>;
}

export async function startRig(opts: { database?: { kind: 'postgres'; url: string } } = {}): Promise<Rig> {
  const store = await openStore({
    database: opts.database ?? {
      kind: 'sqlite',
      path: join(mkdtempSync(join(tmpdir(), 'mq-watch-')), 'mq.db'),
    },
    encryptionKeys: [],
  });
  const trunk = await startTrunkFake({ tokens: ['token-one'] });
  const api = createTrunkClient({
    baseUrl: trunk.url,
    auth: apiTokenAuth('token-one'),
    retry: { maxAttempts: 1 },
  });
  const clock = { now: Date.parse('2026-11-02T08:00:00Z') };
  const metrics = createMetrics({ defaultMetrics: false });
  const delivered: Delivered[] = [];
  const failing = new Map<string, { times: number; final?: boolean }>();
  const services: WatchService[] = [];
  return {
    store,
    trunk,
    api,
    clock,
    metrics,
    delivered,
    failing,
    service(name, overrides = {}) {
      const s = createWatchService({
        store,
        trunkFor: (ws) => (ws === WS ? api : undefined),
        deliver: async (event, destinations): Promise<DeliveryResult[]> =>
          destinations.map((d) => {
            const f = failing.get(d.key);
            if (f && f.times > 0) {
              f.times--;
              return { key: d.key, ok: false, error: 'channel_is_archived', final: f.final === true };
            }
            delivered.push({ replica: name, event, destination: d });
            return { key: d.key, ok: true };
          }),
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
      await store.close();
      await trunk.close();
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
          : `${event.kind} #${event.pr.number}`;
    return `${what} → ${destination.key}`;
  });
}
