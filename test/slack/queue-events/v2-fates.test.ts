/**
 * Issue 20 through the real wire: with a v2 key, the author's note and the channel feed say why a PR left
 * the queue and the next step (the same words as `why`), read in one history batch per poll; a late read
 * goes out with v1's words and is edited in place; a failed read leaves v1's words. `status` and live status
 * messages list the queue in Trunk's dispatch order, v1's list when the order cannot be read. Without a v2
 * key, nothing changes and no v2 request is made. Every v2 request validates against Trunk's OpenAPI subset.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  linkVerified,
  startHarness,
  USERS,
} from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { feedPosts as feedPostsIn } from '../../helpers/slack-posts.ts';
import { v2RequestErrors } from '../../trunk/openapi-v2.ts';

const KEY = 'trunk_v2_eventstestkey0001';
const AUTHOR = { id: 'UAUTHV2001', name: 'vera', login: 'vera-gh' };

interface Setup {
  h: Harness;
  clock: { now: number };
  n: number;
}

async function start(withKey: boolean): Promise<Setup> {
  const clock = { now: Date.now() };
  const h = await startHarness({
    app: { clock: () => clock.now },
    env: withKey ? { TRUNK_API_KEY: KEY } : {},
    slackOptions: { users: [...defaultUsers(), { id: AUTHOR.id, name: AUTHOR.name, tz: 'UTC' }] },
  });
  h.trunk.v2.setKeys({ [KEY]: [] });
  const linked = await linkVerified(h, AUTHOR);
  expect(linked.ok).toBe(true);
  return { h, clock, n: 0 };
}

function fresh(s: Setup) {
  s.n++;
  const repo = `acme/fate${s.n}`;
  s.h.trunk.addQueue(repo, 'main', { state: 'running' });
  return { repo, target: `${repo}:main`, channel: `C0FATE${String(s.n).padStart(4, '0')}` };
}

async function interval(s: Setup, seconds = 21) {
  s.clock.now += seconds * 1000;
  await s.h.app!.events!.tick();
}

/** PRs testing in a watched queue, with the watcher's baseline taken. */
async function testingPrs(s: Setup, q: ReturnType<typeof fresh>, prs: number[]) {
  for (const prNumber of prs)
    s.h.trunk.enqueuePr(q.repo, 'main', { prNumber, prAuthor: AUTHOR.login, state: 'testing' });
  const sent = await s.h.sendCommand(`watch ${q.target} failed`, { channel: q.channel });
  expect(textOf(await s.h.reply(sent.responseUrl))).toContain('follows');
  await interval(s);
}

function leaves(s: Setup, q: { repo: string }, prNumber: number, state: 'failed' | 'cancelled') {
  s.h.trunk.dequeuePr(q.repo, 'main', prNumber);
  s.h.trunk.addSubmittedPr(q.repo, 'main', {
    prNumber,
    prAuthor: AUTHOR.login,
    state,
    isCurrentlySubmittedToQueue: false,
  });
}

const iso = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

function failedHistory(reason: string | null, failed: Record<string, unknown> = {}) {
  return [
    {
      state: 'pending',
      changedAt: iso(30),
      reason: 'MERGE_ITEM_NOW_READY',
      actor: { gitHubLogin: AUTHOR.login },
    },
    { state: 'testing', changedAt: iso(20), reason: null },
    {
      state: 'failed',
      changedAt: iso(0),
      reason,
      failed: { failureCausingChecks: [], blockReasons: [], ...failed },
    },
  ];
}

const feedPosts = (h: Harness, channel: string) => feedPostsIn(h.slack, channel);
const noteAbout = (h: Harness, prNumber: number): Promise<FakeMessage> =>
  h.slack.waitFor(() => h.slack.channelMessages(AUTHOR.id).find((m) => textOf(m).includes(`#${prNumber}`)));

function v2Calls(h: Harness) {
  return h.trunkCalls().filter((r) => r.path.startsWith('/v2/'));
}

/** Every v2 request the app made is one of Trunk's documented operations, with valid parameters. */
function expectValidV2(h: Harness) {
  for (const r of v2Calls(h)) expect(v2RequestErrors(r.method, r.path), r.path).toEqual([]);
}

