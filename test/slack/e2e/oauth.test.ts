/**
 * Multi-workspace install end to end: GET /slack/install redirects to Slack's consent page with a
 * state, Slack redirects back to /slack/oauth_redirect with a code, the app exchanges it at the fake
 * Slack's oauth.v2.access and stores the installation encrypted; that workspace's commands then work
 * with its own bot token, and app_uninstalled deletes its data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackInstallationStore } from '../../../src/slack/installation-store.ts';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { installViaOAuth } from '../../helpers/oauth-install.ts';

const NEW_TEAM = 'T0NEWTEAM1';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    mode: 'oauth',
    slackOptions: {
      clientId: 'client-id-1',
      clientSecret: 'client-secret-1',
      acceptAnyBotToken: false,
      installation: {
        teamId: NEW_TEAM,
        teamName: 'New Team',
        installerUserId: USERS.member,
        botUserId: 'U0BOTNEW1',
      },
      users: [
        { id: USERS.member, name: 'mel', teamId: NEW_TEAM },
        { id: USERS.admin, name: 'ada', isAdmin: true, teamId: NEW_TEAM },
      ],
    },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});
afterAll(async () => h?.close());

const install = () => installViaOAuth(h);

describe('OAuth install', () => {
  it('a redirect without the state cookie is refused and stores nothing', async () => {
    const res = await fetch(`${h.url}/slack/oauth_redirect?code=x&state=forged`, { redirect: 'manual' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(h.slack.callsTo('oauth.v2.access')).toHaveLength(0);
  });

  it('installs: code exchanged at oauth.v2.access, installation stored encrypted', async () => {
    const done = await install();
    expect(done.status).toBe(200);
    const exchange = h.slack.callsTo('oauth.v2.access');
    expect(exchange).toHaveLength(1);
    expect(exchange[0]!.args).toMatchObject({ code: 'fake-code-1' });
    const issued = h.slack.issuedTokens.at(-1)!;
    const inst = await slackInstallationStore(h.app!.store.installations).fetchInstallation({
      teamId: NEW_TEAM,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(inst.bot?.token).toBe(issued.token);
    expect((await h.app!.store.getWorkspace(NEW_TEAM))?.installerUserId).toBe(USERS.member);
    // Encrypted at rest: the token is in no database file as plain text.
    const dbPath = h.env['DATABASE_URL']!.slice('sqlite:'.length);
    for (const f of [dbPath, `${dbPath}-wal`])
      if (existsSync(f)) expect(readFileSync(f).includes(Buffer.from(issued.token))).toBe(false);
  });

  it("then that workspace's commands work with its own bot token", async () => {
    await h.app!.store.setTrunkCredentials(NEW_TEAM, { token: 'test-token', orgSlug: 'acme' }, USERS.member);
    const sent = await h.sendCommand('status acme/web:main', { team: NEW_TEAM, user: USERS.member });
    expect(sent.status).toBe(200);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('acme/web:main');
    const post = h.slack.callsTo('chat.postMessage')[0]!;
    expect(post.token).toBe(h.slack.issuedTokens.at(-1)!.token);
    // The installing user is an operator by right.
    await h.sendCommand('pause', { team: NEW_TEAM, user: USERS.member });
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused');
  });

  it('a workspace that never installed gets no answer and causes no Trunk call', async () => {
    h.trunk.clearRequests();
    const sent = await h.sendCommand('status acme/web:main', { team: 'T0STRANGER' });
    expect(sent.status).not.toBe(500);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.trunkCalls()).toHaveLength(0);
    expect(h.slack.postsTo(sent.responseUrl)).toHaveLength(0);
  });

  it('app_uninstalled deletes the workspace: installation, Trunk token and settings', async () => {
    const sent = await h.sendEvent({ type: 'app_uninstalled' }, { team: NEW_TEAM });
    expect(sent.status).toBe(200);
    await h.idle();
    const deadline = Date.now() + 5_000;
    while ((await h.app!.store.getTrunkCredentials(NEW_TEAM)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await h.app!.store.getTrunkCredentials(NEW_TEAM)).toBeUndefined();
    await expect(
      slackInstallationStore(h.app!.store.installations).fetchInstallation({
        teamId: NEW_TEAM,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    ).rejects.toThrow();
    // Audit stays.
    expect((await h.app!.store.listAudit(NEW_TEAM)).length).toBeGreaterThan(0);
  });

  it('tokens_revoked for our bot deletes the installation but keeps the Trunk token', async () => {
    const done = await install();
    expect(done.status).toBe(200);
    await h.app!.store.setTrunkCredentials(NEW_TEAM, { token: 'test-token', orgSlug: 'acme' }, USERS.member);
    await h.sendEvent({ type: 'tokens_revoked', tokens: { bot: ['U0BOTNEW1'] } }, { team: NEW_TEAM });
    await h.idle();
    const query = { teamId: NEW_TEAM, enterpriseId: undefined, isEnterpriseInstall: false } as const;
    await expect(
      slackInstallationStore(h.app!.store.installations).fetchInstallation(query),
    ).rejects.toThrow();
    // A re-install finds the workspace's Trunk connection where it was.
    expect(await h.app!.store.getTrunkCredentials(NEW_TEAM)).toMatchObject({ orgSlug: 'acme' });
  });

  it('with token rotation an expiring bot token is refreshed before use', async () => {
    h.slack.setInstallation({
      teamId: NEW_TEAM,
      installerUserId: USERS.member,
      botUserId: 'U0BOTNEW1',
      tokenRotation: true,
      expiresInSeconds: 600, // inside the refresh window: the next request refreshes it
    });
    expect((await install()).status).toBe(200);
    const first = h.slack.issuedTokens.at(-1)!;
    expect(first.refreshToken).toBeDefined();
    await h.app!.store.setTrunkCredentials(NEW_TEAM, { token: 'test-token', orgSlug: 'acme' }, USERS.member);
    h.slack.clear();
    await h.sendCommand('status acme/web:main', { team: NEW_TEAM, user: USERS.member });
    const post = await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage')[0]);
    const refresh = h.slack.callsTo('oauth.v2.access').find((c) => c.args['grant_type'] === 'refresh_token');
    expect(refresh?.args['refresh_token']).toBe(first.refreshToken);
    const second = h.slack.issuedTokens.at(-1)!;
    expect(second.token).not.toBe(first.token);
    expect(post.token).toBe(second.token);
  });
});
