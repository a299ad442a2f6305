/**
 * What a failed event says of the failure (issue 12), and the buttons of the author's note when a PR fails
 * or is cancelled (issue 14), through the real wire: the watcher polls the Trunk fake (where the test fails
 * a PR as Trunk would), the fake Slack records the posts and DMs, and clicks on the note's buttons are
 * signed block_actions to /slack/events. Also the status message the bot could not post (issue 12).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import { defaultUsers, type Harness, linkVerified, startHarness, TEAM } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { feedPosts as feedPostsIn } from '../../helpers/slack-posts.ts';

/** Linked by an operator (`config people`): may act on their PRs. */
const AUTHOR = { id: 'UAUTHOR001', name: 'alice', login: 'alice-gh' };
/** Linked themselves (`me github`): notes only. */
const CLAIMER = { id: 'UCLAIM0001', name: 'carl', login: 'carl-gh' };
/** Links themselves in a test, then forgets the link. */
const LEAVER = { id: 'ULEAVE0001', name: 'lea', login: 'lea-gh' };

let h: Harness;
const clock = { now: Date.now() };
let n = 0;

beforeAll(async () => {
  h = await startHarness({
    app: { clock: () => clock.now },
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: AUTHOR.id, name: AUTHOR.name, tz: 'UTC' },
        { id: CLAIMER.id, name: CLAIMER.name, tz: 'UTC' },
        { id: LEAVER.id, name: LEAVER.name, tz: 'UTC' },
      ],
    },
  });
  const linked = await linkVerified(h, AUTHOR);
  expect(linked.ok).toBe(true);
  const claimed = await h.sendCommand(`me github ${CLAIMER.login}`, { user: CLAIMER.id });
  expect(textOf(await h.reply(claimed.responseUrl))).toContain('linked to GitHub login');
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** Each test its own queue and channel: watches of earlier tests stay in the store. */
function fresh() {
  n++;
  const repo = `acme/note${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running' });
  return { repo, target: `${repo}:main`, channel: `C0NOTE${String(n).padStart(4, '0')}` };
}

/** One watch interval passes and the watcher runs once. */
async function interval(seconds = 21) {
  clock.now += seconds * 1000;
  await h.app!.events!.tick();
}

/** A PR testing in the queue, watched from a channel, with the watcher's baseline taken. */
async function testingPr(q: ReturnType<typeof fresh>, prNumber: number, login: string) {
  h.trunk.enqueuePr(q.repo, 'main', { prNumber, prAuthor: login, state: 'testing' });
  const sent = await h.sendCommand(`watch ${q.target} failed`, { channel: q.channel });
  expect(textOf(await h.reply(sent.responseUrl))).toContain('follows');
  await interval();
}

/** Trunk takes the PR out of the queue in `state`, as its CI or a person would. */
function leaves(q: { repo: string }, prNumber: number, login: string, state: string, extra = {}) {
  h.trunk.dequeuePr(q.repo, 'main', prNumber);
  h.trunk.addSubmittedPr(q.repo, 'main', {
    prNumber,
    prAuthor: login,
    state: state as never,
    isCurrentlySubmittedToQueue: false,
    ...extra,
  });
}

const dms = (user: string) => h.slack.channelMessages(user);
/** What the feed posted: the `watch` command's own announcement of a feed change (issue 19) is not counted. */
const feedPosts = (channel: string) => feedPostsIn(h.slack, channel);

/** The note the watcher sends `user` about #prNumber. */
function noteAbout(user: string, prNumber: number): Promise<FakeMessage> {
  return h.slack.waitFor(() => dms(user).find((m) => textOf(m).includes(`#${prNumber}`)));
}

/** A watched PR by `login` leaves the queue in `state`: the queue, and the note its author got. */
async function leftWithNote(
  prNumber: number,
  user: { id: string; login: string },
  state: string,
  extra = {},
) {
  const q = fresh();
  await testingPr(q, prNumber, user.login);
  leaves(q, prNumber, user.login, state, extra);
  await interval();
  return { q, note: await noteAbout(user.id, prNumber) };
}

const inQueue = (repo: string, prNumber: number) =>
  (h.trunk.queue(repo, 'main')!.enqueuedPullRequests ?? []).find((p) => p.prNumber === prNumber);

async function lastAudit() {
  const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
  return last;
}

