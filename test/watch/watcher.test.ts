/**
 * The watcher through the real wire: the real Trunk client over HTTP to the Trunk fake, a real SQLite
 * store, and a clock the test moves. Changes are made at the fake (as Trunk's web app or a person's
 * command would); events go out through production's Slack side and outbox to the fake Slack, and the rig
 * records what was delivered (test/watch/helpers.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatQueueRef } from '../../src/core/target.ts';
import { queueKeyOf } from '../../src/watch/index.ts';
import { lines, REPO, type Rig, startRig, TARGET, WS } from './helpers.ts';

const SEC = 1000;
const MIN = 60 * SEC;
let rig: Rig;

beforeEach(async () => {
  rig = await startRig();
  rig.trunk.addQueue(REPO, 'main', { concurrency: 2 }, [{ prNumber: 1, state: 'pending', prAuthor: 'mara' }]);
});
afterEach(async () => {
  await rig.close();
});

async function watch(channelId: string, topics = ['state', 'submitted', 'testing', 'merged', 'failed']) {
  const w = await rig.service('probe').watcher.watches.upsert({
    workspaceId: WS,
    channelId,
    target: TARGET,
    topics: topics as never,
    createdBy: 'U1',
    createdAt: rig.clock.now,
  });
  return w;
}

/** The queue moves on by itself (as Trunk does): PR n starts testing. */
function startTesting(n: number) {
  const prs = rig.trunk.queue(REPO, 'main')?.enqueuedPullRequests ?? [];
  rig.trunk.patchQueue(REPO, 'main', {
    enqueuedPullRequests: prs.map((p) => (p.prNumber === n ? { ...p, state: 'testing' } : p)),
  });
}

/** Moves the clock one watch interval and ticks the given services. */
async function interval(...services: Array<{ tick(): Promise<void> }>) {
  rig.clock.now += 20 * SEC;
  for (const s of services) await s.tick();
}

