/**
 * Queue events through the real wire: signed slash commands to /slack/events, the watcher polling the
 * Trunk fake (whose queues the test changes directly, as Trunk's web app or Trunk itself would), and what
 * the fake Slack records: feed posts, live status messages edited in place, and DMs to linked authors.
 * The app's clock is injected, so a watch interval or a live period passes at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { clickThroughReasonModal } from '../../helpers/reason-modal.ts';
import { feedPosts } from '../../helpers/slack-posts.ts';

let h: Harness;
const clock = { now: Date.now() };
let n = 0;

beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now } });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** Each test its own queue and channel: watches and live messages of earlier tests stay in the store. */
function fresh(prs: Array<{ prNumber: number; prAuthor?: string; state?: string }> = []) {
  n++;
  const repo = `acme/svc${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 2 }, prs);
  return { repo, target: `${repo}:main`, channel: `C0FEED${String(n).padStart(4, '0')}` };
}

/** One watch interval passes and the watcher (and the live-message expiry) runs once. */
async function interval(seconds = 21) {
  clock.now += seconds * 1000;
  await h.app!.events!.tick();
}

async function command(text: string, opts: { user?: string; channel?: string } = {}) {
  const sent = await h.sendCommand(text, opts);
  expect(sent.status).toBe(200);
  return textOf((await h.reply(sent.responseUrl)) as { text?: unknown; blocks?: unknown });
}

/** What the feed posted: the `watch` command's own announcement of a feed change (issue 19) is not counted. */
const posts = (channel: string) => feedPosts(h.slack, channel);
const lastPost = (channel: string): FakeMessage | undefined => posts(channel).at(-1);

describe('channel feed', () => {
  it('a change made in Trunk itself is announced as changed outside Slack; one made from Slack names who', async () => {
    const q = fresh();
    expect(await command(`watch ${q.target}`, { channel: q.channel })).toContain('follows');
    await interval(); // the first look sets a baseline and announces nothing
    expect(posts(q.channel)).toHaveLength(0);

    h.trunk.patchQueue(q.repo, 'main', { state: 'paused' });
    await interval();
    const outside = await h.slack.waitFor(() => lastPost(q.channel));
    expect(textOf(outside)).toContain('changed outside Slack');
    expect(textOf(outside)).toMatch(/state.*running.*→.*paused/s);
    assertValidMessage(outside.blocks);

    await h.sendCommand(`resume ${q.target} fixed`, { user: USERS.admin, channel: q.channel });
    await h.slack.waitFor(() => posts(q.channel)[1]); // the command's own announcement
    await interval();
    const ours = await h.slack.waitFor(() => posts(q.channel)[2]);
    expect(textOf(ours)).toContain(`changed by <@${USERS.admin}>`);
    expect(textOf(ours)).not.toContain('outside Slack');
  });

  it('a burst of events of one queue becomes one message', async () => {
    const q = fresh();
    await command(`watch ${q.target} submitted testing`, { channel: q.channel });
    await interval();
    for (const pr of [11, 12, 13, 14])
      h.trunk.enqueuePr(q.repo, 'main', { prNumber: pr, prAuthor: 'kim', state: 'pending' });
    await interval();
    const post = await h.slack.waitFor(() => lastPost(q.channel));
    await h.idle();
    expect(posts(q.channel)).toHaveLength(1);
    expect(textOf(post)).toContain('4 updates');
    for (const pr of [11, 12, 13, 14]) expect(textOf(post)).toContain(`#${pr}`);
    assertValidMessage(post.blocks);
  });

  it('watch list, unwatch, and bad input that says what to type and changes nothing', async () => {
    const q = fresh();
    const bad = await command(`watch ${q.target} bogus`, { channel: q.channel });
    expect(bad).toContain('`bogus` is not something to watch');
    expect(bad).toContain('Type it as');
    expect(await command(`watch ${q.target} stuck soon`, { channel: q.channel })).toContain(
      'number of minutes',
    );
    expect(await command('watch list', { channel: q.channel })).toContain('follows no queue');

    await command(`watch ${q.target} merged health stuck 30`, { channel: q.channel });
    const list = await command('watch list', { channel: q.channel });
    expect(list).toContain(q.target);
    expect(list).toContain('`merged`');
    expect(list).toContain('stuck after 30 min');
    expect(await command('unwatch', { channel: q.channel })).toContain('no longer follows');
    expect(await command('watch list', { channel: q.channel })).toContain('follows no queue');
    const audit = await h.app!.store.listAudit(TEAM, { limit: 5 });
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['watch', 'unwatch']));
  });
});

