/**
 * People and PRs (issue 19), through the real wire: who may link a GitHub login to themselves, how an
 * operator gives a self-claimed login to its owner (and the earlier holder is told), which priorities an
 * author may submit with, and people's words rendered so that they never notify anyone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PeopleRepository } from '../../../src/watch/index.ts';
import { CHANNEL, defaultUsers, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const REPO = 'acme/web';
const GUEST = { id: 'UGUEST0001', name: 'gus' };
const OUTSIDER = { id: 'UOUTSIDE01', name: 'otis' };
const CLAIMER = { id: 'UCLAIM0001', name: 'cleo' };
const OWNER = { id: 'UREALOWNR1', name: 'rita' };
const AUTHOR = { id: 'UAUTHOR002', name: 'alma', login: 'alma-gh' };
const LEAVER = { id: 'ULEAVER001', name: 'mara', login: 'mara-gh' };
const OPERATOR = USERS.admin;

let h: Harness;
let people: PeopleRepository;

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: GUEST.id, name: GUEST.name, isRestricted: true },
        { id: OUTSIDER.id, name: OUTSIDER.name, teamId: 'T0OTHER001', isStranger: true },
        { id: CLAIMER.id, name: CLAIMER.name },
        { id: OWNER.id, name: OWNER.name },
        { id: AUTHOR.id, name: AUTHOR.name },
        { id: LEAVER.id, name: LEAVER.name },
      ],
    },
  });
  people = new PeopleRepository(h.app!.store.db);
  const made = await people.link({
    workspaceId: TEAM,
    userId: AUTHOR.id,
    githubLogin: AUTHOR.login,
    linkedBy: OPERATOR,
    verified: true,
    now: Date.now(),
  });
  expect(made.ok).toBe(true);
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.removeQueue(REPO, 'main');
  h.trunk.addQueue(REPO, 'main', { state: 'running' });
});

async function command(text: string, user: string) {
  const sent = await h.sendCommand(text, { user });
  expect(sent.status).toBe(200);
  await h.idle();
  return h.replies(sent.responseUrl)[0] ?? {};
}

async function lastAudit() {
  const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
  return last;
}

describe('linking a GitHub login to oneself', () => {
  it('a guest cannot link a GitHub login to themselves: refused, audited, nothing stored', async () => {
    const reply = await command('me github gus-gh', GUEST.id);
    expect(reply['response_type']).toBe('ephemeral');
    expect(textOf(reply)).toMatch(/can't link a GitHub login to yourself: guests may not/);
    expect(await people.get(TEAM, GUEST.id)).toBeUndefined();
    expect(await people.byLogin(TEAM, 'gus-gh')).toBeUndefined();
    expect(await lastAudit()).toMatchObject({ userId: GUEST.id, action: 'me.github', outcome: 'refused' });
  });

  it('a person of another organization cannot link a GitHub login to themselves', async () => {
    const reply = await command('me github otis-gh', OUTSIDER.id);
    expect(textOf(reply)).toMatch(/only people of this workspace may link a GitHub login/);
    expect(await people.byLogin(TEAM, 'otis-gh')).toBeUndefined();
    expect(await lastAudit()).toMatchObject({ userId: OUTSIDER.id, action: 'me.github', outcome: 'refused' });
  });

  it('an operator gives a self-linked login to its real owner, and the earlier person is told by DM', async () => {
    const claimed = await command('me github rita-gh', CLAIMER.id);
    expect(textOf(claimed)).toMatch(/You are now linked to GitHub login `rita-gh`/);
    const reply = await command(`config people <@${OWNER.id}|rita> rita-gh`, OPERATOR);
    expect(textOf(reply)).toMatch(/linked to GitHub login `rita-gh`.*It was linked to <@UCLAIM0001> before/s);
    expect(await people.byLogin(TEAM, 'rita-gh')).toMatchObject({ userId: OWNER.id, verified: true });
    expect(await people.get(TEAM, CLAIMER.id)).toBeUndefined();
    const dm = await h.slack.waitFor(() => h.slack.channelMessages(CLAIMER.id)[0]);
    expect(textOf(dm)).toMatch(
      /`rita-gh` is no longer linked to you: <@UADMIN0001> linked it to <@UREALOWNR1>/,
    );
    expect(await lastAudit()).toMatchObject({
      action: 'config.people',
      outcome: 'ok',
      detail: { user: OWNER.id, replaced: CLAIMER.id },
    });
  });
});

describe('me forget', () => {
  it('removes the login from the audit and the delivery records, and says what remains and for how long', async () => {
    await command(`me github ${LEAVER.login}`, LEAVER.id);
    // A refusal that quotes the login in its detail, and a note delivered to the person.
    h.trunk.addSubmittedPr(REPO, 'main', {
      prNumber: 41,
      prAuthor: LEAVER.login,
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
    });
    await command('restart 41 acme/web:main', LEAVER.id);
    await h.app!.store.db.execute(
      `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner, sent_at)
       VALUES ($1, $2, $3, 'sent', 'r1', 1)`,
      ['ev-forget-1', `author:${LEAVER.id}`, TEAM],
    );
    const before = JSON.stringify(await h.app!.store.listAudit(TEAM, { limit: 500 }));
    expect(before).toContain(LEAVER.login);

    const reply = await command('me forget', LEAVER.id);
    expect(textOf(reply)).toMatch(
      /Your GitHub link is removed.*removed from the audit log \(2 places\).*1 record of notes sent to you was deleted/s,
    );
    expect(textOf(reply)).toMatch(
      /What remains: audit entries .* without the login, for up to 90 days; queue events .* for 7 days/,
    );
    const after = JSON.stringify(await h.app!.store.listAudit(TEAM, { limit: 500 }));
    expect(after).not.toContain(LEAVER.login);
    expect(after).toContain('(forgotten GitHub login)');
    const rows = await h.app!.store.db.query('SELECT * FROM watch_deliveries WHERE destination = $1', [
      `author:${LEAVER.id}`,
    ]);
    expect(rows).toEqual([]);
    expect(await people.get(TEAM, LEAVER.id)).toBeUndefined();
    expect(await lastAudit()).toMatchObject({ userId: LEAVER.id, action: 'me.forget', outcome: 'ok' });
  });
});

describe('priorities an author may submit with', () => {
  function failedPr(prNumber: number) {
    h.trunk.addSubmittedPr(REPO, 'main', {
      prNumber,
      prAuthor: AUTHOR.login,
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
    });
  }

  it('a verified author cannot submit ahead of every high PR with a number below 10', async () => {
    failedPr(31);
    const reply = await command('submit 31 acme/web:main 1', AUTHOR.id);
    expect(textOf(reply)).toMatch(/only operators may submit with `urgent` priority or a number below 10/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
    expect(await lastAudit()).toMatchObject({ userId: AUTHOR.id, action: 'submit', outcome: 'refused' });
  });

  it('a verified author may submit with 10–255 (here 10, the same as high)', async () => {
    failedPr(32);
    await command('submit 32 acme/web:main 10', AUTHOR.id);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(1);
    expect(await lastAudit()).toMatchObject({ userId: AUTHOR.id, action: 'submit', outcome: 'ok' });
  });

  it('an operator may still submit with 0–9', async () => {
    failedPr(33);
    await command('submit 33 acme/web:main 3', OPERATOR);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(1);
  });
});

describe("people's words never notify", () => {
  it('a pause reason with @here, @channel, <!everyone> and a user group is shown, never delivered as a mention', async () => {
    await command(
      'pause acme/web:main <!here> <!channel> <!everyone> <!subteam^S0ONCALL1|@oncall> @here @channel',
      OPERATOR,
    );
    const [posted] = h.slack.channelMessages(CHANNEL);
    expect(posted).toBeDefined();
    const everything = JSON.stringify({ text: posted!.text, blocks: posted!.blocks });
    expect(everything).not.toMatch(/<!(here|channel|everyone|subteam)/);
    expect(everything).not.toMatch(/@(here|channel)\b/);
    // Still readable: what was typed is shown (the grammar turns Slack's escapes back into words; an
    // invisible word joiner keeps `@here` from reading as one).
    expect(textOf(posted!)).toContain('@\u2060here @\u2060channel @\u2060everyone @oncall');
  });
});
