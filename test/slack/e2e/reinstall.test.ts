/**
 * A re-install must not hand out rights (issue 10, "Who may act"). Installs are driven through the OAuth
 * wire: GET /slack/install, then /slack/oauth_redirect with the state cookie, the code exchanged at the
 * fake Slack's oauth.v2.access naming the person who installed (`authed_user`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slackInstallationStore } from '../../../src/slack/installation-store.ts';
import type { Harness } from '../../helpers/app-harness.ts';
import { startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const TEAM = 'T0REINST01';
const PEOPLE = {
  installer: 'UREALINST1',
  mallory: 'UMALLORY01',
  admin: USERS.admin,
  operator: USERS.operator,
  guestAdmin: 'UGUESTADM1',
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    mode: 'oauth',
    slackOptions: {
      acceptAnyBotToken: false,
      installation: { teamId: TEAM, installerUserId: PEOPLE.installer },
      users: [
        { id: PEOPLE.installer, name: 'ian', teamId: TEAM },
        { id: PEOPLE.mallory, name: 'mallory', teamId: TEAM },
        { id: PEOPLE.admin, name: 'ada', isAdmin: true, teamId: TEAM },
        { id: PEOPLE.operator, name: 'otto', teamId: TEAM },
        // An admin of their own organization, here only through a shared channel.
        { id: PEOPLE.guestAdmin, name: 'gia', isAdmin: true, teamId: 'T0ELSEWHERE' },
      ],
    },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  await installAs(PEOPLE.installer);
  await h.app!.store.setTrunkCredentials(TEAM, { token: 'test-token', orgSlug: 'acme' }, PEOPLE.installer);
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** Completes /slack/install as `userId` (the fake's oauth.v2.access names them as the installing user). */
async function installAs(userId: string): Promise<void> {
  h.slack.setInstallation({ teamId: TEAM, installerUserId: userId });
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
  const done = await fetch(
    `${h.url}/slack/oauth_redirect?code=c-${userId}&state=${encodeURIComponent(state)}`,
    {
      headers: { cookie },
      redirect: 'manual',
    },
  );
  expect(done.status).toBe(200);
}

const installer = async () => (await h.app!.store.getWorkspace(TEAM))?.installerUserId;
const lastInstallerAudit = async () =>
  (await h.app!.store.listAudit(TEAM)).find((e) => e.action === 'installer.change');

/** Whether `userId` may pause: asks through the command wire, then puts the queue back. */
async function canPause(userId: string): Promise<boolean> {
  const sent = await h.sendCommand('pause acme/web:main', { team: TEAM, user: userId });
  expect(sent.status).toBe(200);
  await h.idle();
  if (h.trunk.queue('acme/web', 'main')!.state !== 'paused') {
    expect(textOf(await h.reply(sent.responseUrl))).toMatch(/can't|cannot|only/i);
    return false;
  }
  h.trunk.patchQueue('acme/web', 'main', { state: 'running' });
  return true;
}

describe('re-installing the app', () => {
  it('the first install names the installer, audited', async () => {
    expect(await installer()).toBe(PEOPLE.installer);
    expect(await lastInstallerAudit()).toMatchObject({
      userId: PEOPLE.installer,
      outcome: 'ok',
      detail: { to: PEOPLE.installer, because: 'first install' },
    });
    expect(await canPause(PEOPLE.installer)).toBe(true);
  });

  it('a member who is no operator re-installs: gains nothing, the real installer keeps the right; refusal audited', async () => {
    expect(await canPause(PEOPLE.mallory)).toBe(false);
    await installAs(PEOPLE.mallory);
    expect(await installer()).toBe(PEOPLE.installer);
    expect(await lastInstallerAudit()).toMatchObject({
      userId: PEOPLE.mallory,
      outcome: 'refused',
      detail: { from: PEOPLE.installer, to: PEOPLE.mallory },
    });
    expect(await canPause(PEOPLE.mallory)).toBe(false);
    expect(await canPause(PEOPLE.installer)).toBe(true);
    // The re-install itself worked: the workspace now uses the newly issued bot token.
    const issued = h.slack.issuedTokens.at(-1)!.token;
    const inst = await slackInstallationStore(h.app!.store.installations).fetchInstallation({
      teamId: TEAM,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(inst.bot?.token).toBe(issued);
  });

  it('an admin of another organization (shared channel) re-installs: refused, audited', async () => {
    await installAs(PEOPLE.guestAdmin);
    expect(await installer()).toBe(PEOPLE.installer);
    const audit = await lastInstallerAudit();
    expect(audit).toMatchObject({ userId: PEOPLE.guestAdmin, outcome: 'refused' });
    expect(String(audit!.detail['because'])).toMatch(/another organization/);
  });

  it('a listed operator re-installs: the right moves to them, audited with from and to', async () => {
    await h.app!.store.addOperator(TEAM, { kind: 'user', id: PEOPLE.operator, addedBy: PEOPLE.installer });
    await installAs(PEOPLE.operator);
    expect(await installer()).toBe(PEOPLE.operator);
    expect(await lastInstallerAudit()).toMatchObject({
      userId: PEOPLE.operator,
      outcome: 'ok',
      detail: { from: PEOPLE.installer, to: PEOPLE.operator, because: 'listed as an operator' },
    });
    await h.app!.store.removeOperator(TEAM, 'user', PEOPLE.operator);
  });

  it('an admin re-installs: the right moves to them and the previous installer loses it', async () => {
    await installAs(PEOPLE.admin);
    expect(await installer()).toBe(PEOPLE.admin);
    expect(await lastInstallerAudit()).toMatchObject({
      userId: PEOPLE.admin,
      outcome: 'ok',
      detail: { from: PEOPLE.operator, to: PEOPLE.admin, because: 'workspace admin' },
    });
    expect(await canPause(PEOPLE.operator)).toBe(false);
    expect(await canPause(PEOPLE.admin)).toBe(true);
  });
});
