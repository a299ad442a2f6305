/**
 * One world for tests of background work: a database (a fresh SQLite file, or a fresh PostgreSQL database
 * of this test file's own), one fake Slack and one fake Trunk on loopback, a clock the test moves, and the
 * app's production wiring on top of them — createApp (its Workspaces: the Slack and Trunk clients it
 * builds) and the Slack outbox every background write goes through, as app.ts builds it. Replicas are
 * several stores (each its own connection pool) on the one database, or several processes through the
 * app harness (`world.env` is what they share).
 *
 * The domain rigs (test/watch, test/digest, test/freeze) and the replica tests start here rather than
 * each opening its own store and fakes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll } from 'vitest';
import { type SlackFake, type SlackFakeOptions, startSlackFake } from '../../dev/fakes/slack/server.ts';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { createApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { NotifyResult } from '../../src/core/notifier.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { SlackOutbox } from '../../src/slack/outbox/outbox.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { type Harness, type HarnessOptions, startHarness } from './app-harness.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from './pg.ts';

export type WorldDatabase = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface WorldOptions {
  /** Default: a fresh SQLite file. */
  database?: { kind: 'postgres'; url: string };
  /** How many stores (replicas' connection pools) to open on the database; default 1. */
  stores?: number;
  /** Trunk tokens the fake Trunk accepts (default: it accepts any). */
  trunkTokens?: string[];
  slackOptions?: SlackFakeOptions;
  /** Where the clock starts (ISO). */
  startAt?: string;
}

export interface World {
  readonly database: WorldDatabase;
  /** DATABASE_URL for an app process on this world's database. */
  readonly databaseUrl: string;
  readonly slack: SlackFake;
  readonly trunk: TrunkFake;
  readonly clock: { now: number };
  readonly metrics: Metrics;
  /** One store per replica, each its own connection pool; the first is the test's. */
  readonly stores: Store[];
  readonly store: Store;
  /**
   * The app in this process on the world's first store, fakes and clock, with its production wiring, not
   * listening (background work is driven by the test). Built once, on first use.
   */
  app(): Promise<RunningApp>;
  /**
   * A Slack outbox as the app builds it (app.ts: every background write through it, to the app's Slack
   * clients), without pacing unless asked. `faults` answers a write before Slack sees it: a final or
   * temporary refusal, as the outbox itself would answer one (see failWrites).
   */
  outbox(opts?: {
    paceMs?: number;
    faults?: WriteFaults;
    /** The Slack client of a workspace; default the app's (Workspaces.slackFor). */
    slackFor?: (workspaceId: string) => WebClient;
  }): SlackOutbox;
  /**
   * A replica of the app through the app harness (in this process, or a child process with
   * `process: true`) on this world's database and fakes; all replicas share ENCRYPTION_KEY. Closed with
   * the world.
   */
  replica(opts?: HarnessOptions): Promise<Harness>;
  /** A message the app posted earlier (a live status message), as the fake Slack holds it. */
  postedEarlier(channel: string, ts: string): void;
  close(): Promise<void>;
}

/**
 * Writes to refuse, by destination (`channel:C1`, or a user id for a direct message): how many more times,
 * and whether for good (Slack's channel_is_archived) or for now (internal_error, retried).
 */
export type WriteFaults = Map<string, { times: number; final?: boolean }>;

