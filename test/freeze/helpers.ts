/**
 * The freezer as production runs it (src/workers/freezer.ts: createFreezerWorker) on the world
 * (test/helpers/world.ts) — real store (one per simulated replica), the queue domain's audited change flow,
 * the real Trunk client over HTTP to the Trunk fake, the creator's standing read from the fake Slack, and
 * every announcement rendered and posted through the world's Slack outbox to the fake Slack — with a clock
 * the test moves. The events the worker announces are collected too (its `observe` seam), so the tests
 * read what the freezer decided. A replica that dies mid-change is a worker whose Trunk client never
 * answers (`hangingTrunk`).
 */

import type { FakeMessage } from '../../dev/fakes/slack/types.ts';
import type { TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { resolveTarget } from '../../src/core/target.ts';
import type { Freezer } from '../../src/freeze/freezer.ts';
import type { FreezeEvent } from '../../src/freeze/types.ts';
import { addWindow, type WindowView } from '../../src/freeze/windows.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { createDirectoryCache } from '../../src/slack/directory.ts';
import { parseFreezeCommand } from '../../src/slack/grammars/freeze.ts';
import type { Store } from '../../src/store/types.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { botStanding } from '../../src/workers/bot-standing.ts';
import { createFreezerWorker } from '../../src/workers/freezer.ts';
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
  /** What the announcements posted in Slack (the fake's messages, in order). */
  posts(): FakeMessage[];
  /**
   * The production freezer worker of one replica, on `store` (default the first), its Trunk client
   * `trunk` (default a client of the fake), ticked by the test (`at`).
   */
  freezer(replicaId: string, seams?: { trunk?: TrunkApi }, store?: Store): Freezer;
  client(): ReturnType<typeof createTrunkClient>;
  /**
   * A Trunk client whose first `method` call stands for a replica killed there: the call reaches Trunk
   * (`reaches`) or not, `onHang` is told, and it never returns.
   */
  hangingTrunk(method: keyof TrunkApi, o: { reaches: boolean; onHang: () => void }): TrunkApi;
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
    // The windows' creator is an admin of the workspace, so each start finds them still an operator.
    slackOptions: { defaultTeamId: WS, users: [{ id: CREATOR, name: 'fran', isAdmin: true, tz: 'UTC' }] },
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
  const app = await world.app();
  const outbox = world.outbox();
  const directory = createDirectoryCache({ now: () => clock.now });
  const standing = botStanding({ config: app.config, store: stores[0]!, workspaces: app.workspaces });
  const rig: Rig = {
    trunk,
    clock,
    stores,
    events,
    client,
    posts: () => world.slack.messages.filter((m) => m.via === 'api'),
    freezer(replicaId, seams = {}, store = stores[0]!) {
      const trunkApi = seams.trunk ?? api;
      const worker = createFreezerWorker({
        store,
        workspaces: {
          // The test's Trunk client (two attempts, no backoff), in place of the app's 30 s background one.
          backgroundTrunkFor: async () => ({ api: trunkApi, orgSlug: 'acme' }),
          slackFor: (id) => app.workspaces.slackFor(id),
        },
        outbox,
        directory,
        botStanding: standing,
        logger: silentLogger(),
        replicaId,
        clock: () => clock.now,
        leaseMs: 20_000,
        retryBaseMs: 5_000,
        observe: (e) => events.push(e),
      });
      return worker.freezer;
    },
    hangingTrunk(method, o) {
      const real = client();
      return new Proxy(real, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop !== method || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            if (o.reaches) await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            o.onHang();
            return new Promise(() => {});
          };
        },
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