describe("the author's note carries the next steps", () => {
  it('a failed PR: Restart tests and Re-submit; the verified author restarts, the DM is updated in place', async () => {
    const { q, note } = await leftWithNote(10, AUTHOR, 'failed');
    assertValidMessage(note.blocks);
    const blocks = note.blocks ?? [];
    expect(findAction(blocks, 'mq_pr_restart')).toBeDefined();
    expect(findAction(blocks, 'mq_pr_resubmit')).toBeDefined();
    expect(findAction(blocks, 'mq_pr_cancel')).toBeUndefined();
    expect(findAction(blocks, 'mq_open_trunk')?.['url']).toBeDefined();

    h.trunk.clearRequests();
    await h.clickButton({ message: note, actionId: 'mq_pr_restart', user: AUTHOR.id });
    const updated = await h.slack.waitFor(() => {
      const m = h.slack.message(AUTHOR.id, note.ts);
      return m && m.history.length === 1 ? m : undefined;
    });
    await h.idle();
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(1);
    expect(inQueue(q.repo, 10)).toMatchObject({ state: 'testing' });
    expect(textOf(updated)).toMatch(/State\*\ntesting/);
    expect(textOf(updated)).toContain(`<@${AUTHOR.id}> restarted the tests`);
    // Now testing: Cancel fits, Restart no longer does; the buttons stay the note's.
    expect(findAction(updated.blocks ?? [], 'mq_pr_restart')).toBeUndefined();
    expect(findAction(updated.blocks ?? [], 'mq_pr_cancel')).toBeDefined();
    assertValidMessage(updated.blocks);
    // The DM was edited, not answered with a second message.
    expect(dms(AUTHOR.id)).toHaveLength(1);
    expect(await lastAudit()).toMatchObject({ userId: AUTHOR.id, action: 'restart', outcome: 'ok' });

    // Cancel from the redrawn note: confirmed in the modal, the note updated again, still one DM.
    const triggerId = 'trigger-note-cancel-1';
    await h.clickButton({
      message: { channel: AUTHOR.id, ts: note.ts, blocks: updated.blocks ?? [] },
      actionId: 'mq_pr_cancel',
      user: AUTHOR.id,
      triggerId,
    });
    const form = await h.slack.waitFor(() =>
      h.slack.views.find(
        (v) => v.triggerId === triggerId && v.view['callback_id'] === 'mq_pr_cancel_confirm',
      ),
    );
    await h.idle();
    await h.submitView({
      view: form,
      user: AUTHOR.id,
      values: { mq_pr_cancel_reason: { reason: { type: 'plain_text_input', value: 'needs a fix' } } },
    });
    const cancelled = await h.slack.waitFor(() => {
      const m = h.slack.message(AUTHOR.id, note.ts);
      return m && m.history.length === 2 ? m : undefined;
    });
    await h.idle();
    expect(inQueue(q.repo, 10)).toBeUndefined();
    expect(textOf(cancelled)).toMatch(/State\*\ncancelled/);
    expect(findAction(cancelled.blocks ?? [], 'mq_pr_resubmit')).toBeDefined();
    expect(dms(AUTHOR.id)).toHaveLength(1);
  });

  it('a cancelled PR: Re-submit only; Re-submit queues it again', async () => {
    const { q, note } = await leftWithNote(11, AUTHOR, 'cancelled');
    expect(textOf(note)).toContain('was cancelled');
    expect(findAction(note.blocks ?? [], 'mq_pr_restart')).toBeUndefined();
    expect(findAction(note.blocks ?? [], 'mq_pr_resubmit')).toBeDefined();

    await h.clickButton({ message: note, actionId: 'mq_pr_resubmit', user: AUTHOR.id });
    await h.slack.waitFor(() => (h.slack.message(AUTHOR.id, note.ts)?.history.length ? true : undefined));
    await h.idle();
    expect(inQueue(q.repo, 11)).toBeDefined();
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(1);
  });

  it('a PR that moved on before the click: nothing sent, the author told, the note redrawn as it is now', async () => {
    const { q, note } = await leftWithNote(12, AUTHOR, 'failed');
    leaves(q, 12, AUTHOR.login, 'merged');
    h.trunk.clearRequests();
    const click = await h.clickButton({ message: note, actionId: 'mq_pr_restart', user: AUTHOR.id });
    const told = await h.slack.waitFor(() =>
      h.replies(click.responseUrl).find((r) => /already merged/.test(textOf(r))),
    );
    await h.idle();
    expect(textOf(told)).toMatch(/#12 is already merged \(this message showed it failed\)/);
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(0);
    const redrawn = h.slack.message(AUTHOR.id, note.ts)!;
    expect(textOf(redrawn)).toMatch(/State\*\nmerged/);
    expect(findAction(redrawn.blocks ?? [], 'mq_pr_restart')).toBeUndefined();
  });

  it('a double click counts once', async () => {
    const { note } = await leftWithNote(13, AUTHOR, 'failed');
    h.trunk.clearRequests();
    const [a, b] = await Promise.all([
      h.clickButton({ message: note, actionId: 'mq_pr_restart', user: AUTHOR.id }),
      h.clickButton({ message: note, actionId: 'mq_pr_restart', user: AUTHOR.id }),
    ]);
    await h.slack.waitFor(() =>
      [...h.replies(a.responseUrl), ...h.replies(b.responseUrl)].find((r) =>
        /already handled/.test(textOf(r)),
      ),
    );
    await h.idle();
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(1);
  });

  it('a self-linked person gets the note with Open in Trunk only and how to get the buttons; a forged click is refused', async () => {
    const { q, note } = await leftWithNote(14, CLAIMER, 'failed');
    assertValidMessage(note.blocks);
    for (const id of ['mq_pr_restart', 'mq_pr_resubmit', 'mq_pr_cancel'])
      expect(findAction(note.blocks ?? [], id)).toBeUndefined();
    expect(findAction(note.blocks ?? [], 'mq_open_trunk')).toBeDefined();
    expect(textOf(note)).toContain(`/mergequeue config people @you ${CLAIMER.login}`);

    // The value a verified author's note would carry, sent by the claimer: refused, nothing sent.
    const value = JSON.stringify({ t: q.target, n: 14, s: 'failed', v: 1, w: 'note' });
    h.trunk.clearRequests();
    const click = await h.clickButton({ message: note, actionId: 'mq_pr_restart', user: CLAIMER.id, value });
    const refused = await h.reply(click.responseUrl);
    await h.idle();
    expect(refused['response_type']).toBe('ephemeral');
    expect(textOf(refused)).toContain('an operator has not confirmed that link');
    expect(textOf(refused)).toContain('config people');
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(0);
    expect(await lastAudit()).toMatchObject({ userId: CLAIMER.id, action: 'restart', outcome: 'refused' });
  });
});

describe('other notes', () => {
  it('a merge is a note without buttons; after `me forget` no note comes', async () => {
    const q = fresh();
    const ask = async (text: string) =>
      textOf(await h.reply((await h.sendCommand(text, { user: LEAVER.id })).responseUrl));
    expect(await ask(`me github ${LEAVER.login}`)).toContain('linked to GitHub login');
    await testingPr(q, 40, LEAVER.login);
    leaves(q, 40, LEAVER.login, 'merged');
    await interval();
    const note = await noteAbout(LEAVER.id, 40);
    expect(textOf(note)).toContain('merged');
    for (const id of ['mq_pr_restart', 'mq_pr_resubmit', 'mq_pr_cancel', 'mq_open_trunk'])
      expect(findAction(note.blocks ?? [], id)).toBeUndefined();

    expect(await ask('me forget')).toMatch(/forgot|no longer|removed/i);
    expect(await ask('me')).toContain('not linked');
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 41, prAuthor: LEAVER.login, state: 'testing' });
    await interval();
    leaves(q, 41, LEAVER.login, 'failed');
    await interval();
    // The channel hears of #41, so the events were delivered; the person who forgot the link does not.
    await h.slack.waitFor(() => h.slack.channelMessages(q.channel).find((m) => textOf(m).includes('#41')));
    await h.idle();
    expect(dms(LEAVER.id)).toHaveLength(1);
  });
});

