/**
 * The Trunk budget holds whatever people do (issue 19), through the real wire: signed app_home_opened events
 * and slash commands to the running app, the fake Trunk's record of when each request arrived.
 * - Twenty people opening the Home at once never make the app exceed TRUNK_MAX_RPS; the reads they share
 *   cost one request each (one cache, in-flight reads joined), and opening the Home again within seconds
 *   costs nothing.
 * - A person's change goes first: a pause typed while many reads wait reaches Trunk within about a second;
 *   a read that cannot get a slot within a few seconds is told Trunk is busy, and nothing is overdrawn.
 * - The Home shows what the queue watcher already read instead of asking again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import {
  busiestSecond,
  manyUsers,
  metricValue as metric,
  PEOPLE,
  peopleAndQueues,
  LOAD_QUEUES as QUEUES,
} from '../../helpers/people-load.ts';

// The app runs as its own process: the fake Trunk, here, stamps each request when it arrives, whatever
// the app is busy with. On a loaded machine that stamp can come late by tens of milliseconds (this process's
// event loop was busy); a request stamped late and the next one stamped on time would look closer than they
// left. Windows are counted JITTER_MS shorter than a second for that; an overdraft (the old 51 requests in a
// second from 5 Homes) shows all the same.
const JITTER_MS = 150;
describe('the Trunk budget holds whatever people do', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      process: true,
      env: { TRUNK_MAX_RPS: '10' },
      slackOptions: { users: manyUsers() },
    });
    await peopleAndQueues(h, PEOPLE);
  }, 90_000);
  afterAll(async () => h?.close());

  it('twenty people opening the Home at once stay within TRUNK_MAX_RPS, and opening it again costs nothing', async () => {
    await h.reset();
    const homes: FakeView[] = await Promise.all(PEOPLE.map((u) => h.openHome(u)));
    await h.idle();

    // Every Home was published, with every queue read (none "could not read", none told Trunk is busy).
    expect(homes).toHaveLength(20);
    for (const home of homes) {
      const text = textOf({ blocks: home.view['blocks'] });
      expect(text).toContain('acme/q0');
      expect(text).not.toMatch(/busy|could not/i);
    }
    // The first person's PR, read once and shown to them.
    expect(textOf({ blocks: homes[0]!.view['blocks'] })).toContain('#100');

    const calls = h.trunkCalls();
    expect(
      busiestSecond(
        calls.map((r) => r.at),
        JITTER_MS,
      ),
    ).toBeLessThanOrEqual(10);
    // Shared reads: one getQueue and one listPullRequests page per queue the Home reads, not one per person.
    expect(h.trunkCalls('getQueue').length).toBeLessThanOrEqual(QUEUES);
    expect(h.trunkCalls('listPullRequests').length).toBeLessThanOrEqual(QUEUES);
    expect(await metric(h, 'mergequeue_trunk_budget_overdrafts_total')).toBe(0);

    // The same person a moment later: answered from the read cache, not one request to Trunk.
    h.trunk.clearRequests();
    const again = await h.openHome(PEOPLE[3]!);
    expect(textOf({ blocks: again.view['blocks'] })).toContain('acme/q0');
    expect(h.trunkCalls()).toHaveLength(0);
  });
});

describe('a change goes first, a read waits a few seconds at most', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ process: true, env: { TRUNK_MAX_RPS: '2' } });
    h.trunk.addQueue('acme/web', 'main', { state: 'running' });
    for (let i = 0; i < 14; i++) h.trunk.addQueue(`acme/s${i}`, 'main', { state: 'running' });
  });
  afterAll(async () => h?.close());

  it('a pause typed behind fourteen status reads reaches Trunk first; reads past the wait are told Trunk is busy', async () => {
    await h.reset();
    const statuses = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        h.sendCommand(`status acme/s${i}:main`, { channel: 'C0BUSY0001' }),
      ),
    );
    await h.trunk.waitForRequest('getQueue', { count: 2 });
    const pausedAt = Date.now();
    const pause = await h.sendCommand('pause acme/web:main Incident', {
      user: USERS.admin,
      channel: 'C0BUSY0002',
    });
    expect(pause.status).toBe(200);
    const update = await h.trunk.waitForRequest('updateQueue', { timeoutMs: 10_000 });
    // Its read and its change went before every waiting status read: two slots a second, so about a second.
    expect(update.at - pausedAt).toBeLessThan(2_500);
    const announced = await h.slack.waitFor(() => h.slack.channelMessages('C0BUSY0002')[0], 10_000);
    expect(textOf(announced)).toContain('Incident');
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');

    // Each status is answered: the queue in the channel, or a reply to the person alone.
    const answered = () => {
      const shown = h.slack.channelMessages('C0BUSY0001').length;
      const told = statuses.flatMap((s) => h.replies(s.responseUrl));
      return shown + told.length >= 14 ? { shown, told: told.map((r) => textOf(r)) } : undefined;
    };
    const { shown, told } = await h.slack.waitFor(answered, 15_000);
    // Two a second for about three seconds: the rest were told Trunk is busy, in the usual words.
    expect(told.length).toBeGreaterThan(0);
    expect(shown).toBeGreaterThan(0);
    for (const t of told) expect(t).toMatch(/Trunk is busy.*Try again in a few seconds/s);
    const busy = told;
    // Nothing overdrew the budget: no second held more than two requests (stamped on arrival here; see JITTER).
    expect(
      busiestSecond(
        h.trunkCalls().map((r) => r.at),
        JITTER_MS,
      ),
    ).toBeLessThanOrEqual(2);
    expect(h.trunkCalls('getQueue').length).toBe(14 - busy.length + 1);
    expect(await metric(h, 'mergequeue_trunk_budget_overdrafts_total')).toBe(0);
  });
});

describe('the Home prefers what the watcher already read', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      process: true,
      env: { TRUNK_MAX_RPS: '10', SCHEDULER_ENABLED: 'true', WATCH_INTERVAL_SECONDS: '5' },
      slackOptions: { users: manyUsers() },
    });
    await peopleAndQueues(h, []);
  }, 90_000);
  afterAll(async () => h?.close());

  it('a followed queue the watcher polled is shown without another getQueue', {
    timeout: 60_000,
  }, async () => {
    // Two rounds of polls since the set-up: what the set-up's commands read has expired from the cache.
    await h.trunk.waitForRequest('getQueue', { count: 2 * QUEUES, timeoutMs: 40_000 });
    h.trunk.clearRequests();
    const home = await h.openHome(PEOPLE[0]!);
    expect(textOf({ blocks: home.view['blocks'] })).toContain('acme/q9');
    const asked = h.trunkCalls('getQueue').map((r) => JSON.stringify(r.body));
    for (let i = 0; i < QUEUES; i++) expect(asked.some((b) => b.includes(`"q${i}"`))).toBe(false);
  });
});

describe('freeze windows keep their time while twenty people open the Home', () => {
  const clock = { now: Date.parse('2026-06-01T10:58:00Z') };
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      env: { TRUNK_MAX_RPS: '10', SCHEDULER_ENABLED: 'true' },
      slackOptions: { users: manyUsers() },
      app: { clock: () => clock.now, freeze: { tickMs: 40 } },
    });
    await peopleAndQueues(h, PEOPLE);
  }, 90_000);
  afterAll(async () => h?.close());

  const said = () => h.slack.channelMessages('C0FREEZE01').map((m) => textOf(m));

  it('a window starts and ends within 30 s while twenty Homes are opened at each edge', {
    timeout: 90_000,
  }, async () => {
    const added = await h.sendCommand('freeze add acme/q0:main 11:00-12:00 UTC pause Release', {
      user: USERS.admin,
      channel: 'C0FREEZE01',
    });
    expect(added.status).toBe(200);
    const id = /`(f[a-z0-9]{5})`/.exec(
      await h.slack.waitFor(() => said().find((t) => /added freeze window/.test(t))),
    )![1]!;

    for (const [edge, iso, state] of [
      ['started', '2026-06-01T11:00:01Z', 'paused'],
      ['ended', '2026-06-01T12:00:01Z', 'running'],
    ] as const) {
      // Twenty people open the Home as the window's time comes: the queues' reads are spent at once.
      const homes = Promise.all(PEOPLE.map((u) => h.openHome(u)));
      const from = Date.now();
      clock.now = Date.parse(iso);
      const told = await h.slack.waitFor(
        () => said().find((t) => new RegExp(`${id}.*${edge}`).test(t)),
        30_000,
      );
      expect(told).toBeTruthy();
      expect(Date.now() - from).toBeLessThan(30_000);
      expect(h.trunk.queue('acme/q0', 'main')!.state).toBe(state);
      await homes;
    }
    expect(await metric(h, 'mergequeue_trunk_budget_overdrafts_total')).toBe(0);
  });
});

describe('prs asks Trunk only for what it shows', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/big', 'main', { state: 'running' });
    const now = Date.now();
    for (let n = 1; n <= 500; n++)
      h.trunk.enqueuePr('acme/big', 'main', {
        prNumber: n,
        state: n % 2 ? 'merged' : 'pending',
        stateChangedAt: new Date(now - (n % 2 ? n * 3_600_000 : 0)).toISOString(),
      });
  });
  afterAll(async () => h?.close());

  it('a concluded state is asked for the last week only; a long queue is read three pages deep', async () => {
    await h.reset();
    const merged = await h.sendCommand('prs acme/big:main merged', { channel: 'C0PRSLIST1' });
    const text = textOf(await h.reply(merged.responseUrl, 10_000));
    const [first] = h.trunkCalls('listPullRequests');
    const body = first!.body as { state?: string; since?: string };
    expect(body.state).toBe('merged');
    // Merged in the last week only: 84 of the 250 merged PRs, and the reply says since when.
    expect(Date.now() - Date.parse(body.since!)).toBeGreaterThan(7 * 24 * 3_600_000 - 60_000);
    expect(Date.now() - Date.parse(body.since!)).toBeLessThan(7 * 24 * 3_600_000 + 60_000);
    expect(text).toMatch(/84 PRs merged since \d{4}-\d{2}-\d{2}/);

    await h.reset();
    const open = await h.sendCommand('prs acme/big:main', { channel: 'C0PRSLIST1' });
    const openText = textOf(await h.reply(open.responseUrl, 10_000));
    // Five hundred rows, three pages read: the rest is counted as "at least".
    expect(h.trunkCalls('listPullRequests')).toHaveLength(3);
    expect(openText).toMatch(/At least 150 PRs/);
  });
});
