import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededHistory, startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { readBack, readbackProgress } from '../../src/history/readback.ts';
import { recordTransition, transitionsOfPr } from '../../src/history/repository.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { apiKeyAuth } from '../../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../../src/trunk/v2/client.ts';
import { createV2Ids } from '../../src/trunk/v2/ids.ts';
import { createHistoryWorkers } from '../../src/workers/history.ts';
import { pgTestsEnabled } from '../helpers/pg.ts';
import { storeEngines } from '../helpers/store-engines.ts';

const pgEnabled = await pgTestsEnabled('history read-back (PostgreSQL)');
const NOW = Date.parse('2026-11-20T12:00:00Z');
const KEY = 'trunk_v2_readback';
const WS = 'T1';
const Q = 'github.com/acme/web:main';
const address = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };

let fake: TrunkFake;
let seeded: SeededHistory;

beforeAll(async () => {
  fake = await startTrunkFake({ tokens: ['tok'], now: () => NOW });
  fake.v2.setKeys({ [KEY]: [] });
  fake.addQueue('acme/web', 'main');
  seeded = fake.seedHistory('acme/web', 'main', { days: 12, prsPerDay: 30, seed: 3 });
});
afterAll(async () => fake?.close());

function trunk(v2 = true) {
  const v1 = createTrunkClient({ baseUrl: fake.url, auth: apiTokenAuth('tok'), retry: { maxAttempts: 1 } });
  if (!v2) return { v1 };
  const api = createTrunkV2Client({ baseUrl: fake.url, auth: apiKeyAuth(KEY) });
  return { v1, v2: { api, ids: createV2Ids(api) } };
}

const engines = storeEngines(pgEnabled, 'mq-readback-');

async function countRows(store: Store, ws = WS): Promise<number> {
  const rows = await store.db.query('SELECT COUNT(*) AS n FROM queue_history WHERE workspace_id = $1', [ws]);
  return Number(rows[0]?.['n']);
}

describe.each(engines)('read-back on %s', (_name, open) => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await open());
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it('three replicas racing: one reads, once; every transition kept; never again once finished', async () => {
    fake.clearRequests();
    const req = { workspaceId: WS, queueKey: Q, address, from: NOW - 30 * 86_400_000 };
    const outcomes = await Promise.all(
      ['r1', 'r2', 'r3'].map((holder) =>
        readBack(store.db, store.leases, trunk(), { ...req, holder }, () => NOW),
      ),
    );
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['busy', 'busy', 'done']);
    const pages = fake.requestsTo('listPullRequests').length;
    expect(pages).toBe(Math.ceil(seeded.prs / 100));
    // Each seeded transition is one row (`queued` is never seeded; Trunk's pending after testing is not kept).
    expect(await countRows(store)).toBe(seeded.transitions.length);
    const pr = seeded.transitions[0]!.prNumber;
    expect((await transitionsOfPr(store.db, WS, Q, pr)).map((r) => [r.state, r.occurredAt])).toEqual(
      seeded.transitions.filter((t) => t.prNumber === pr).map((t) => [t.state, t.at]),
    );
    fake.clearRequests();
    const again = await readBack(store.db, store.leases, trunk(), { ...req, holder: 'r4' }, () => NOW);
    expect(again).toEqual({ kind: 'finished', withV2: true });
    expect(fake.requests).toHaveLength(0);
  });

  it('Trunk failing halfway: what was read is kept; the next reader continues at the cursor', async () => {
    const ws = 'T-RESUME';
    const req = { workspaceId: ws, queueKey: Q, address, from: NOW - 30 * 86_400_000 };
    fake.clearRequests();
    // The first page answers; the second fails.
    const pageOne = await readBack(
      store.db,
      store.leases,
      {
        v1: {
          listPullRequests: async (r, o) => {
            if (r.cursor) throw new Error('Trunk did not answer');
            return trunk(false).v1.listPullRequests(r, o);
          },
        },
      },
      { ...req, holder: 'a' },
      () => NOW,
    );
    expect(pageOne.kind).toBe('failed');
    const progress = await readbackProgress(store.db, ws, Q);
    expect(progress?.cursor).toBeTruthy();
    expect(progress?.prsRead).toBe(100);
    expect(await countRows(store, ws)).toBeGreaterThan(0);
    fake.clearRequests();
    const rest = await readBack(store.db, store.leases, trunk(false), { ...req, holder: 'b' }, () => NOW);
    expect(rest.kind).toBe('done');
    const lists = fake.requestsTo('listPullRequests');
    expect((lists[0]?.body as { cursor?: string } | undefined)?.cursor).toBe(progress?.cursor);
    expect(lists).toHaveLength(Math.ceil(seeded.prs / 100) - 1);
    // v1 alone: one row per PR, its conclusion.
    expect(await countRows(store, ws)).toBe(seeded.prs);
    expect((await readbackProgress(store.db, ws, Q))?.withV2).toBe(false);
  });

  it('a read-back row near a transition the app already saw is the same transition', async () => {
    const ws = 'T-DEDUPE';
    const last = seeded.transitions.at(-1)!;
    await recordTransition(store.db, {
      workspaceId: ws,
      queueKey: Q,
      prNumber: last.prNumber,
      state: last.state,
      occurredAt: last.at + 20_000,
      source: 'poll',
      recordedAt: NOW,
    });
    await readBack(
      store.db,
      store.leases,
      trunk(false),
      { workspaceId: ws, queueKey: Q, address, holder: 'x' },
      () => NOW,
    );
    const rows = await transitionsOfPr(store.db, ws, Q, last.prNumber);
    expect(rows.filter((r) => r.state === last.state).map((r) => r.source)).toEqual(['poll']);
  });

  it('the history worker prunes what is older than HISTORY_DAYS', async () => {
    const ws = 'T-PRUNE';
    const day = 86_400_000;
    for (const [pr, ago] of [
      [1, 100],
      [2, 10],
    ] as const)
      await recordTransition(store.db, {
        workspaceId: ws,
        queueKey: Q,
        prNumber: pr,
        state: 'merged',
        occurredAt: NOW - ago * day,
        source: 'webhook',
        recordedAt: NOW,
      });
    const workers = createHistoryWorkers({
      store,
      workspaces: { backgroundTrunkFor: async () => undefined, v2For: async () => undefined },
      historyDays: 90,
      followed: async () => [],
      logger: { info: () => {}, warn: () => {} },
      now: () => NOW,
      replicaId: 'p',
    });
    await workers.pruning.start();
    await workers.pruning.stop(Date.now() + 1_000);
    expect((await transitionsOfPr(store.db, ws, Q, 1)).length).toBe(0);
    expect((await transitionsOfPr(store.db, ws, Q, 2)).length).toBe(1);
  });
});
