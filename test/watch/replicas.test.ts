/**
 * Two watcher replicas on one PostgreSQL database, the real Trunk client over HTTP to the Trunk fake, and
 * one moved clock: one replica polls a queue at a time, the other takes over when the first stops renewing
 * its lease (stopped without releasing, as a crash would), and every event reaches the channel once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueKeyOf } from '../../src/watch/index.ts';
import { usePostgres } from '../helpers/world.ts';
import { lines, REPO, type Rig, startRig, TARGET, WS } from './helpers.ts';

const pg = await usePostgres('watch replicas (PostgreSQL)');
const enabled = pg.enabled;
const SEC = 1000;
let rig: Rig;

beforeAll(async () => {
  if (!enabled) return;
  rig = await startRig({ database: { kind: 'postgres', url: pg.db.url } });
}, 60_000);
afterAll(async () => {
  await rig?.close();
}, 60_000);

describe.skipIf(!enabled)('watch replicas on one PostgreSQL', () => {
  it('one replica polls; the other takes over after the first stops renewing; no duplicate, no miss', async () => {
    rig.trunk.addQueue(REPO, 'main', {}, [{ prNumber: 1, state: 'pending' }]);
    const a = rig.service('A');
    const b = rig.service('B');
    await a.watcher.watches.upsert({
      workspaceId: WS,
      channelId: 'C1',
      target: TARGET,
      topics: ['state', 'submitted', 'testing', 'merged', 'failed'],
      createdBy: 'U1',
      createdAt: rig.clock.now,
    });
    const both = () => Promise.all([a.tick(), b.tick()]);
    const next = async (ms = 20 * SEC) => {
      rig.clock.now += ms;
      await both();
    };
    await both();
    for (let i = 0; i < 3; i++) await next();
    // Racing ticks: still one poll an interval, all by one replica.
    expect(rig.trunk.requestsTo('getQueue')).toHaveLength(4);
    const [owner, other] = a.watcher.owned.length === 1 ? [a, b] : [b, a];
    expect(owner.watcher.owned).toHaveLength(1);
    expect(other.watcher.owned).toEqual([]);

    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await next();
    expect(lines(rig.delivered)).toEqual(['state state:running→paused (outside Slack) → channel:C1']);

    // The owner dies: it stops without releasing its lease.
    await owner.stop({ releaseLeases: false });
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'running' });
    await rig.api.submitPullRequest({ repo: REPO, targetBranch: 'main', pr: { number: 2 } });
    await other.tick();
    rig.clock.now += 20 * SEC;
    await other.tick();
    // The lease has not expired yet: nobody polls.
    expect(rig.trunk.requestsTo('getQueue')).toHaveLength(5);
    rig.clock.now += 60 * SEC;
    await other.tick();
    expect(other.watcher.owned).toHaveLength(1);
    expect((await other.watcher.leases.get(WS, queueKeyOf(TARGET)))?.owner).toMatch(/^(A|B)-/);

    // The new owner commits an event but its delivery fails, and then it dies too.
    rig.failing.set('channel:C1', { times: 1 });
    await rig.api.cancelPullRequest({ repo: REPO, targetBranch: 'main', pr: { number: 1 } });
    rig.clock.now += 20 * SEC;
    await other.tick();
    await other.stop({ releaseLeases: false });
    const c = rig.service('C');
    await c.tick();
    rig.clock.now += 90 * SEC;
    await c.tick();

    expect(lines(rig.delivered)).toEqual([
      'state state:running→paused (outside Slack) → channel:C1',
      'state state:paused→running (outside Slack) → channel:C1',
      'submitted #2 → channel:C1',
      'cancelled #1 → channel:C1',
    ]);
    const replicaOf = (r: string) => (r === 'A' ? a : r === 'B' ? b : c);
    expect(rig.delivered.map((d) => replicaOf(d.replica))).toEqual([owner, other, other, c]);
    const rows = await rig.store.db.query<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM watch_deliveries WHERE status = 'sent'",
    );
    expect(Number(rows[0]?.n)).toBe(4);
  });
});