export const WORLD_BOT_TOKEN = 'xoxb-test-world';

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'mq-world-'));
  const database: WorldDatabase = opts.database ?? { kind: 'sqlite', path: join(dir, 'mq.db') };
  const databaseUrl = database.kind === 'sqlite' ? `sqlite:${database.path}` : database.url;
  const stores: Store[] = [];
  for (let i = 0; i < (opts.stores ?? 1); i++) stores.push(await openStore({ database, encryptionKeys: [] }));
  const slack = await startSlackFake(opts.slackOptions);
  const trunk = await startTrunkFake(opts.trunkTokens ? { tokens: opts.trunkTokens } : {});
  const clock = { now: Date.parse(opts.startAt ?? '2026-11-02T08:00:00Z') };
  const metrics = createMetrics({ defaultMetrics: false });
  let app: Promise<RunningApp> | undefined;
  const outboxes: SlackOutbox[] = [];
  const replicas: Harness[] = [];
  const encryptionKey = randomBytes(32).toString('base64');

  const world: World = {
    database,
    databaseUrl,
    slack,
    trunk,
    clock,
    metrics,
    stores,
    store: stores[0]!,
    app() {
      app ??= createApp(
        loadConfig({
          SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
          SLACK_BOT_TOKEN: WORLD_BOT_TOKEN,
          SLACK_API_URL: slack.url,
          TRUNK_API_URL: trunk.url,
          TRUNK_API_TOKEN: opts.trunkTokens?.[0] ?? 'test-token',
          TRUNK_ORG_SLUG: 'acme',
          TRUNK_APP_URL: 'https://app.trunk.example',
          DATABASE_URL: databaseUrl,
          PORT: '0',
          LOG_LEVEL: 'silent',
          SCHEDULER_ENABLED: 'false',
        }),
        {
          store: stores[0]!,
          metrics,
          logger: silentLogger(),
          clock: () => clock.now,
          http: { host: '127.0.0.1' },
        },
      );
      return app;
    },
    outbox({ paceMs = 0, faults, slackFor } = {}) {
      const options = {
        slackFor: async (id: string) => slackFor?.(id) ?? (await world.app()).workspaces.slackFor(id),
        logger: silentLogger(),
        metrics,
        paceMs,
      };
      const o = faults ? new FaultyOutbox(faults, options) : new SlackOutbox(options);
      outboxes.push(o);
      return o;
    },
    async replica(o = {}) {
      const h = await startHarness({
        ...o,
        slack,
        trunk,
        env: { DATABASE_URL: databaseUrl, ENCRYPTION_KEY: encryptionKey, ...o.env },
      });
      replicas.push(h);
      return h;
    },
    postedEarlier(channel, ts) {
      slack.messages.push({ channel, ts, text: 'Live status', user: 'UBOT', via: 'api', history: [] });
    },
    async close() {
      for (const h of replicas) await h.close().catch(() => undefined);
      for (const o of outboxes) await o.stop(1_000).catch(() => undefined);
      if (app) await (await app).stop().catch(() => undefined);
      for (const s of stores) await s.close();
      await trunk.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** The outbox with some writes refused before they reach Slack, as Slack would refuse them. */
class FaultyOutbox extends SlackOutbox {
  readonly #faults: WriteFaults;
  constructor(faults: WriteFaults, o: ConstructorParameters<typeof SlackOutbox>[0]) {
    super(o);
    this.#faults = faults;
  }
  override post(...args: Parameters<SlackOutbox['post']>): Promise<NotifyResult> {
    const [to] = args;
    const f = this.#faults.get(`channel:${to.channel}`) ?? this.#faults.get(to.channel);
    if (f && f.times > 0) {
      f.times--;
      return Promise.resolve(
        f.final
          ? { ok: false, code: 'channel_is_archived', final: true }
          : { ok: false, code: 'internal_error', final: false },
      );
    }
    return super.post(...args);
  }
}

/**
 * A fresh PostgreSQL database for this test file, made before its tests and dropped after them. `enabled`
 * is false only outside CI with no server (the suite then skips with a notice, see pg.ts).
 */
export async function usePostgres(suite: string): Promise<{ enabled: boolean; readonly db: PgTestDatabase }> {
  const enabled = await pgTestsEnabled(suite);
  let db: PgTestDatabase | undefined;
  beforeAll(async () => {
    if (enabled) db = await createPgTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
  }, 60_000);
  return {
    enabled,
    get db() {
      if (!db) throw new Error('the PostgreSQL database exists only while the tests run');
      return db;
    },
  };
}

/**
 * A world on a fresh PostgreSQL database of this test file's own, started before its tests and closed
 * (the database dropped) after them. `enabled` is false only outside CI with no server.
 */
export async function usePostgresWorld(
  suite: string,
  opts: Omit<WorldOptions, 'database'> = {},
): Promise<{ enabled: boolean; readonly world: World }> {
  const pg = await usePostgres(suite);
  let world: World | undefined;
  beforeAll(async () => {
    if (pg.enabled) world = await startWorld({ ...opts, database: { kind: 'postgres', url: pg.db.url } });
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  }, 60_000);
  return {
    enabled: pg.enabled,
    get world() {
      if (!world) throw new Error('the world exists only while the tests run');
      return world;
    },
  };
}
