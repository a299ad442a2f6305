/**
 * Acting on a PR from Slack (issue 14), through the real wire: signed slash commands, clicks and modal
 * submissions; the fake Slack records what the app said; the fake Trunk holds the PRs. Who may act: an
 * operator, or the PR's author through a link an operator made — never a link someone made for themselves.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockActionsPayload, interactiveBody } from '../../../dev/fakes/slack/signing.ts';
import { PeopleRepository } from '../../../src/watch/index.ts';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  linkVerified,
  startHarness,
  TEAM,
  USERS,
} from '../../helpers/app-harness.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';

const REPO = 'acme/web';
const AUTHOR = { id: 'UAUTHOR001', name: 'alice', login: 'alice-gh' };
const SPOOFER = { id: 'USPOOF0001', name: 'sam' };
/** The person whose login the spoofer claims; not linked to anyone else. */
const VICTIM_LOGIN = 'bob-gh';
const OPERATOR = USERS.admin;
const STRANGER = USERS.member;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: AUTHOR.id, name: AUTHOR.name, tz: 'UTC' },
        { id: SPOOFER.id, name: SPOOFER.name, tz: 'UTC' },
      ],
    },
  });
  const people = new PeopleRepository(h.app!.store.db);
  // The author's link was made by an operator (`config people`); the spoofer's by themselves (`me github`).
  const made = await linkVerified(h, AUTHOR, OPERATOR);
  const claimed = await people.link({
    workspaceId: TEAM,
    userId: SPOOFER.id,
    githubLogin: VICTIM_LOGIN,
    linkedBy: SPOOFER.id,
    verified: false,
    now: Date.now(),
  });
  expect(made.ok && claimed.ok).toBe(true);
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.removeQueue(REPO, 'main');
  h.trunk.addQueue(REPO, 'main', { state: 'running' });
});

/** Sends a command and waits until the app has done everything it will; its first reply, if any. */
async function command(text: string, user: string) {
  const sent = await h.sendCommand(text, { user });
  expect(sent.status).toBe(200);
  await h.idle();
  const reply = h.replies(sent.responseUrl)[0] ?? {};
  return { reply, responseUrl: sent.responseUrl };
}

function failedPr(prNumber: number, prAuthor: string) {
  h.trunk.addSubmittedPr(REPO, 'main', {
    prNumber,
    prAuthor,
    state: 'failed',
    isCurrentlySubmittedToQueue: false,
  });
}

async function lastAudit() {
  const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
  return last;
}

function announcements(): string[] {
  return h.slack.channelMessages(CHANNEL).map((m) => textOf(m));
}

async function expectRefused(reply: Record<string, unknown>, action: string, because: RegExp) {
  expect(reply['response_type']).toBe('ephemeral');
  expect(textOf(reply)).toMatch(because);
  expect(await lastAudit()).toMatchObject({ action, outcome: 'refused' });
  expect(announcements()).toEqual([]);
}

const inQueue = (n: number) =>
  (h.trunk.queue(REPO, 'main')!.enqueuedPullRequests ?? []).filter((p) => p.prNumber === n);

