/**
 * Only the workspace's own people operate (issue 10, "Who may act"): a person of another organization in
 * a Slack Connect channel, a guest, a deactivated account and a bot are refused — by command and by
 * button — even when listed with `config operators add`, in an operator user group, or called admin by
 * their own organization. Each refusal is ephemeral and audited, and Trunk's queue is left as it was.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  postStatusMessage,
  startHarness,
  TEAM,
  USERS,
} from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const OPS_GROUP = 'S0OPSGROUP';
/** Each kind of person who must never operate, as Slack's users.info describes them. */
const PEOPLE = {
  // Slack Connect: their home team is another organization's, which makes them an admin there.
  external: { id: 'UEXTERN001', name: 'xena', teamId: 'T0OTHERORG', isAdmin: true, isOwner: true },
  // Slack's own flag for someone seen only through a shared channel.
  stranger: { id: 'USTRANGE01', name: 'stan', isStranger: true },
  guest: { id: 'UGUEST0001', name: 'gus', isRestricted: true },
  singleChannelGuest: { id: 'USCGUEST01', name: 'sid', isUltraRestricted: true },
  deactivated: { id: 'UDEACT0001', name: 'dee', deleted: true, isAdmin: true },
  bot: { id: 'UBOTUSER01', name: 'robo', isBot: true },
} as const;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [...defaultUsers(), ...Object.values(PEOPLE)],
      usergroups: { [OPS_GROUP]: Object.values(PEOPLE).map((p) => p.id) },
    },
  });
  // Every one of them is listed, directly and through the operator group, by an admin.
  const add = await h.sendCommand(
    `config operators add ${Object.values(PEOPLE)
      .map((p) => `<@${p.id}|${p.name}>`)
      .join(' ')} <!subteam^${OPS_GROUP}|@ops>`,
    { user: USERS.admin },
  );
  await h.reply(add.responseUrl);
  const listed = (await h.app!.store.listOperators(TEAM)).map((o) => o.id);
  expect(listed).toEqual(expect.arrayContaining([...Object.values(PEOPLE).map((p) => p.id), OPS_GROUP]));
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

const statusMessage = () => postStatusMessage(h);

async function expectRefusedAndAudited(userId: string, responseUrl: string, because: RegExp) {
  const reply = await h.reply(responseUrl);
  expect(reply['response_type']).toBe('ephemeral');
  expect(textOf(reply)).toMatch(because);
  await h.idle();
  expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
  const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
  expect(last).toMatchObject({ userId, action: 'pause', outcome: 'refused' });
  expect(String(last!.detail['because'])).toMatch(because);
}

const cases: Array<[string, string, RegExp]> = [
  [
    'a person of another organization (Slack Connect), admin there',
    PEOPLE.external.id,
    /another organization/,
  ],
  ['a stranger flagged by Slack', PEOPLE.stranger.id, /another organization/],
  ['a multi-channel guest', PEOPLE.guest.id, /guests/],
  ['a single-channel guest', PEOPLE.singleChannelGuest.id, /guests/],
  ['a deactivated admin', PEOPLE.deactivated.id, /deactivated/],
  ['a bot', PEOPLE.bot.id, /bots/],
];

describe('only the workspace’s own people operate', () => {
  it.each(cases)('%s: /mergequeue pause is refused, audited, queue unchanged', async (_, userId, because) => {
    const sent = await h.sendCommand('pause acme/web:main incident', { user: userId });
    expect(sent.status).toBe(200);
    await expectRefusedAndAudited(userId, sent.responseUrl, because);
  });

  it.each(cases)('%s: a Pause click is refused, audited, queue unchanged', async (_, userId, because) => {
    const msg = await statusMessage();
    const click = await h.clickButton({ message: msg, actionId: 'mq_pause', user: userId });
    expect(click.status).toBe(200);
    await expectRefusedAndAudited(userId, click.responseUrl, because);
    expect(h.slack.message(CHANNEL, msg.ts)!.history).toHaveLength(0);
  });

  it('a click whose payload says the user belongs to another team is refused, though users.info looks local', async () => {
    await h.app!.store.addOperator(TEAM, { kind: 'user', id: USERS.operator, addedBy: USERS.admin });
    try {
      const msg = await statusMessage();
      const click = await h.clickButton({
        message: msg,
        actionId: 'mq_pause',
        user: USERS.operator,
        userTeam: 'T0OTHERORG',
      });
      await expectRefusedAndAudited(USERS.operator, click.responseUrl, /another organization/);
    } finally {
      await h.app!.store.removeOperator(TEAM, 'user', USERS.operator);
    }
  });

  it('the workspace’s own listed operator still may (control case)', async () => {
    await h.app!.store.addOperator(TEAM, { kind: 'user', id: USERS.operator, addedBy: USERS.admin });
    try {
      await h.sendCommand('pause acme/web:main', { user: USERS.operator });
      await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused');
    } finally {
      await h.app!.store.removeOperator(TEAM, 'user', USERS.operator);
    }
  });
});
