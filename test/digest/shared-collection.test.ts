/**
 * One pagination across replicas (issue 12): app instances (in-process createApp through the app harness)
 * sharing one PostgreSQL database, the Trunk and Slack fakes on loopback, and an injected clock. Digests of
 * one repository, kind and minute claimed by different replicas read one shared collection; a collector
 * that died holding the collection's lease is taken over once its lease has expired.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, SlackFake } from '../../dev/fakes/slack/server.ts';
import type { TrunkFake, WireFailingTest } from '../../dev/fakes/trunk/index.ts';
import { ClaimRepository } from '../../src/digest/claims.ts';
import { SubscriptionRepository } from '../../src/digest/repository.ts';
import { collectionLease } from '../../src/digest/shared-collection.ts';
import type { Store } from '../../src/store/types.ts';
import { defaultUsers, type Harness, TEAM, TRUNK_TOKEN, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { botPosts } from '../helpers/slack-posts.ts';
import { usePostgresWorld } from '../helpers/world.ts';

const pg = await usePostgresWorld('shared digest collections (PostgreSQL)', {
  slackOptions: { users: defaultUsers() },
  trunkTokens: [TRUNK_TOKEN],
});
const enabled = pg.enabled;
const MINUTE = 60_000;
const DUE = Date.parse('2026-11-03T09:00:00Z');
const clock = { now: DUE - 10 * MINUTE };

let store: Store;
let slack: SlackFake;
let trunk: TrunkFake;

beforeAll(() => {
  if (!enabled) return;
  ({ store, slack, trunk } = pg.world);
});

/** A replica: its scheduler looks every second unless `tickCron` says otherwise. */
async function replica(name: string, tickCron = '* * * * * *'): Promise<Harness> {
  return pg.world.replica({
    env: { SCHEDULER_ENABLED: 'true' },
    app: { clock: () => clock.now, replicaId: name, digest: { tickCron, paceMs: 0 }, watch: false },
  });
}