describe('submit', () => {
  it('an operator submits a PR Trunk has not seen, urgent and unbatched: queued, announced, audited', async () => {
    await command('submit 11 acme/web:main urgent nobatch', OPERATOR);
    const [queued] = inQueue(11);
    expect(queued).toMatchObject({ priorityValue: 0, noBatch: true, state: 'pending' });
    expect(h.trunkCalls('submitPullRequest')[0]!.body).toMatchObject({ priority: 'urgent', noBatch: true });
    expect(announcements().join('\n')).toMatch(/submitted .*#11/);
    expect(await lastAudit()).toMatchObject({ userId: OPERATOR, action: 'submit', outcome: 'ok' });
  });

  it('the verified author re-submits their failed PR with a priority', async () => {
    failedPr(12, AUTHOR.login);
    await command('submit 12 high', AUTHOR.id);
    expect(inQueue(12)[0]).toMatchObject({ priorityName: 'high', state: 'pending' });
    expect(announcements().join('\n')).toMatch(/submitted .*#12/);
    const audit = await lastAudit();
    expect(audit).toMatchObject({ userId: AUTHOR.id, action: 'submit', outcome: 'ok' });
    expect(String(audit!.detail['because'])).toMatch(/author of #12/);
  });

  it('urgent is refused to the author (not an operator): ephemeral, audited, nothing sent', async () => {
    failedPr(13, AUTHOR.login);
    const { reply } = await command('submit 13 urgent', AUTHOR.id);
    await expectRefused(reply, 'submit', /only operators may submit with `urgent`/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
  });

  it("a stranger cannot submit someone else's PR", async () => {
    failedPr(14, AUTHOR.login);
    const { reply } = await command('submit 14', STRANGER);
    await expectRefused(reply, 'submit', /not linked to you/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
  });

  it('a submit whose answer was lost after Trunk accepted it: sent once, one PR queued, person told it is in', async () => {
    h.trunk.loseAnswerNext(1, 'drop', 'submitPullRequest');
    const sent = await h.sendCommand('submit 15', { user: OPERATOR });
    const said = await h.slack.waitFor(() =>
      h.replies(sent.responseUrl).find((r) => /answer was lost/.test(textOf(r))),
    );
    await h.idle();
    expect(textOf(said)).toMatch(/#15 is in the queue \(pending\).*not sent again/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(1);
    expect(inQueue(15)).toHaveLength(1);
    expect(await lastAudit()).toMatchObject({ action: 'submit', outcome: 'ok' });
    expect((await lastAudit())!.detail).toMatchObject({ confirmedBy: 'read_back', sent: 1 });
  });

  it('a PR already in the queue is not submitted twice', async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 16, prAuthor: AUTHOR.login, state: 'testing' });
    const { reply } = await command('submit 16', OPERATOR);
    expect(textOf(reply)).toMatch(/#16 is already in the queue \(testing\)/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
  });

  it('bad input says what was wrong and changes nothing', async () => {
    const { reply } = await command('submit 17 urgentish', OPERATOR);
    expect(textOf(reply)).toMatch(/not a target, a priority/);
    expect(textOf(reply)).toMatch(/\/mergequeue submit &lt;pr&gt; \[owner\/repo/);
    expect(h.trunkCalls()).toHaveLength(0);
  });
});

describe('cancel', () => {
  it('the verified author cancels their PR with a reason, announced in the channel', async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 20, prAuthor: AUTHOR.login, state: 'testing' });
    await command('cancel 20 needs another fix', AUTHOR.id);
    expect(inQueue(20)).toEqual([]);
    expect(h.trunk.submittedPr(REPO, 'main', 20)?.state).toBe('cancelled');
    expect(announcements().join('\n')).toMatch(/cancelled .*#20.*needs another fix/s);
    expect(await lastAudit()).toMatchObject({ userId: AUTHOR.id, action: 'cancel', outcome: 'ok' });
  });

  it("an operator cancels anyone's PR", async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 21, prAuthor: 'someone-else', state: 'pending' });
    await command('cancel 21', OPERATOR);
    expect(inQueue(21)).toEqual([]);
  });

  it("a stranger cannot cancel someone's PR", async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 22, prAuthor: AUTHOR.login, state: 'pending' });
    const { reply } = await command('cancel 22', STRANGER);
    await expectRefused(reply, 'cancel', /only operators and the PR's author/);
    expect(inQueue(22)).toHaveLength(1);
    expect(h.trunkCalls('cancelPullRequest')).toHaveLength(0);
  });

  it("the spoof: a member who linked themselves to another person's login cannot cancel that person's PR", async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 23, prAuthor: VICTIM_LOGIN, state: 'testing' });
    const { reply } = await command('cancel 23', SPOOFER.id);
    await expectRefused(reply, 'cancel', /an operator has not confirmed that link/);
    expect(inQueue(23)).toHaveLength(1);
    expect(h.trunkCalls('cancelPullRequest')).toHaveLength(0);
  });
});