describe('with a v2 key', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await start(true);
  });
  afterAll(async () => s?.h.close());
  beforeEach(async () => {
    await s.h.reset();
  });

  it('the note and the feed say the same: the reason, the failing checks, the next step, with the buttons', async () => {
    const { h } = s;
    const q = fresh(s);
    await testingPrs(s, q, [101]);
    h.trunk.v2.setHistory(
      q.repo,
      101,
      failedHistory('TEST_RUN_REQUIRED_STATUS_FAILED', {
        failureCausingChecks: [
          { name: 'ci/unit-tests', url: 'https://ci.example/run/9', conclusion: 'failure' },
        ],
      }),
    );
    leaves(s, q, 101, 'failed');
    await interval(s);
    const post = await h.slack.waitFor(() => feedPosts(h, q.channel)[0]);
    const note = await noteAbout(h, 101);
    for (const m of [post, note]) {
      const t = textOf(m);
      expect(t).toContain('It failed: a required check failed.');
      expect(t).toContain('ci/unit-tests');
      expect(t).toContain('https://ci.example/run/9');
      expect(t).toContain('It failed on its own, not because of a PR ahead of it.');
      expect(t).toContain('Next step:* fix what the failing checks report and push; then Re-submit.');
      expect(t).not.toContain('/mergequeue run <id>');
      assertValidMessage(m.blocks);
    }
    // The note keeps today's buttons.
    expect(findAction(note.blocks, 'mq_pr_resubmit')).toBeDefined();
    // One id lookup and one history batch for the poll, whoever is told.
    expect(h.trunkCalls('pullRequests.queueEntryHistoryBatch')).toHaveLength(1);
    expect(h.trunkCalls('pullRequests.queueEntryHistory')).toHaveLength(0);
    expectValidV2(h);
  });

  it('several PRs leaving in one poll: one history batch; a conflict names the PR, an unknown reason is shown as sent', async () => {
    const { h } = s;
    const q = fresh(s);
    await testingPrs(s, q, [111, 112, 113]);
    h.trunk.v2.setHistory(
      q.repo,
      111,
      failedHistory('START_TEST_RUN_MERGE_CONFLICT', {
        conflictCulprit: { kind: 'pullRequest', sha: 'abc123', number: 77 },
      }),
    );
    h.trunk.v2.setHistory(q.repo, 112, failedHistory('SOMETHING_TRUNK_ADDED_LATER'));
    h.trunk.v2.setHistory(q.repo, 113, [
      { state: 'pending', changedAt: iso(30), reason: 'MERGE_ITEM_NOW_READY' },
      { state: 'cancelled', changedAt: iso(0), reason: 'PR_PUSHED_TO', actor: { gitHubLogin: AUTHOR.login } },
    ]);
    for (const pr of [111, 112]) leaves(s, q, pr, 'failed');
    leaves(s, q, 113, 'cancelled');
    await interval(s);
    const conflict = await noteAbout(h, 111);
    expect(textOf(conflict)).toContain('It failed: a merge conflict with');
    expect(textOf(conflict)).toContain('#77');
    expect(textOf(conflict)).toContain('rebase on the target branch');
    const unknown = await noteAbout(h, 112);
    expect(textOf(unknown)).toContain('SOMETHING_TRUNK_ADDED_LATER');
    const cancelled = await noteAbout(h, 113);
    expect(textOf(cancelled)).toContain('new commits were pushed to the PR');
    expect(textOf(cancelled)).toContain('Re-submit when it is ready');
    // The channel got one message for the burst, each line with its reason.
    const post = await h.slack.waitFor(() => feedPosts(h, q.channel)[0]);
    await h.idle();
    expect(feedPosts(h, q.channel)).toHaveLength(1);
    expect(textOf(post)).toContain('it has a merge conflict');
    expect(textOf(post)).toContain('new commits were pushed to the PR');
    for (const m of [post, conflict, unknown, cancelled]) assertValidMessage(m.blocks);
    expect(h.trunkCalls('pullRequests.queueEntryHistoryBatch')).toHaveLength(1);
    expect(h.trunkCalls('pullRequests.resolveByCoordinates').length).toBeLessThanOrEqual(1);
    expectValidV2(h);
  });

  it('50 PRs failing in one poll cost one PR lookup and one history batch once the queue is known', async () => {
    const { h } = s;
    const q = fresh(s);
    const numbers = Array.from({ length: 51 }, (_, i) => 300 + i);
    for (const prNumber of numbers)
      h.trunk.enqueuePr(q.repo, 'main', { prNumber, prAuthor: 'nobody-linked', state: 'testing' });
    const sent = await h.sendCommand(`watch ${q.target} failed`, { channel: q.channel });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('follows');
    await interval(s);
    const leave = (n: number) => {
      h.trunk.v2.setHistory(q.repo, n, failedHistory('TEST_RUN_REQUIRED_STATUS_FAILED'));
      h.trunk.dequeuePr(q.repo, 'main', n);
      h.trunk.addSubmittedPr(q.repo, 'main', {
        prNumber: n,
        prAuthor: 'nobody-linked',
        state: 'failed',
        isCurrentlySubmittedToQueue: false,
      });
    };
    leave(numbers[0]!); // the first failure: the queue's ids are looked up once
    await interval(s);
    await h.slack.waitFor(() => feedPosts(h, q.channel)[0]);
    await h.idle();
    h.trunk.clearRequests();
    for (const n of numbers.slice(1)) leave(n);
    await interval(s);
    const post = await h.slack.waitFor(() => feedPosts(h, q.channel)[1]);
    expect(textOf(post)).toContain('50 updates');
    expect(textOf(post)).toContain('a required check failed');
    await h.idle();
    // What became of them came from the same batch: no v1 read per PR.
    expect(h.trunkCalls('getSubmittedPullRequest')).toHaveLength(0);
    const calls = v2Calls(h).map((r) => r.operation);
    expect(calls.sort()).toEqual([
      'pullRequests.queueEntryHistoryBatch',
      'pullRequests.resolveByCoordinates',
    ]);
    expectValidV2(h);
  });

  it('a late read: the note goes out with v1 words at once and is edited in place when the reason comes', async () => {
    const { h } = s;
    const q = fresh(s);
    await testingPrs(s, q, [121]);
    h.trunk.v2.setHistory(q.repo, 121, failedHistory('TEST_RUN_TIMEOUT'));
    h.trunk.v2.delayNext('pullRequests.queueEntryHistoryBatch', 5_000);
    leaves(s, q, 121, 'failed');
    const started = Date.now();
    await interval(s);
    const note = await noteAbout(h, 121);
    const post = await h.slack.waitFor(() => feedPosts(h, q.channel)[0]);
    // Held no longer than the short wait for the reason (far inside two watch intervals).
    expect(Date.now() - started).toBeLessThan(4_500);
    for (const m of [note, post]) {
      expect(textOf(m)).toContain('a required check failed');
      expect(textOf(m)).not.toContain('timed out');
    }
    for (const m of [note, post]) {
      await h.slack.waitFor(() => (textOf(m).includes('the test run timed out') ? m : undefined), 10_000);
      expect(m.history.length).toBe(1);
      expect(textOf(m)).toContain('Restart tests if the run was slow by chance');
      assertValidMessage(m.blocks);
    }
    expect(findAction(note.blocks, 'mq_pr_resubmit')).toBeDefined();
    // Still one message each: edited in place, not posted again.
    expect(feedPosts(h, q.channel)).toHaveLength(1);
    expect(h.slack.channelMessages(AUTHOR.id).filter((m) => textOf(m).includes('#121'))).toHaveLength(1);
    expectValidV2(h);
  });

  it('a failed read (403): v1 words stay and nothing is edited', async () => {
    const { h } = s;
    const q = fresh(s);
    await testingPrs(s, q, [131]);
    h.trunk.v2.setHistory(q.repo, 131, failedHistory('TEST_RUN_TIMEOUT'));
    h.trunk.v2.failNext(
      'pullRequests.queueEntryHistoryBatch',
      403,
      'INSUFFICIENT_PERMISSIONS',
      'Missing permission: Read merge queue',
    );
    leaves(s, q, 131, 'failed');
    await interval(s);
    const note = await noteAbout(h, 131);
    expect(textOf(note)).toContain('a required check failed');
    await h.idle();
    await new Promise((r) => setTimeout(r, 300));
    expect(note.history).toHaveLength(0);
    expect(textOf(note)).not.toContain('INSUFFICIENT_PERMISSIONS');
    expectValidV2(h);
  });

  it("status lists the queue in Trunk's dispatch order, with what each pending PR waits behind", async () => {
    const { h } = s;
    const q = fresh(s);
    for (const [prNumber, state] of [
      [141, 'testing'],
      [142, 'pending'],
      [143, 'pending'],
    ] as const)
      h.trunk.enqueuePr(q.repo, 'main', {
        prNumber,
        prAuthor: AUTHOR.login,
        prTitle: `change ${prNumber}`,
        state,
      });
    const pr = (n: number) => ({
      id: h.trunk.v2.pullRequestId(q.repo, n),
      number: n,
      sha: `sha${n}`,
      title: `change ${n}`,
    });
    h.trunk.v2.setOrder(q.repo, 'main', {
      mode: 'queue',
      queueState: 'running',
      batchingEnabled: true,
      isolationResolved: true,
      hasCycle: false,
      batches: [
        { verificationRunId: 'run-1', state: 'testing', isBisection: false, pullRequests: [pr(141)] },
      ],
      pending: [
        {
          pullRequest: pr(143),
          schedulability: 'schedulable',
          predictedBatch: 1,
          directlyAhead: [pr(141)],
          heldBy: [],
        },
        { pullRequest: pr(142), schedulability: 'heldBehindFailure', directlyAhead: [], heldBy: [pr(141)] },
      ],
      awaitingAdmission: [pr(144)],
      awaitingAdmissionTotal: 1,
    });
    await h.sendCommand(`status ${q.target}`);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL).at(-1));
    const t = textOf(msg);
    expect(t).toContain("in Trunk's dispatch order");
    expect(t.indexOf('#141')).toBeLessThan(t.indexOf('#143'));
    expect(t.indexOf('#143')).toBeLessThan(t.indexOf('#142'));
    expect(t.indexOf('#142')).toBeLessThan(t.indexOf('#144'));
    expect(t).toMatch(/#143.*waits behind #141/);
    expect(t).toMatch(/#142.*held behind the failure of #141/);
    expect(t).toContain('Awaiting admission');
    assertValidMessage(msg.blocks);
    expect(h.trunkCalls('mergeQueues.order')).toHaveLength(1);
    // Refresh redraws it in the same order, not v1's list.
    await h.clickButton({ message: msg, actionId: 'mq_refresh', user: USERS.member });
    await h.slack.waitFor(() => (msg.history.length > 0 ? msg : undefined));
    expect(textOf(msg)).toMatch(/#143.*waits behind #141/);
    expect(h.trunkCalls('mergeQueues.order')).toHaveLength(2);
    expectValidV2(h);
  });

  it("status shows v1's list when the order cannot be read", async () => {
    const { h } = s;
    const q = fresh(s);
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 151, prAuthor: AUTHOR.login, state: 'pending' });
    h.trunk.v2.failNext(
      'mergeQueues.order',
      403,
      'INSUFFICIENT_PERMISSIONS',
      'Missing permission: Read merge queue',
    );
    await h.sendCommand(`status ${q.target}`);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL).at(-1));
    expect(textOf(msg)).toContain('Enqueued PRs (1)');
    expect(textOf(msg)).not.toContain('dispatch order');
    expect(textOf(msg)).toContain('#151');
    assertValidMessage(msg.blocks);
    expectValidV2(h);
  });

  it('live status messages are redrawn in dispatch order, with one order read per poll however many show it', async () => {
    const { h } = s;
    const q = fresh(s);
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 161, prAuthor: AUTHOR.login, state: 'pending' });
    const first = await h.sendCommand(`status ${q.target}`);
    expect(first.status).toBe(200);
    const a = await h.slack.waitFor(() =>
      h.slack.channelMessages(CHANNEL).find((m) => textOf(m).includes(q.repo)),
    );
    await h.sendCommand(`status ${q.target}`);
    const b = await h.slack.waitFor(
      () => h.slack.channelMessages(CHANNEL).filter((m) => textOf(m).includes(q.repo))[1],
    );
    await h.idle();
    await interval(s); // baseline
    await h.idle();
    h.trunk.clearRequests();
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 162, prAuthor: AUTHOR.login, state: 'pending' });
    await interval(s);
    for (const m of [a, b]) await h.slack.waitFor(() => (textOf(m).includes('#162') ? m : undefined), 10_000);
    for (const m of [a, b]) {
      expect(textOf(m)).toContain("in Trunk's dispatch order");
      assertValidMessage(m.blocks);
    }
    expect(h.trunkCalls('mergeQueues.order')).toHaveLength(1);
    expectValidV2(h);
  });
});

describe('without a v2 key', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await start(false);
  });
  afterAll(async () => s?.h.close());

  it("the note and feed keep v1's words, status keeps v1's list, and no v2 request is made", async () => {
    const { h } = s;
    const q = fresh(s);
    await testingPrs(s, q, [201]);
    h.trunk.v2.setHistory(q.repo, 201, failedHistory('TEST_RUN_TIMEOUT'));
    leaves(s, q, 201, 'failed');
    await interval(s);
    const post = await h.slack.waitFor(() => feedPosts(h, q.channel)[0]);
    const note = await noteAbout(h, 201);
    for (const m of [post, note]) {
      expect(textOf(m)).toContain('a required check failed');
      expect(textOf(m)).not.toContain('Next step');
    }
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 202, prAuthor: AUTHOR.login, state: 'pending' });
    await h.sendCommand(`status ${q.target}`);
    const msg = await h.slack.waitFor(() =>
      h.slack.channelMessages(CHANNEL).find((m) => textOf(m).includes('#202')),
    );
    expect(textOf(msg)).toContain('Enqueued PRs (1)');
    expect(textOf(msg)).not.toContain('dispatch order');
    await h.idle();
    expect(v2Calls(h)).toHaveLength(0);
  });
});