function failing(repo: string, n: number, due: number): Partial<WireFailingTest>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${repo}-${i}`,
    name: `${repo} test ${i}`,
    pull_requests_impacted_last_7d: n - i,
    codeowners: [`@acme/team-${i % 10}`],
    status: { reason: 'failed', timestamp: new Date(due - (i + 1) * 1000).toISOString() },
  }));
}

/** Failing-tests digests due at `due`; with `firstTeam`, channel i's is for @acme/team-(firstTeam + i). */
async function addDigests(repo: string, channels: string[], due: number, firstTeam?: number) {
  const subs = new SubscriptionRepository(store.db);
  const [owner, name] = repo.split('/') as [string, string];
  const added = [];
  for (const [i, channelId] of channels.entries()) {
    added.push(
      await subs.insert({
        workspaceId: TEAM,
        channelId,
        kind: 'failing',
        repo: { host: 'github.com', owner, name },
        minuteOfDay: new Date(due).getUTCHours() * 60 + new Date(due).getUTCMinutes(),
        tz: 'UTC',
        days: 'daily',
        skipEmpty: true,
        topN: 10,
        createdBy: USERS.admin,
        createdAt: due - 60 * MINUTE,
        nextDueAt: due,
        ...(firstTeam !== undefined ? { owner: `@acme/team-${firstTeam + i}` } : {}),
      }),
    );
  }
  return added;
}

const posted = (channel: string): FakeMessage[] => botPosts(slack, channel);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!enabled)('shared digest collections across replicas on one PostgreSQL', () => {
  it('ten team digests of one repository claimed by three replicas: one pagination, each posted once', async () => {
    const channels = Array.from({ length: 10 }, (_, i) => `CSHARE0${i}`);
    trunk.setFailingTests('acme/mono', failing('acme/mono', 250, DUE));
    // Slow pages, so the other replicas claim their digests while the first is still collecting.
    trunk.setLatency({ listFailingTests: 600 });
    clock.now = DUE + 1_000;
    // Replica A looks once, at its start (a yearly cron), and claims the first four digests…
    const early = await addDigests('acme/mono', channels.slice(0, 4), DUE, 0);
    await replica('replica-a', '0 0 1 1 *');
    await trunk.waitForRequest('listFailingTests', { timeoutMs: 10_000 });
    // …the other six are claimed by B and C, which find A collecting and wait for its pages.
    const late = await addDigests('acme/mono', channels.slice(4), DUE, 4);
    await Promise.all([replica('replica-b'), replica('replica-c')]);
    await slack.waitFor(() => channels.every((c) => posted(c).length >= 2), 30_000);
    await sleep(2_000); // a second pagination or a duplicate would show meanwhile
    trunk.setLatency(0);

    const { pages, paginations } = trunk.listPages('listFailingTests', 'acme/mono');
    expect(paginations).toBe(1);
    expect(pages).toHaveLength(3);

    const claims = new ClaimRepository(store);
    const owners = new Map<string, string>();
    for (const sub of [...early, ...late]) {
      const runs = await claims.listFor(sub.id);
      expect(runs.map((r) => [r.scheduledAt, r.outcome, r.postedCount])).toEqual([[DUE, 'posted', 2]]);
      owners.set(sub.channelId, runs[0]!.owner);
    }
    for (const c of channels.slice(0, 4)) expect(owners.get(c)).toMatch(/^replica-a-/);
    for (const c of channels.slice(4)) expect(owners.get(c)).toMatch(/^replica-[bc]-/);

    for (const [i, channel] of channels.entries()) {
      const msgs = posted(channel);
      expect(msgs, channel).toHaveLength(2);
      expect(textOf(msgs[0])).toContain(`Failing tests · acme/mono · owned by @acme/team-${i}`);
      expect(textOf(msgs[0])).toContain(`*25* distinct tests owned by \`@acme/team-${i}\``);
    }
    const rows = await store.db.query(
      "SELECT status, generation, pages FROM digest_collections WHERE source = 'acme/github.com/acme/mono'",
    );
    expect(rows.map((r) => [r['status'], Number(r['generation']), Number(r['pages'])])).toEqual([
      ['done', 1, 3],
    ]);
  }, 90_000);

  it('a collector that died holding the lease: the waiters take over once it expires, one pagination', async () => {
    const due = DUE + 10 * MINUTE;
    const source = 'acme/github.com/acme/other';
    trunk.setFailingTests('acme/other', failing('acme/other', 120, due));
    // A replica began collecting, stored one page of another generation, and died.
    await store.db.execute(
      `INSERT INTO digest_collections (workspace_id, kind, source, scheduled_at, status, owner, created_at)
       VALUES ($1, 'failing', $2, $3, 'collecting', 'dead-replica', $3)`,
      [TEAM, source, due],
    );
    // Its lease (store/leases.ts), running until due + 3 s.
    await store.leases.claim({
      ...collectionLease({ workspaceId: TEAM, kind: 'failing', source, scheduledAt: due }),
      workspaceId: TEAM,
      holder: 'dead-replica',
      ttlMs: 3_000,
      now: due,
    });
    await store.db.execute(
      `INSERT INTO digest_collection_pages (workspace_id, kind, source, scheduled_at, generation, page_no, body)
       VALUES ($1, 'failing', $2, $3, 1, 0, $4)`,
      [TEAM, source, due, JSON.stringify([{ id: 'ghost', name: 'ghost test', codeowners: [] }])],
    );
    const channels = Array.from({ length: 5 }, (_, i) => `CDEAD0${i}`);
    await addDigests('acme/other', channels, due);
    trunk.clearRequests();
    clock.now = due + 1_000;
    await sleep(2_500);
    // Its lease still runs: the digests wait for it rather than paginate on their own.
    expect(trunk.listPages('listFailingTests', 'acme/other').pages).toHaveLength(0);
    for (const c of channels) expect(posted(c)).toHaveLength(0);

    clock.now = due + 5_000;
    await slack.waitFor(() => channels.every((c) => posted(c).length >= 2), 30_000);
    await sleep(2_000);
    const { pages, paginations } = trunk.listPages('listFailingTests', 'acme/other');
    expect(paginations).toBe(1);
    expect(pages).toHaveLength(2);
    for (const c of channels) {
      const msgs = posted(c);
      expect(msgs, c).toHaveLength(2);
      expect(textOf(msgs[0])).toContain('*120* distinct tests failed');
      expect(msgs.map((m) => textOf(m)).join('\n')).not.toContain('ghost');
    }
    const rows = await store.db.query(
      'SELECT status, owner, generation, pages FROM digest_collections WHERE source = $1',
      [source],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'done' });
    expect(Number(rows[0]!['generation'])).toBe(2);
    expect(String(rows[0]!['owner'])).toMatch(/^replica-[abc]-/);
  }, 90_000);
});