describe('restart', () => {
  it("the verified author restarts their failed PR's tests", async () => {
    failedPr(30, AUTHOR.login);
    await command('restart 30', AUTHOR.id);
    expect(inQueue(30)[0]).toMatchObject({ state: 'testing' });
    expect(announcements().join('\n')).toMatch(/restarted the tests of .*#30/);
  });

  it('an operator restarts, a stranger is refused', async () => {
    failedPr(31, AUTHOR.login);
    const refused = await command('restart 31', STRANGER);
    await expectRefused(refused.reply, 'restart', /not linked to you/);
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(0);
    await command('restart 31', OPERATOR);
    expect(inQueue(31)[0]).toMatchObject({ state: 'testing' });
  });

  it('a merged PR is not restarted', async () => {
    h.trunk.addSubmittedPr(REPO, 'main', {
      prNumber: 32,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const { reply } = await command('restart 32', OPERATOR);
    expect(textOf(reply)).toMatch(/#32 is already merged/);
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(0);
  });
});

describe('prs', () => {
  it('lists the PRs not concluded through listPullRequests pages, within 50 blocks, saying how many more', async () => {
    for (let n = 1000; n < 1130; n++) h.trunk.enqueuePr(REPO, 'main', { prNumber: n, state: 'pending' });
    failedPr(999, AUTHOR.login);
    const { reply } = await command('prs', STRANGER);
    const text = textOf(reply);
    expect((reply['blocks'] as unknown[]).length).toBeLessThanOrEqual(50);
    expect(text).toMatch(/130 PRs/);
    expect(text).toMatch(/and 90 more PRs/);
    expect(text).toContain('#1000');
    expect(text).not.toContain('#999');
    expect(h.trunkCalls('listPullRequests').length).toBe(2);
  });

  it('one state only', async () => {
    failedPr(40, AUTHOR.login);
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 41, state: 'pending' });
    const { reply } = await command('prs acme/web:main failed', STRANGER);
    expect(textOf(reply)).toContain('#40');
    expect(textOf(reply)).not.toContain('#41');
    expect(h.trunkCalls('listPullRequests')[0]!.body).toMatchObject({ state: 'failed' });
  });
});

// ---- buttons ----------------------------------------------------------------------------------------

/** The `/mergequeue pr <n>` reply, an ephemeral message, as the person sees it. */
async function prReply(n: number, user: string) {
  const { reply } = await command(`pr ${n}`, user);
  h.trunk.clearRequests();
  return reply;
}

/** A click on an ephemeral message, as Slack sends it: `is_ephemeral` and no `message`. */
async function clickEphemeral(blocks: unknown[], actionId: string, user: string) {
  const button = findAction(blocks, actionId);
  if (!button) throw new Error(`no ${actionId} button`);
  const responseUrl = h.slack.responseUrl({ channel: CHANNEL, user });
  const payload = blockActionsPayload({
    teamId: TEAM,
    userId: user,
    channelId: CHANNEL,
    messageTs: '1700000000.000100',
    actionId,
    value: String(button['value']),
    responseUrl,
  });
  payload['container'] = {
    type: 'message',
    message_ts: '1700000000.000100',
    channel_id: CHANNEL,
    is_ephemeral: true,
  };
  delete payload['message'];
  const sent = await h.postSigned(interactiveBody(payload));
  expect(sent.status).toBe(200);
  return { responseUrl, triggerId: String(payload['trigger_id']) };
}

const replaced = (responseUrl: string) =>
  h.replies(responseUrl).filter((r) => r['replace_original'] === true || r['replace_original'] === 'true');

describe('buttons on the /mergequeue pr reply', () => {
  it('carry the next steps that fit the state', async () => {
    failedPr(50, AUTHOR.login);
    const failed = (await prReply(50, STRANGER))['blocks'] as unknown[];
    expect(findAction(failed, 'mq_pr_restart')).toBeDefined();
    expect(findAction(failed, 'mq_pr_resubmit')).toBeDefined();
    expect(findAction(failed, 'mq_pr_cancel')).toBeUndefined();
    expect(findAction(failed, 'mq_open_trunk')?.['url']).toMatch(/app\.trunk\.example\/acme\/merge-queue/);
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 51, state: 'testing' });
    const testing = (await prReply(51, STRANGER))['blocks'] as unknown[];
    expect(findAction(testing, 'mq_pr_cancel')).toBeDefined();
    expect(findAction(testing, 'mq_pr_restart')).toBeUndefined();
  });

  it('Restart tests by the author: restarted, the message updated in place, announced', async () => {
    failedPr(52, AUTHOR.login);
    const blocks = (await prReply(52, AUTHOR.id))['blocks'] as unknown[];
    const { responseUrl } = await clickEphemeral(blocks, 'mq_pr_restart', AUTHOR.id);
    const [updated] = await h.slack.waitFor(() => {
      const r = replaced(responseUrl);
      return r.length > 0 ? r : undefined;
    });
    await h.idle();
    expect(inQueue(52)[0]).toMatchObject({ state: 'testing' });
    expect(textOf(updated)).toMatch(/State\*\ntesting/);
    expect(findAction(updated!['blocks'] as unknown[], 'mq_pr_restart')).toBeUndefined();
    expect(findAction(updated!['blocks'] as unknown[], 'mq_pr_cancel')).toBeDefined();
    expect(announcements().join('\n')).toMatch(/restarted the tests of .*#52/);
  });

  it('a PR that moved on between the message and the click: nothing sent, told, message redrawn', async () => {
    failedPr(53, AUTHOR.login);
    const blocks = (await prReply(53, AUTHOR.id))['blocks'] as unknown[];
    h.trunk.addSubmittedPr(REPO, 'main', {
      prNumber: 53,
      prAuthor: AUTHOR.login,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const { responseUrl } = await clickEphemeral(blocks, 'mq_pr_restart', AUTHOR.id);
    const told = await h.slack.waitFor(() =>
      h.replies(responseUrl).find((r) => /already merged/.test(textOf(r))),
    );
    await h.idle();
    expect(textOf(told)).toMatch(/#53 is already merged \(this message showed it failed\)/);
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(0);
    expect(textOf(replaced(responseUrl)[0])).toMatch(/State\*\nmerged/);
    expect(announcements()).toEqual([]);
  });

  it('a double click counts once', async () => {
    failedPr(54, AUTHOR.login);
    const blocks = (await prReply(54, OPERATOR))['blocks'] as unknown[];
    const [a, b] = await Promise.all([
      clickEphemeral(blocks, 'mq_pr_restart', OPERATOR),
      clickEphemeral(blocks, 'mq_pr_restart', OPERATOR),
    ]);
    await h.slack.waitFor(() =>
      [...h.replies(a.responseUrl), ...h.replies(b.responseUrl)].find((r) =>
        /already handled/.test(textOf(r)),
      ),
    );
    await h.idle();
    expect(h.trunkCalls('restartTestsOnPullRequest')).toHaveLength(1);
    expect(announcements()).toHaveLength(1);
  });

  it('a click whose restart failed can be tried again (the claim is given back)', async () => {
    failedPr(55, AUTHOR.login);
    const blocks = (await prReply(55, OPERATOR))['blocks'] as unknown[];
    h.trunk.failNext(1, { status: 400, body: 'invalid request: no' }, 'restartTestsOnPullRequest');
    const first = await clickEphemeral(blocks, 'mq_pr_restart', OPERATOR);
    await h.slack.waitFor(() => h.replies(first.responseUrl)[0]);
    await h.idle();
    expect(inQueue(55)).toEqual([]);
    await clickEphemeral(blocks, 'mq_pr_restart', OPERATOR);
    await h.idle();
    expect(inQueue(55)[0]).toMatchObject({ state: 'testing' });
  });

  it('Re-submit by a stranger is refused (ephemeral, audited), nothing sent', async () => {
    failedPr(56, AUTHOR.login);
    const blocks = (await prReply(56, STRANGER))['blocks'] as unknown[];
    const { responseUrl } = await clickEphemeral(blocks, 'mq_pr_resubmit', STRANGER);
    const told = await h.slack.waitFor(() => h.replies(responseUrl)[0]);
    await h.idle();
    expect(textOf(told)).toMatch(/can't submit #56/);
    expect(told['replace_original']).toBe(false);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
    expect(await lastAudit()).toMatchObject({ userId: STRANGER, action: 'submit', outcome: 'refused' });
  });

  it('Cancel asks in a modal; confirming with a reason cancels, updates the message and announces', async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 57, prAuthor: AUTHOR.login, state: 'pending' });
    const blocks = (await prReply(57, AUTHOR.id))['blocks'] as unknown[];
    const { responseUrl } = await clickEphemeral(blocks, 'mq_pr_cancel', AUTHOR.id);
    const form = await h.slack.waitFor(() =>
      h.slack.views.find((v) => v.view['callback_id'] === 'mq_pr_cancel_confirm'),
    );
    await h.idle();
    expect(inQueue(57)).toHaveLength(1);
    expect(h.trunkCalls('cancelPullRequest')).toHaveLength(0);
    const submitted = await h.submitView({
      view: form,
      user: AUTHOR.id,
      values: { mq_pr_cancel_reason: { reason: { type: 'plain_text_input', value: 'wrong base' } } },
    });
    expect(submitted.status).toBe(200);
    await h.slack.waitFor(() => replaced(responseUrl)[0]);
    await h.idle();
    expect(inQueue(57)).toEqual([]);
    expect(textOf(replaced(responseUrl)[0])).toMatch(/State\*\ncancelled/);
    expect(announcements().join('\n')).toMatch(/cancelled .*#57.*wrong base/s);
    // A second confirmation (the modal opened twice) counts once.
    await h.submitView({ view: form, user: AUTHOR.id, values: {} });
    await h.idle();
    expect(h.trunkCalls('cancelPullRequest')).toHaveLength(1);
  });

  it('Cancel on a PR that already left the queue opens no confirmation and sends nothing', async () => {
    h.trunk.enqueuePr(REPO, 'main', { prNumber: 58, prAuthor: AUTHOR.login, state: 'testing' });
    const blocks = (await prReply(58, OPERATOR))['blocks'] as unknown[];
    h.trunk.dequeuePr(REPO, 'main', 58);
    h.trunk.addSubmittedPr(REPO, 'main', {
      prNumber: 58,
      prAuthor: AUTHOR.login,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const { responseUrl } = await clickEphemeral(blocks, 'mq_pr_cancel', OPERATOR);
    await h.slack.waitFor(() => h.replies(responseUrl).find((r) => /already merged/.test(textOf(r))));
    await h.idle();
    expect(h.slack.views.some((v) => v.view['callback_id'] === 'mq_pr_cancel_confirm')).toBe(false);
    expect(h.trunkCalls('cancelPullRequest')).toHaveLength(0);
  });
});

describe('with a short Trunk deadline for clicks', () => {
  let short: Harness;
  beforeAll(async () => {
    short = await startHarness({ app: { trunk: { interactiveDeadlineMs: 2_000 } } });
  });
  afterAll(async () => short?.close());

  it('a Re-submit whose answer timed out after Trunk queued the PR: sent once, clicker told it is in the queue', async () => {
    short.trunk.addQueue(REPO, 'main', { state: 'running' });
    short.trunk.addSubmittedPr(REPO, 'main', {
      prNumber: 60,
      state: 'cancelled',
      isCurrentlySubmittedToQueue: false,
    });
    const sent = await short.sendCommand('pr 60', { user: OPERATOR });
    const reply = await short.reply(sent.responseUrl);
    await short.idle();
    short.trunk.loseAnswerNext(1, 'hang', 'submitPullRequest');
    const message = { channel: CHANNEL, ts: '1700000000.000200', blocks: reply['blocks'] as unknown[] };
    const click = await short.clickButton({ message, actionId: 'mq_pr_resubmit', user: OPERATOR });
    const told = await short.slack.waitFor(
      () => short.replies(click.responseUrl).find((r) => /answer was lost/.test(textOf(r))),
      8_000,
    );
    await short.idle();
    expect(textOf(told)).toMatch(/#60 is in the queue \(pending\).*not sent again/);
    expect(short.trunkCalls('submitPullRequest')).toHaveLength(1);
    const queued = (short.trunk.queue(REPO, 'main')!.enqueuedPullRequests ?? []).filter(
      (p) => p.prNumber === 60,
    );
    expect(queued).toHaveLength(1);
  });
});