describe('what a failed event says', () => {
  it('with readiness fine, the feed and the note say a required check failed and link the PR checks', async () => {
    const q = fresh();
    await testingPr(q, 20, AUTHOR.login);
    leaves(q, 20, AUTHOR.login, 'failed');
    await interval();
    const post = await h.slack.waitFor(() => feedPosts(q.channel)[0]);
    const note = await noteAbout(AUTHOR.id, 20);
    for (const m of [post, note]) {
      expect(textOf(m)).toContain('a required check failed');
      expect(textOf(m)).toContain(`https://github.com/${q.repo}/pull/20/checks`);
      expect(textOf(m)).toContain(`/mergequeue run <id> ${q.target}`);
      assertValidMessage(m.blocks);
    }
  });

  it('with a readiness problem, the feed says what Trunk reports', async () => {
    const q = fresh();
    await testingPr(q, 21, AUTHOR.login);
    leaves(q, 21, AUTHOR.login, 'failed', {
      readiness: {
        requiresImpactedTargets: false,
        doesBaseBranchMatch: true,
        hasImpactedTargets: false,
        gitHubMergeability: 'not_mergeable',
      },
    });
    await interval();
    const post = await h.slack.waitFor(() => feedPosts(q.channel)[0]);
    expect(textOf(post)).toContain('Why, as Trunk reports it');
    expect(textOf(post)).not.toContain('a required check failed');
  });
});