describe('notes to authors', () => {
  it('a linked author gets a DM when their PR starts testing, and none after `me notify off`', async () => {
    const q = fresh([{ prNumber: 1, prAuthor: 'mara-gh', state: 'pending' }]);
    expect(await command('me github mara-gh', { user: USERS.member })).toContain('linked to GitHub login');
    await command(`watch ${q.target} testing`, { channel: q.channel });
    await interval();

    h.trunk.patchQueue(q.repo, 'main', {
      enqueuedPullRequests: [
        { ...h.trunk.queue(q.repo, 'main')!.enqueuedPullRequests![0]!, state: 'testing' },
      ],
    });
    await interval();
    const dm = await h.slack.waitFor(() => posts(USERS.member)[0]);
    expect(textOf(dm)).toContain('Your PR');
    expect(textOf(dm)).toContain('#1');
    expect(textOf(dm)).toContain('started testing');
    assertValidMessage(dm.blocks);

    expect(await command('me notify off', { user: USERS.member })).toContain('off');
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 2, prAuthor: 'mara-gh', state: 'testing' });
    await interval();
    // The channel hears of #2 testing, so the event was delivered; the author, having opted out, does not.
    await h.slack.waitFor(() => posts(q.channel).find((m) => textOf(m).includes('#2')));
    await h.idle();
    expect(posts(USERS.member)).toHaveLength(1);
  });

  it('a self-linked login cannot be claimed by another person; only an operator moves it', async () => {
    await command('me github devon-gh', { user: USERS.member });
    const taken = await command('me github devon-gh', { user: USERS.operator });
    expect(taken).toContain('already linked to someone else');
    expect(taken).toContain('config people');
    expect(await command('me', { user: USERS.operator })).toContain('not linked');

    const refused = await command(`config people <@${USERS.operator}|otto> devon-gh`, { user: USERS.member });
    expect(refused).toContain("You can't link people");
    expect(await command('me', { user: USERS.member })).toContain('devon-gh');

    const settled = await command(`config people <@${USERS.operator}|otto> devon-gh`, { user: USERS.admin });
    expect(settled).toContain('confirmed by an operator');
    expect(await command('me', { user: USERS.operator })).toContain('confirmed by an operator');
    expect(await command('me', { user: USERS.member })).toContain('not linked');

    const audit = await h.app!.store.listAudit(TEAM, { limit: 20 });
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'me.github', outcome: 'refused', userId: USERS.operator }),
        expect.objectContaining({ action: 'config.people', outcome: 'refused', userId: USERS.member }),
        expect.objectContaining({ action: 'config.people', outcome: 'ok', userId: USERS.admin }),
      ]),
    );
  });

  it('me: bad input says what to type', async () => {
    expect(await command('me github not_a/login', { user: USERS.member })).toContain('is not a GitHub login');
    expect(await command('me notify maybe', { user: USERS.member })).toContain('`on` or `off`');
    expect(await command('config people devon-gh', { user: USERS.admin })).toContain('Mention one person');
  });
});