describe('watcher', () => {
  it('a change made at Trunk reaches the deliver callback once, as changed outside Slack; the first look announces nothing', async () => {
    await watch('C1');
    const s = rig.service('r1');
    await s.tick();
    expect(rig.delivered).toEqual([]);
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await interval(s);
    await interval(s);
    await interval(s);
    expect(lines(rig.delivered)).toEqual(['state state:running→paused (outside Slack) → channel:C1']);
    expect(await rig.metrics.registry.getSingleMetricAsString('mergequeue_watch_events_total')).toContain(
      'mergequeue_watch_events_total{kind="state",destination="channel"} 1',
    );
  });

  it('a change of ours (an audit entry for the queue) is not "outside Slack" and names who made it', async () => {
    await watch('C1');
    const s = rig.service('r1');
    await s.tick();
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'draining' });
    await rig.store.appendAudit({
      workspaceId: WS,
      userId: 'U_OPERATOR',
      action: 'drain',
      target: formatQueueRef(TARGET),
      outcome: 'ok',
      // As the queue service audits a change: with the state Trunk reported after it.
      detail: { before: 'running', after: 'draining' },
      at: rig.clock.now + 5 * SEC,
    });
    await interval(s);
    const [d] = rig.delivered;
    expect(d?.event).toMatchObject({
      kind: 'state',
      outsideSlack: false,
      changes: [{ field: 'state', before: 'running', after: 'draining', by: 'U_OPERATOR' }],
    });
  });

  it('submitted, testing, and a PR that left: cancelled to the channel and a note to its linked author', async () => {
    await watch('C1');
    const s = rig.service('r1');
    await s.watcher.people.link({
      workspaceId: WS,
      userId: 'U_MARA',
      githubLogin: 'Mara',
      linkedBy: 'U_MARA',
      verified: false,
      now: rig.clock.now,
    });
    await s.tick();
    const ref = (n: number) => ({ repo: REPO, targetBranch: 'main', pr: { number: n } });
    await rig.api.submitPullRequest(ref(2));
    await interval(s);
    startTesting(1);
    await interval(s);
    await rig.api.cancelPullRequest(ref(1));
    await interval(s);
    rig.trunk.dequeuePr(REPO, 'main', 2);
    rig.trunk.addSubmittedPr(REPO, 'main', { prNumber: 2, state: 'merged', prAuthor: 'devon' });
    await interval(s);
    expect(lines(rig.delivered)).toEqual([
      'submitted #2 → channel:C1',
      'testing #1 → channel:C1',
      'testing #1 → author:U_MARA',
      'cancelled #1 → channel:C1',
      'cancelled #1 → author:U_MARA',
      'merged #2 → channel:C1',
    ]);
    expect(rig.delivered[3]?.event).toMatchObject({ pr: { number: 1, author: 'mara', state: 'cancelled' } });
    // Turning notes off stops them; the channel still hears.
    await s.watcher.people.setNotify(WS, 'U_MARA', false);
    rig.trunk.enqueuePr(REPO, 'main', { prNumber: 3, prAuthor: 'mara', state: 'pending' });
    await interval(s);
    startTesting(3);
    await interval(s);
    expect(lines(rig.delivered.slice(6))).toEqual(['submitted #3 → channel:C1', 'testing #3 → channel:C1']);
  });

  it('a channel hears only its topics; live messages hear every PR and state change', async () => {
    await watch('C_STATE', ['state']);
    const s = rig.service('r1');
    await s.watcher.live.upsert(
      {
        workspaceId: WS,
        channelId: 'C_LIVE',
        ts: '1700000000.000100',
        target: TARGET,
        liveUntil: rig.clock.now + 12 * 60 * MIN,
      },
      rig.clock.now,
    );
    rig.world.postedEarlier('C_LIVE', '1700000000.000100');
    await s.tick();
    await rig.api.submitPullRequest({ repo: REPO, targetBranch: 'main', pr: { number: 5 } });
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', concurrency: 3 });
    await interval(s);
    expect(lines(rig.delivered).sort()).toEqual([
      'state concurrency:2→3 (outside Slack) → channel:C_STATE',
      'state concurrency:2→3 (outside Slack) → live:C_LIVE:1700000000.000100',
      'submitted #5 → live:C_LIVE:1700000000.000100',
    ]);
  });

  it('restart (a new watcher on the same database) neither repeats nor loses an event', async () => {
    await watch('C1');
    const first = rig.service('before');
    await first.tick();
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await interval(first);
    // A change the first watcher committed to its outbox but could not deliver before it stopped.
    rig.failing.set('channel:C1', { times: 1 });
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'running' });
    await interval(first);
    await first.stop();
    // A change made while no watcher runs.
    await rig.api.submitPullRequest({ repo: REPO, targetBranch: 'main', pr: { number: 9 } });

    const second = rig.service('after');
    await interval(second);
    await interval(second);
    expect(lines(rig.delivered)).toEqual([
      'state state:running→paused (outside Slack) → channel:C1',
      'state state:paused→running (outside Slack) → channel:C1',
      'submitted #9 → channel:C1',
    ]);
    expect(rig.delivered.map((d) => d.replica)).toEqual(['before', 'after', 'after']);
  });

  it('a failed delivery is retried on the next tick; one that failed for good is not', async () => {
    await watch('C1');
    await watch('C2');
    const s = rig.service('r1');
    await s.tick();
    rig.failing.set('channel:C1', { times: 1 });
    rig.failing.set('channel:C2', { times: 1, final: true });
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await interval(s);
    expect(rig.delivered).toEqual([]);
    rig.clock.now += 5 * SEC;
    await s.tick();
    await interval(s);
    expect(lines(rig.delivered)).toEqual(['state state:running→paused (outside Slack) → channel:C1']);
    const [event] = await rig.store.db.query<{ done_at: unknown }>('SELECT done_at FROM watch_events');
    expect(event?.done_at).not.toBeNull();
  });

  it('many followers of one queue cost one getQueue per interval', async () => {
    for (let i = 0; i < 10; i++) await watch(`C${i}`);
    const s = rig.service('r1');
    for (let i = 0; i < 10; i++)
      await s.watcher.live.upsert(
        {
          workspaceId: WS,
          channelId: `C${i}`,
          ts: `17000000${i}.000100`,
          target: TARGET,
          liveUntil: rig.clock.now + 60 * MIN,
        },
        rig.clock.now,
      );
    for (let i = 0; i < 10; i++) rig.world.postedEarlier(`C${i}`, `17000000${i}.000100`);
    await rig.store.setChannelDefault(WS, 'C0', { repo: REPO, branch: 'main' });
    rig.trunk.clearRequests();
    await s.tick();
    for (let i = 0; i < 6; i++) {
      // Ticks between intervals (the loop runs four times an interval) do not poll again.
      rig.clock.now += 5 * SEC;
      await s.tick();
      rig.clock.now += 15 * SEC;
      await s.tick();
    }
    expect(rig.trunk.requestsTo('getQueue')).toHaveLength(7);
    expect(await rig.metrics.registry.getSingleMetricAsString('mergequeue_watch_polls_total')).toContain(
      'mergequeue_watch_polls_total{outcome="ok"} 7',
    );
    expect(await rig.metrics.registry.getSingleMetricAsString('mergequeue_watched_queues')).toContain(
      'mergequeue_watched_queues 1',
    );
  });

  it('start polls on its own timer; stop releases the lease so another replica polls at once', async () => {
    await watch('C1');
    const s = rig.service('r1', { tickMs: 10 });
    s.start();
    await rig.trunk.waitForRequest('getQueue');
    await s.stop();
    expect(await s.watcher.leases.get(WS, queueKeyOf(TARGET))).toBeUndefined();
    const other = rig.service('r2');
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await interval(other);
    expect(rig.delivered.map((d) => `${d.replica} ${d.event.kind}`)).toEqual(['r2 state']);
  });

  it('a queue nobody follows any more stops being polled and its lease is released', async () => {
    const w = await watch('C1');
    const s = rig.service('r1');
    await s.tick();
    await interval(s);
    expect(rig.trunk.requestsTo('getQueue')).toHaveLength(2);
    expect(s.watcher.owned).toHaveLength(1);
    await s.watcher.watches.remove(WS, w.channelId, TARGET);
    await interval(s);
    await interval(s);
    expect(rig.trunk.requestsTo('getQueue')).toHaveLength(2);
    expect(s.watcher.owned).toEqual([]);
    expect(await s.watcher.leases.get(WS, queueKeyOf(TARGET))).toBeUndefined();
    expect(await s.watcher.snapshots.get(WS, queueKeyOf(TARGET))).toBeUndefined();
  });

  it('a queue unfollowed while its poller was dead is forgotten, so following it again is a fresh baseline', async () => {
    const w = await watch('C1');
    const dead = rig.service('dead');
    await dead.tick();
    await dead.stop({ releaseLeases: false });
    await dead.watcher.watches.remove(WS, w.channelId, TARGET);
    const other = rig.service('other');
    rig.clock.now += 2 * 60 * MIN;
    await other.tick();
    expect(await other.watcher.snapshots.get(WS, queueKeyOf(TARGET))).toBeUndefined();
    await rig.api.updateQueue({ repo: REPO, targetBranch: 'main', state: 'paused' });
    await watch('C1');
    await interval(other);
    await interval(other);
    expect(rig.delivered).toEqual([]);
  });

  it('health: stuck alerts once after the channel threshold and says recovered once when testing starts', async () => {
    await rig.service('probe').watcher.watches.upsert({
      workspaceId: WS,
      channelId: 'C_HEALTH',
      target: TARGET,
      topics: ['health'],
      stuckMinutes: 30,
      createdBy: 'U1',
      createdAt: rig.clock.now,
    });
    const s = rig.service('r1');
    await s.tick();
    for (let m = 0; m < 60; m += 5) {
      rig.clock.now += 5 * MIN;
      await s.tick();
    }
    expect(lines(rig.delivered)).toEqual(['health stuck alert → channel:C_HEALTH']);
    expect(rig.delivered[0]?.event).toMatchObject({ thresholdMinutes: 30, waitingPrs: 1 });
    // The queue moves on: PR 1 starts testing (as Trunk would, on its own).
    startTesting(1);
    for (let m = 0; m < 30; m += 5) {
      rig.clock.now += 5 * MIN;
      await s.tick();
    }
    expect(lines(rig.delivered)).toEqual([
      'health stuck alert → channel:C_HEALTH',
      'health stuck recovered → channel:C_HEALTH',
    ]);
  });

  it('deliverBatch gets every pending event of the queue in one call (a burst can be one message), each settled once', async () => {
    await watch('C1', ['submitted']);
    const calls: string[][] = [];
    const s = rig.service('batch', {
      deliverBatch: async (items) => {
        calls.push(items.map((i) => `${i.event.kind} #${'pr' in i.event ? i.event.pr.number : ''}`));
        return items.map((i) => i.destinations.map((d) => ({ key: d.key, ok: true as const })));
      },
    });
    await s.tick();
    for (const n of [7, 8, 9]) rig.trunk.enqueuePr(REPO, 'main', { prNumber: n, state: 'pending' });
    await interval(s);
    await interval(s);
    expect(calls).toEqual([['submitted #7', 'submitted #8', 'submitted #9']]);
    // The plain per-event callback was not used.
    expect(rig.delivered).toEqual([]);
  });
});