describe('a status message the bot could not post', () => {
  it('falls back to response_url without claiming to be live', async () => {
    const q = fresh();
    h.slack.setChannel({ id: 'CPRIVNOTE1', isPrivate: true, isMember: false });
    const sent = await h.sendCommand(`status ${q.target}`, { channel: 'CPRIVNOTE1' });
    const reply = await h.reply(sent.responseUrl);
    expect(reply['response_type']).toBe('in_channel');
    expect(textOf(reply)).toContain(q.target);
    expect(textOf(reply)).not.toMatch(/\blive\b/);

    // Where the bot can post, the same command's message is live (and registered).
    const posted = await h.sendCommand(`status ${q.target}`, { channel: q.channel });
    expect(posted.status).toBe(200);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(q.channel)[0]);
    expect(textOf(msg)).toContain('live · updated');
  });

  it('a posted message whose registration failed is redrawn as not live', async () => {
    const q = fresh();
    // The store refuses the registration once (as a stalled database would).
    const register = vi.spyOn(h.app!.events!.live, 'register').mockRejectedValueOnce(new Error('store down'));
    try {
      await h.sendCommand(`status ${q.target}`, { channel: q.channel });
      const msg = await h.slack.waitFor(() => {
        const m = h.slack.channelMessages(q.channel)[0];
        return m && m.history.length === 1 ? m : undefined;
      });
      expect(textOf(msg)).toContain(q.target);
      expect(textOf(msg)).not.toMatch(/\blive\b/);
      expect(await h.app!.events!.live.isLive(TEAM, q.channel, msg.ts)).toBe(false);
    } finally {
      register.mockRestore();
    }
  });
});

describe('help', () => {
  it('says that status messages are live, what watch follows by default, and what a confirmed link adds', async () => {
    const ask = async (text: string) => textOf(await h.reply((await h.sendCommand(text)).responseUrl));
    expect(await ask('help status')).toContain('live · updated');
    expect(await ask('help watch')).toContain('Default: `state failed health`');
    const me = await ask('help me');
    expect(me).toContain('Restart tests and Re-submit buttons');
    expect(me).toContain('config people');
  });
});

describe('metrics', () => {
  it('count watched queues, polls, events by kind and destination, and Trunk calls of the watcher', async () => {
    await leftWithNote(30, AUTHOR, 'failed');
    await h.idle();
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toMatch(/^mergequeue_watched_queues [1-9]/m);
    expect(text).toMatch(/^mergequeue_watch_polls_total\{outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^mergequeue_watch_events_total\{kind="failed",destination="author"\} [1-9]/m);
    expect(text).toMatch(/^mergequeue_watch_events_total\{kind="failed",destination="channel"\} [1-9]/m);
    expect(text).toMatch(
      /^mergequeue_trunk_calls_by_caller_total\{caller="watch",operation="getQueue"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^mergequeue_trunk_calls_by_caller_total\{caller="watch",operation="getSubmittedPullRequest"\} [1-9]/m,
    );
  });
});

describe('the cost of followers', () => {
  it('a queue followed by one channel and one followed by 5 channels and 5 live messages cost the same Trunk calls', async () => {
    const one = fresh();
    const many = fresh();
    await h.sendCommand(`watch ${one.target} state submitted testing merged failed`, {
      channel: one.channel,
    });
    for (let i = 0; i < 5; i++) {
      const channel = `${many.channel}X${i}`;
      await h.sendCommand(`watch ${many.target} state submitted testing merged failed`, { channel });
      await h.sendCommand(`status ${many.target}`, { channel });
      await h.slack.waitFor(() => h.slack.channelMessages(channel).find((m) => textOf(m).includes('live')));
    }
    await h.idle();
    await interval();
    h.trunk.clearRequests();
    // The same story in both queues: a setting changes, a PR enters, tests, fails.
    const steps: Array<(repo: string) => void> = [
      (repo) => h.trunk.patchQueue(repo, 'main', { concurrency: 5 }),
      (repo) => h.trunk.enqueuePr(repo, 'main', { prNumber: 50, prAuthor: AUTHOR.login, state: 'pending' }),
      (repo) => {
        h.trunk.dequeuePr(repo, 'main', 50);
        h.trunk.enqueuePr(repo, 'main', { prNumber: 50, prAuthor: AUTHOR.login, state: 'testing' });
      },
      (repo) => leaves({ repo }, 50, AUTHOR.login, 'failed'),
    ];
    for (const step of steps) {
      step(one.repo);
      step(many.repo);
      await interval();
      await h.idle();
    }
    const callsOf = (repo: string) =>
      h.trunk.requests
        .filter((r) => JSON.stringify(r.body).includes(`"name":"${repo.split('/')[1]}"`))
        .map((r) => r.operation)
        .sort();
    expect(callsOf(one.repo).length).toBeGreaterThan(steps.length);
    expect(callsOf(many.repo)).toEqual(callsOf(one.repo));
    // The followers did hear: every live message was redrawn.
    for (let i = 0; i < 5; i++) {
      const live = h.slack.channelMessages(`${many.channel}X${i}`).find((m) => m.history.length > 0);
      expect(textOf(live)).toContain('live · updated');
    }
  });
});