describe('live status messages', () => {
  it('are updated in place after a change (drawn from the poll: no Trunk read more), then marked no longer live', async () => {
    const q = fresh();
    await h.sendCommand(`status ${q.target}`, { channel: q.channel });
    await h.sendCommand(`status ${q.target}`, { channel: q.channel });
    const [a, b] = await h.slack.waitFor(() =>
      posts(q.channel).length === 2 ? posts(q.channel) : undefined,
    );
    expect(textOf(a)).toContain('live · updated');
    await interval();

    h.trunk.patchQueue(q.repo, 'main', { concurrency: 7 });
    h.trunk.clearRequests();
    await interval();
    for (const m of [a!, b!]) {
      const now = await h.slack.waitFor(() => {
        const x = h.slack.message(q.channel, m.ts);
        return x && x.history.length === 1 ? x : undefined;
      });
      expect(textOf(now)).toContain('*Concurrency*\n7');
      expect(textOf(now)).toContain('live · updated');
      assertValidMessage(now.blocks);
    }
    // The poll's read draws them: no read beyond the poll, however many live messages show the queue.
    const reads = h
      .trunkCalls('getQueue')
      .filter((r) => JSON.stringify(r.body).includes(q.repo.split('/')[1]!));
    expect(reads).toHaveLength(1);
    expect(posts(q.channel)).toHaveLength(2);

    await interval(12 * 3600);
    const ended = await h.slack.waitFor(() => {
      const x = h.slack.message(q.channel, a!.ts);
      return x && x.history.length === 2 ? x : undefined;
    });
    expect(textOf(ended)).toContain('no longer live');
    expect(textOf(ended)).not.toContain('live · updated');
    expect(findAction(ended.blocks ?? [], 'mq_refresh')).toBeDefined();
  });
});

describe('health alerts', () => {
  it('a stuck queue alerts once with Status, Pause and Drain; Pause works as on the status message (through its reason modal); recovered once', async () => {
    const q = fresh([{ prNumber: 5, prAuthor: 'lee', state: 'pending' }]);
    // A stuck threshold under 10 minutes is for operators (issue 19).
    await command(`watch ${q.target} health stuck 2`, { channel: q.channel, user: USERS.admin });
    await interval();
    await interval(60);
    expect(posts(q.channel)).toHaveLength(0);
    await interval(70);
    const alert = await h.slack.waitFor(() => lastPost(q.channel));
    expect(textOf(alert)).toContain('looks stuck');
    for (const id of ['mq_refresh', 'mq_pause', 'mq_drain'])
      expect(findAction(alert.blocks ?? [], id)).toBeDefined();
    assertValidMessage(alert.blocks);
    await interval();
    await h.idle();
    expect(posts(q.channel)).toHaveLength(1);

    await clickThroughReasonModal(h, { message: alert, actionId: 'mq_pause', user: USERS.admin });
    await h.slack.waitFor(() => posts(q.channel)[1]); // the announcement
    expect(h.trunk.queue(q.repo, 'main')!.state).toBe('paused');
    expect(textOf(h.slack.message(q.channel, alert.ts))).toContain(`<@${USERS.admin}> paused this`);

    await interval();
    const recovered = await h.slack.waitFor(() => posts(q.channel)[2]);
    expect(textOf(recovered)).toContain('recovered');
    assertValidMessage(recovered.blocks);
    await interval();
    await h.idle();
    expect(posts(q.channel)).toHaveLength(3);
  });
});

