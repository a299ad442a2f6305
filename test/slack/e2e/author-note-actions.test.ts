/**
 * What a failed event says of the failure, in the channel feed and the author's note, through the real
 * wire: the watcher polls the Trunk fake (where the test fails a PR as Trunk would) and the fake Slack
 * records the posts and DMs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import { PeopleRepository } from '../../../src/watch/index.ts';
import { defaultUsers, type Harness, startHarness, TEAM, textOf, USERS } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';

/** Linked by an operator (`config people`): may act on their PRs. */
const AUTHOR = { id: 'UAUTHOR001', name: 'alice', login: 'alice-gh' };
/** Linked themselves (`me github`): notes only. */
const CLAIMER = { id: 'UCLAIM0001', name: 'carl', login: 'carl-gh' };

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
      ],
    },
  });
  const linked = await new PeopleRepository(h.app!.store.db).link({
    workspaceId: TEAM,
    userId: AUTHOR.id,
    githubLogin: AUTHOR.login,
    linkedBy: USERS.admin,
    verified: true,
    now: Date.now(),
  });
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
function leaves(q: ReturnType<typeof fresh>, prNumber: number, login: string, state: string, extra = {}) {
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

/** The note the watcher sends `user` about #prNumber. */
function noteAbout(user: string, prNumber: number): Promise<FakeMessage> {
  return h.slack.waitFor(() => dms(user).find((m) => textOf(m).includes(`#${prNumber}`)));
}

describe('what a failed event says', () => {
  it('with readiness fine, the feed and the note say a required check failed and link the PR checks', async () => {
    const q = fresh();
    await testingPr(q, 20, AUTHOR.login);
    leaves(q, 20, AUTHOR.login, 'failed');
    await interval();
    const post = await h.slack.waitFor(() => h.slack.channelMessages(q.channel)[0]);
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
    const post = await h.slack.waitFor(() => h.slack.channelMessages(q.channel)[0]);
    expect(textOf(post)).toContain('Why, as Trunk reports it');
    expect(textOf(post)).not.toContain('a required check failed');
  });
});
