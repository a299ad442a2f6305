import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { LiveMessageRepository, WatchRepository } from '../../src/watch/feeds.ts';
import { listFollowedQueues, listWorkspaceQueues } from '../../src/watch/followed.ts';
import { PeopleRepository } from '../../src/watch/people.ts';
import { LeaseRepository } from '../../src/watch/queue-state.ts';
import { queueKeyOf } from '../../src/watch/types.ts';
import { pgTestsEnabled } from '../helpers/pg.ts';
import { storeEngines } from '../helpers/store-engines.ts';

const pgEnabled = await pgTestsEnabled('watch repositories (PostgreSQL)');
const T0 = Date.parse('2026-11-02T08:00:00Z');
const web = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const api = { repo: { host: 'github.com', owner: 'acme', name: 'api' }, branch: 'release' };

const engines = storeEngines(pgEnabled, 'mq-watch-repo-');

describe.each(engines)('watch tables on %s', (_name, open) => {
  let store: Store;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, drop } = await open());
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await drop();
  });

  it('one watch per channel and queue: watching again replaces topics and threshold', async () => {
    const watches = new WatchRepository(store.db);
    const first = await watches.upsert({
      workspaceId: 'T1',
      channelId: 'C1',
      target: web,
      topics: ['state', 'failed', 'health'],
      createdBy: 'U1',
      createdAt: T0,
    });
    expect(first.id).toMatch(/^w[a-z0-9]{5}$/);
    const again = await watches.upsert({
      workspaceId: 'T1',
      channelId: 'C1',
      target: { ...web, repo: { ...web.repo, owner: 'ACME' } },
      topics: ['merged', 'submitted'],
      stuckMinutes: 20,
      createdBy: 'U2',
      createdAt: T0 + 1,
    });
    expect(again).toMatchObject({ id: first.id, topics: ['submitted', 'merged'], stuckMinutes: 20 });
    expect(await watches.listChannel('T1', 'C1')).toHaveLength(1);
    expect(await watches.remove('T1', 'C1', web)).toBe(true);
    expect(await watches.remove('T1', 'C1', web)).toBe(false);
  });

  it('a GitHub login belongs to one person: a second claim is refused, an operator reassigns it', async () => {
    const people = new PeopleRepository(store.db);
    const mine = await people.link({
      workspaceId: 'T1',
      userId: 'U_MARA',
      githubLogin: '@Mara',
      linkedBy: 'U_MARA',
      verified: false,
      now: T0,
    });
    expect(mine).toMatchObject({ ok: true, link: { githubLogin: 'Mara', verified: false, notify: true } });
    const claim = await people.link({
      workspaceId: 'T1',
      userId: 'U_EVE',
      githubLogin: 'mara',
      linkedBy: 'U_EVE',
      verified: false,
      now: T0,
    });
    expect(claim).toEqual({ ok: false, reason: 'taken', heldBy: 'U_MARA' });
    // Another workspace is another namespace.
    expect(
      (
        await people.link({
          workspaceId: 'T2',
          userId: 'U_EVE',
          githubLogin: 'mara',
          linkedBy: 'U_EVE',
          verified: false,
          now: T0,
        })
      ).ok,
    ).toBe(true);
    const bad = await people.link({
      workspaceId: 'T1',
      userId: 'U_EVE',
      githubLogin: 'not a login!',
      linkedBy: 'U_EVE',
      verified: false,
      now: T0,
    });
    expect(bad).toMatchObject({
      ok: false,
      reason: 'invalid',
      message: expect.stringContaining('me github octocat'),
    });
    const settled = await people.link({
      workspaceId: 'T1',
      userId: 'U_EVE',
      githubLogin: 'MARA',
      linkedBy: 'U_OPERATOR',
      verified: true,
      reassign: true,
      now: T0 + 1,
    });
    expect(settled).toMatchObject({
      ok: true,
      replaced: 'U_MARA',
      link: { userId: 'U_EVE', verified: true },
    });
    expect(await people.get('T1', 'U_MARA')).toBeUndefined();
    expect((await people.byLogin('T1', 'mArA'))?.userId).toBe('U_EVE');
    expect(await people.setNotify('T1', 'U_EVE', false)).toBe(true);
    expect((await people.get('T1', 'U_EVE'))?.notify).toBe(false);
    expect(await people.forget('T1', 'U_EVE')).toBe(true);
    expect(await people.forget('T1', 'U_EVE')).toBe(false);
  });

  it('followed queues: watched, shown by a live message still live, or a channel or workspace default', async () => {
    const watches = new WatchRepository(store.db);
    const live = new LiveMessageRepository(store.db);
    await watches.upsert({
      workspaceId: 'T3',
      channelId: 'C1',
      target: web,
      topics: ['state'],
      createdBy: 'U1',
      createdAt: T0,
    });
    await live.upsert(
      { workspaceId: 'T3', channelId: 'C2', ts: '1.1', target: api, liveUntil: T0 + 1000 },
      T0,
    );
    await live.upsert(
      { workspaceId: 'T3', channelId: 'C2', ts: '1.2', target: { ...api, branch: 'old' }, liveUntil: T0 - 1 },
      T0,
    );
    await store.setWorkspaceDefaultTarget('T4', { repo: api.repo, branch: 'dev' });
    await store.setChannelDefault('T4', 'C9', { branch: 'hotfix' });
    const keys = (await listFollowedQueues(store, T0))
      .filter((q) => q.workspaceId === 'T3' || q.workspaceId === 'T4')
      .map((q) => `${q.workspaceId} ${queueKeyOf(q.target)}`)
      .sort();
    expect(keys).toEqual([
      'T3 github.com/acme/api:release',
      'T3 github.com/acme/web:main',
      'T4 github.com/acme/api:dev',
      'T4 github.com/acme/api:hotfix',
    ]);
    expect((await live.takeExpired(T0)).map((m) => m.ts)).toEqual(['1.2']);
    expect(await live.takeExpired(T0)).toEqual([]);
  });

  it('DEFAULT_REPO is the default queue of every workspace known by a linked person, not only configured ones', async () => {
    const dflt = { repo: web.repo, branch: 'trunk' };
    await new PeopleRepository(store.db).link({
      workspaceId: 'T8',
      userId: 'U8',
      githubLogin: 'dev8',
      linkedBy: 'U8',
      verified: false,
      now: T0,
    });
    // T9 has its own default: DEFAULT_REPO does not stand in for it.
    await store.setWorkspaceDefaultTarget('T9', { repo: api.repo, branch: 'main' });
    await new PeopleRepository(store.db).link({
      workspaceId: 'T9',
      userId: 'U9',
      githubLogin: 'dev9',
      linkedBy: 'U9',
      verified: false,
      now: T0,
    });
    const keys = async (opts: { defaultTarget?: typeof dflt }) =>
      (await listFollowedQueues(store, T0, opts))
        .filter((q) => q.workspaceId === 'T8' || q.workspaceId === 'T9')
        .map((q) => `${q.workspaceId} ${queueKeyOf(q.target)}`)
        .sort();
    expect(await keys({ defaultTarget: dflt })).toEqual([
      'T8 github.com/acme/web:trunk',
      'T9 github.com/acme/api:main',
    ]);
    // Without DEFAULT_REPO a linked person alone follows nothing.
    expect(await keys({})).toEqual(['T9 github.com/acme/api:main']);
  });

  it("one workspace's queues: each once, with why and where, its default first; watches of that workspace only", async () => {
    const watches = new WatchRepository(store.db);
    const live = new LiveMessageRepository(store.db);
    for (const [channelId, target] of [
      ['C1', web],
      ['C2', web],
      ['C3', api],
    ] as const)
      await watches.upsert({
        workspaceId: 'T6',
        channelId,
        target,
        topics: ['state'],
        createdBy: 'U1',
        createdAt: T0,
      });
    await watches.upsert({
      workspaceId: 'T7',
      channelId: 'C1',
      target: web,
      topics: ['state'],
      createdBy: 'U1',
      createdAt: T0,
    });
    await live.upsert(
      { workspaceId: 'T6', channelId: 'C4', ts: '2.1', target: web, liveUntil: T0 + 1000 },
      T0,
    );
    await store.setWorkspaceDefaultTarget('T6', {
      repo: { host: 'github.com', owner: 'acme', name: 'zeta' },
      branch: 'main',
    });
    await store.setChannelDefault('T6', 'C5', { branch: 'release' });
    const queues = await listWorkspaceQueues(store.db, 'T6', T0);
    expect(queues.map((q) => [queueKeyOf(q.target), q.sources, q.channels])).toEqual([
      ['github.com/acme/zeta:main', ['workspace default'], []],
      ['github.com/acme/api:release', ['watch'], ['C3']],
      ['github.com/acme/web:main', ['watch', 'live status'], ['C1', 'C2', 'C4']],
      ['github.com/acme/zeta:release', ['channel default'], ['C5']],
    ]);
    expect((await watches.listWorkspace('T6')).map((w) => w.channelId)).toEqual(['C3', 'C1', 'C2']);
    // DEFAULT_REPO stands in for a workspace with no default of its own.
    const fallback = await listWorkspaceQueues(store.db, 'T7', T0, {
      defaultTarget: { repo: api.repo, branch: 'dev' },
    });
    expect(fallback.map((q) => queueKeyOf(q.target))).toEqual([
      'github.com/acme/api:dev',
      'github.com/acme/web:main',
    ]);
  });

  it('a queue lease is taken when free, renewed by its owner, refused to others until it expires', async () => {
    const leases = new LeaseRepository(store);
    expect(await leases.acquire('T5', 'k', 'A', T0, 1000)).toBe(true);
    expect(await leases.acquire('T5', 'k', 'B', T0 + 500, 1000)).toBe(false);
    expect(await leases.acquire('T5', 'k', 'A', T0 + 900, 1000)).toBe(true);
    expect(await leases.acquire('T5', 'k', 'B', T0 + 1500, 1000)).toBe(false);
    expect(await leases.acquire('T5', 'k', 'B', T0 + 2000, 1000)).toBe(true);
    expect(await leases.release('T5', 'k', 'A')).toBe(false);
    expect((await leases.get('T5', 'k'))?.owner).toBe('B');
  });

  it('deleteWorkspace removes every watch table row of the workspace and no other', async () => {
    const people = new PeopleRepository(store.db);
    await people.link({
      workspaceId: 'T6',
      userId: 'U1',
      githubLogin: 'x',
      linkedBy: 'U1',
      verified: false,
      now: T0,
    });
    await new WatchRepository(store.db).upsert({
      workspaceId: 'T6',
      channelId: 'C1',
      target: web,
      topics: ['state'],
      createdBy: 'U1',
      createdAt: T0,
    });
    await new LeaseRepository(store).acquire('T6', 'k', 'A', T0, 1000);
    await store.deleteWorkspace('T6');
    for (const table of ['watch_channels', 'watch_people', 'leases']) {
      const rows = await store.db.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = 'T6'`,
      );
      expect(Number(rows[0]?.n), table).toBe(0);
    }
    expect((await people.byLogin('T2', 'mara'))?.userId).toBe('U_EVE');
  });
});