describe('the paused reminder (PAUSED_REMINDER_HOURS, default 4)', () => {
  const HOUR = 3600;
  // The alert's buttons are the status message's for that state: a paused queue offers Resume (Drain and
  // Pause are for a running one), a draining one Pause and Resume.
  it.each([
    ['paused', ['mq_refresh', 'mq_resume'], ['mq_pause', 'mq_drain']],
    ['draining', ['mq_refresh', 'mq_pause', 'mq_resume'], ['mq_drain']],
  ] as const)(
    'a queue %s for more than 4 hours alerts once with its buttons; Resume on the alert works; recovered once',
    async (state, buttons, absent) => {
      // A PR waits the whole time: a halted queue is not "stuck", and resuming it must not make it so at once.
      const q = fresh([{ prNumber: 8, prAuthor: 'lee', state: 'pending' }]);
      await command(`watch ${q.target} health`, { channel: q.channel });
      await interval();
      h.trunk.patchQueue(q.repo, 'main', { state }); // in Trunk's web app
      await interval();
      await interval(4 * HOUR - 60);
      await h.idle();
      expect(posts(q.channel)).toHaveLength(0);

      await interval(2 * 60);
      const alert = await h.slack.waitFor(() => lastPost(q.channel));
      expect(textOf(alert)).toContain(`has been ${state} for more than 4 hours`);
      expect(textOf(alert)).toContain('1 PR waiting');
      for (const id of buttons) expect(findAction(alert.blocks ?? [], id)).toBeDefined();
      for (const id of absent) expect(findAction(alert.blocks ?? [], id)).toBeUndefined();
      assertValidMessage(alert.blocks);
      await interval();
      await interval(HOUR);
      await h.idle();
      expect(posts(q.channel)).toHaveLength(1);

      const click = await h.clickButton({ message: alert, actionId: 'mq_resume', user: USERS.admin });
      expect(click.status).toBe(200);
      await h.slack.waitFor(() => posts(q.channel)[1]); // the announcement
      expect(h.trunk.queue(q.repo, 'main')!.state).toBe('running');

      await interval();
      const recovered = await h.slack.waitFor(() => posts(q.channel)[2]);
      expect(textOf(recovered)).toContain('recovered');
      expect(textOf(recovered)).toContain(`it is running again (it was ${state};`);
      assertValidMessage(recovered.blocks);
      await interval();
      await interval(HOUR / 2);
      await h.idle();
      expect(posts(q.channel)).toHaveLength(3);
    },
  );
});

describe('what `watch` follows by default', () => {
  it('`watch` with no topics delivers state, failed and health, and not submitted, testing or merged; no DM to an unlinked author', async () => {
    const q = fresh([
      { prNumber: 21, prAuthor: 'kim', state: 'testing' },
      { prNumber: 22, prAuthor: 'kim', state: 'testing' },
      { prNumber: 23, prAuthor: 'kim', state: 'pending' },
    ]);
    // A second channel follows every PR topic, so the events the default leaves out provably happened.
    const all = `${q.channel}A`;
    await command(`watch ${q.target}`, { channel: q.channel });
    await command(`watch ${q.target} submitted testing merged`, { channel: all });
    await interval();

    h.trunk.patchQueue(q.repo, 'main', { concurrency: 3 }); // state
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 24, prAuthor: 'kim', state: 'pending' }); // submitted
    for (const [pr, fate] of [
      [21, 'merged'],
      [22, 'failed'],
    ] as const) {
      h.trunk.dequeuePr(q.repo, 'main', pr);
      h.trunk.addSubmittedPr(q.repo, 'main', {
        prNumber: pr,
        prAuthor: 'kim',
        state: fate,
        isCurrentlySubmittedToQueue: false,
      });
    }
    const queue = h.trunk.queue(q.repo, 'main')!;
    h.trunk.patchQueue(q.repo, 'main', {
      enqueuedPullRequests: queue.enqueuedPullRequests!.map((p) =>
        p.prNumber === 23 ? { ...p, state: 'testing' } : p,
      ),
    }); // testing
    await interval();

    const others = await h.slack.waitFor(() => lastPost(all));
    for (const seen of ['#24>', 'entered the queue', '#23>', 'started testing', '#21>', 'merged'])
      expect(textOf(others)).toContain(seen);
    const feed = await h.slack.waitFor(() => lastPost(q.channel));
    await h.idle();
    expect(posts(q.channel)).toHaveLength(1);
    expect(textOf(feed)).toContain('2 updates');
    expect(textOf(feed)).toMatch(/concurrency.*2.*→.*3/s);
    expect(textOf(feed)).toContain('#22');
    expect(textOf(feed)).toContain('failed');
    for (const absent of ['#21', '#23', '#24', 'entered the queue', 'started testing', 'merged'])
      expect(textOf(feed)).not.toContain(absent);
    // kim linked no Slack account: their PR's testing, merge and failure reach the channels and nobody else.
    expect(new Set(h.slack.messages.map((m) => m.channel))).toEqual(new Set([q.channel, all]));

    // Health: #24 waits and nothing moves for longer than STUCK_MINUTES (default 45).
    await interval(46 * 60);
    const stuck = await h.slack.waitFor(() => posts(q.channel)[1]);
    expect(textOf(stuck)).toContain('looks stuck');
  });
});
