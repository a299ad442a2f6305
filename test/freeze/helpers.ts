/**
 * A freezer on the world (test/helpers/world.ts) — real store (one per simulated replica), the queue
 * domain's audited change flow, the real Trunk client over HTTP to the Trunk fake — with a clock the test
 * moves and the announcements collected. Its deps are the domain's own (FreezerDeps), so a test can stand
 * in for a replica that dies mid-change; the app's worker (src/workers/freezer.ts) is tested through the
 * wire in test/slack/e2e/freeze*.test.ts and test/freeze/processes.test.ts.
 */
import type { TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { resolveTarget } from '../../src/core/target.ts';
import { Freezer, type FreezerDeps } from '../../src/freeze/freezer.ts';
import { queueCallbacks } from '../../src/freeze/queue-callbacks.ts';
import type { FreezeEvent } from '../../src/freeze/types.ts';
import { addWindow, type WindowView } from '../../src/freeze/windows.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { describeTrunkFailure } from '../../src/slack/blocks/errors.ts';
import { parseFreezeCommand } from '../../src/slack/commands/freeze.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { startWorld } from '../helpers/world.ts';

export const WS = 'T0FREEZE1';
export const CHANNEL = 'C0FREEZE1';
export const CREATOR = 'UFREEZER';

export interface Rig {
  trunk: TrunkFake;
  clock: { now: number };
  /** One store per simulated replica (each its own connection pool), the first is the test's. */
  stores: Store[];
  events: FreezeEvent[];
  freezer(replicaId: string, overrides?: Partial<FreezerDeps>, store?: Store): Freezer;
  client(): ReturnType<typeof createTrunkClient>;
  /** `freeze add …` as typed by CREATOR in CHANNEL (time zone UTC unless the text names one). */
  add(text: string): Promise<WindowView>;
  /** Moves the clock to an ISO instant and runs one tick of each freezer, waiting for their runs. */
  at(iso: string, ...freezers: Freezer[]): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(
  opts: { database?: { kind: 'postgres'; url: string }; replicas?: number } = {},
): Promise<Rig> {
  const world = await startWorld({
    ...(opts.database ? { database: opts.database } : {}),
    stores: opts.replicas ?? 1,
    startAt: '2026-06-01T00:00:00Z',
  });
  const { trunk, clock, stores } = world;
  const events: FreezeEvent[] = [];
  const client = () =>
    createTrunkClient({
      baseUrl: trunk.url,
      auth: apiTokenAuth('test-token'),
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {},
    });
  const api = client();
  const rig: Rig = {
    trunk,
    clock,
    stores,
    events,
    client,
    freezer(replicaId, overrides = {}, store = stores[0]!) {
      const callbacks = queueCallbacks({
        store,
        trunkFor: () => api,
        now: () => clock.now,
        describeFailure: describeTrunkFailure,
      });
      return new Freezer({
        db: store.db,
        ...callbacks,
        announce: (e) => {
          events.push(e);
        },
        replicaId,
        logger: silentLogger(),
        clock: () => clock.now,
        leaseMs: 20_000,
        retryBaseMs: 5_000,
        ...overrides,
      });
    },
    async add(text) {
      const parsed = parseFreezeCommand(text, { tz: 'UTC', now: clock.now });
      if (!parsed.ok || parsed.value.kind !== 'add')
        throw new Error(`bad test command: ${JSON.stringify(parsed)}`);
      const target = resolveTarget(parsed.value.add.target, {
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
      });
      if (!target) throw new Error('no target');
      return addWindow(
        stores[0]!.db,
        { workspaceId: WS, channelId: CHANNEL, createdBy: CREATOR, target, command: parsed.value.add },
        clock.now,
      );
    },
    async at(iso, ...freezers) {
      clock.now = Date.parse(iso);
      await Promise.all(freezers.map((f) => f.tick()));
      await Promise.all(freezers.map((f) => f.idle()));
    },
    async close() {
      await world.close();
    },
  };
  return rig;
}
