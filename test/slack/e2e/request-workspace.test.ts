/**
 * A request from another organization acts on nothing of ours (issue 19): the workspace a request is for is
 * never the payload's word alone. In single-workspace mode it is the one the bot token belongs to
 * (`auth.test`, asked once at start); with OAuth, a team or enterprise acts only through an installation of
 * its own, with its own Trunk connection. Anything else gets an ephemeral refusal, changes nothing (no
 * Trunk call) and is audited like every other refusal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  interactiveBody,
  slashCommandBody,
  viewSubmissionPayload,
} from '../../../dev/fakes/slack/signing.ts';
import { startTrunkFake, type TrunkFake } from '../../../dev/fakes/trunk/index.ts';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  postStatusMessage,
  startHarness,
  TEAM,
  TRUNK_TOKEN,
  USERS,
} from '../../helpers/app-harness.ts';
import { stateFromView, textOf } from '../../helpers/block-kit-reading.ts';
import { installViaOAuth } from '../../helpers/oauth-install.ts';
import { payload, postCommandFields } from '../../helpers/slack-payloads.ts';

/** The Slack Connect admin of the issue: `users.info` says their own team, where they are an admin. */
const KAZ = { id: 'U0KAZ00001', name: 'kaz', teamId: 'T0OTHER001', isAdmin: true, isOwner: true };
const OTHER_TEAM = 'T0OTHER001';
const OTHER_ENTERPRISE = 'E0OTHER001';

const ackJson = (text: string) => JSON.parse(text) as Record<string, unknown>;
const settle = () => new Promise((r) => setTimeout(r, 300));

describe('single-workspace mode: the workspace is the bot token’s own (auth.test)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ slackOptions: { users: [...defaultUsers(), KAZ] } });
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    await h.reset();
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });

  async function expectAudited(userId: string, action: string, team: string) {
    await h.idle();
    const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(last).toMatchObject({ userId, action, outcome: 'refused' });
    expect(String(last!.detail['because'])).toMatch(/another organization/);
    expect(last!.detail['requestTeam']).toBe(team);
  }

  it('/mergequeue pause from an admin of another organization (their team_id): refused, audited, no Trunk call', async () => {
    const sent = await h.sendCommand('pause acme/web:main', { team: OTHER_TEAM, user: KAZ.id });
    expect(sent.status).toBe(200);
    const ack = ackJson(sent.text);
    expect(ack['response_type']).toBe('ephemeral');
    expect(String(ack['text'])).toMatch(/another organization/);
    expect(String(ack['text'])).toMatch(/Nothing was changed/);
    await settle();
    await expectAudited(KAZ.id, 'pause', OTHER_TEAM);
    expect(h.trunkCalls()).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(h.slack.channelMessages(CHANNEL)).toHaveLength(0);
    expect(h.slack.postsTo(sent.responseUrl)).toHaveLength(0);
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^mergequeue_foreign_requests_refused_total\{why="another-organization"\} [1-9]/m,
    );
  });

  it('the documented shared-channel command (team_id and enterprise_id of the other organization): refused', async () => {
    const fields = payload<Record<string, string>>('slash_command.shared-channel');
    fields['response_url'] = h.slack.responseUrl({ channel: CHANNEL, user: KAZ.id });
    const sent = await postCommandFields(h, fields);
    expect(sent.status).toBe(200);
    expect(String(ackJson(sent.text)['text'])).toMatch(/another organization/);
    await settle();
    await expectAudited(KAZ.id, 'pause', OTHER_TEAM);
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('our own team_id with another enterprise_id is refused too', async () => {
    const sent = await h.sendCommand('resume acme/web:main', {
      user: USERS.admin,
      enterprise: OTHER_ENTERPRISE,
    });
    expect(String(ackJson(sent.text)['text'])).toMatch(/another organization/);
    await settle();
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('a Pause click from that organization: an ephemeral refusal through response_url, audited, queue unchanged', async () => {
    const msg = await postStatusMessage(h);
    const click = await h.clickButton({
      message: msg,
      actionId: 'mq_pause',
      user: KAZ.id,
      team: OTHER_TEAM,
      userTeam: OTHER_TEAM,
    });
    expect(click.status).toBe(200);
    const reply = await h.reply(click.responseUrl);
    expect(reply['response_type']).toBe('ephemeral');
    expect(reply['replace_original']).toBe(false);
    expect(textOf(reply)).toMatch(/another organization/);
    await expectAudited(KAZ.id, 'mq_pause', OTHER_TEAM);
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.slack.message(CHANNEL, msg.ts)!.history).toHaveLength(0);
  });

  it('a settings form submitted from that organization changes nothing', async () => {
    await h.sendCommand('settings acme/web:main', { user: USERS.admin });
    const view = await h.slack.waitFor(() =>
      h.slack.views.find(
        (v) => v.view['callback_id'] === 'mq_settings' && stateFromView(v.view)['concurrency'],
      ),
    );
    const values = stateFromView(view.view);
    values['concurrency']!['v'] = { type: 'number_input', value: '9' };
    h.trunk.clearRequests();
    const sub = await h.submitView({ view, values, user: KAZ.id, team: OTHER_TEAM });
    expect(sub.status).toBe(200);
    expect(sub.json?.['response_action']).toBe('update');
    expect(JSON.stringify(sub.json)).toMatch(/another organization/);
    await settle();
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(2);
    const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(last).toMatchObject({ userId: KAZ.id, action: 'mq_settings', outcome: 'refused' });
  });

  it('a form opened in our workspace (app_installed_team_id ours) but submitted by that admin is still refused', async () => {
    await h.sendCommand('settings acme/web:main', { user: USERS.admin });
    const view = await h.slack.waitFor(() =>
      h.slack.views.find(
        (v) => v.view['callback_id'] === 'mq_settings' && stateFromView(v.view)['concurrency'],
      ),
    );
    const values = stateFromView(view.view);
    values['concurrency']!['v'] = { type: 'number_input', value: '9' };
    const submission = viewSubmissionPayload({
      teamId: OTHER_TEAM,
      userId: KAZ.id,
      callbackId: 'mq_settings',
      privateMetadata: String(view.view['private_metadata']),
      values,
    });
    (submission['view'] as Record<string, unknown>)['app_installed_team_id'] = TEAM;
    h.trunk.clearRequests();
    expect((await h.postSigned(interactiveBody(submission))).status).toBe(200);
    const eph = await h.slack.waitFor(() => h.slack.ephemerals.find((e) => e.user === KAZ.id));
    expect(eph.text).toMatch(/another organization/);
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(2);
  });

  it('the workspace is asked of Slack once, not per request; our own admin still acts (control)', async () => {
    const before = h.slack.callsTo('auth.test').length;
    await h.sendCommand('pause acme/web:main', { user: USERS.admin });
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused');
    await h.sendCommand('status acme/web:main', { team: OTHER_TEAM, user: KAZ.id });
    await h.idle();
    expect(h.slack.callsTo('auth.test').length).toBe(before);
  });
});

describe('single-workspace mode in an Enterprise Grid (a workspace install)', () => {
  let h: Harness;
  const ENTERPRISE = 'E0ACMEORG1';
  const SISTER_TEAM = 'T0SISTER01';
  const SISTER = {
    id: 'W0SISTER01',
    name: 'sis',
    teamId: SISTER_TEAM,
    isAdmin: true,
    enterpriseId: ENTERPRISE,
  };
  beforeAll(async () => {
    h = await startHarness({
      slackOptions: {
        users: [...defaultUsers(), SISTER],
        tokens: {
          'xoxb-test-single-workspace': {
            teamId: TEAM,
            enterpriseId: ENTERPRISE,
            userId: 'U0BOT',
            botId: 'B0BOT',
          },
        },
      },
    });
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });
  afterAll(async () => h?.close());

  it('a member of the same enterprise typing from a sister workspace is told exactly that', async () => {
    const sent = await h.sendCommand('pause acme/web:main', {
      team: SISTER_TEAM,
      enterprise: ENTERPRISE,
      user: SISTER.id,
    });
    const text = String(ackJson(sent.text)['text']);
    expect(text).toMatch(/belong to this Enterprise Grid organization but not to the workspace/);
    expect(text).not.toMatch(/another organization/);
    await settle();
    await h.idle();
    expect(h.trunkCalls()).toHaveLength(0);
    const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(last).toMatchObject({ userId: SISTER.id, action: 'pause', outcome: 'refused' });
  });
});

describe('OAuth: a team or enterprise acts only through its own installation', () => {
  let h: Harness;
  let trunk: TrunkFake;
  const TEAM_A = 'T0TEAMA001';
  const TEAM_B = 'T0TEAMB001';
  const NEVER = 'T0NEVERIN1';
  const ADMIN_B = 'U0ADMINB01';
  beforeAll(async () => {
    trunk = await startTrunkFake({ tokens: [TRUNK_TOKEN, 'token-of-b'] });
    h = await startHarness({
      mode: 'oauth',
      trunk,
      slackOptions: {
        clientId: 'client-id-1',
        clientSecret: 'client-secret-1',
        users: [
          ...defaultUsers(),
          { id: ADMIN_B, name: 'bea', isAdmin: true, teamId: TEAM_B },
          { id: 'U0NEVER001', name: 'nev', isAdmin: true, teamId: NEVER },
        ],
      },
    });
    for (const [team, installer] of [
      [TEAM_A, USERS.admin],
      [TEAM_B, ADMIN_B],
    ] as const) {
      h.slack.setInstallation({
        teamId: team,
        installerUserId: installer,
        botUserId: `U0BOT${team.slice(-3)}`,
      });
      expect((await installViaOAuth(h)).status).toBe(200);
    }
    await h.app!.store.setTrunkCredentials(TEAM_A, { token: TRUNK_TOKEN, orgSlug: 'acme' }, USERS.admin);
    await h.app!.store.setTrunkCredentials(TEAM_B, { token: 'token-of-b', orgSlug: 'bee' }, ADMIN_B);
  });
  afterAll(async () => {
    await h?.close();
    await trunk?.close();
  });
  beforeEach(async () => {
    await h.reset();
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });

  it('a team with no installation: an ephemeral refusal in the ack, audited, no Trunk call', async () => {
    const sent = await h.sendCommand('pause acme/web:main', { team: NEVER, user: 'U0NEVER001' });
    expect(sent.status).toBe(200);
    expect(String(ackJson(sent.text)['text'])).toMatch(/not installed in your workspace/);
    await settle();
    await h.idle();
    expect(h.trunkCalls()).toHaveLength(0);
    const [last] = await h.app!.store.listAudit(NEVER, { limit: 1 });
    expect(last).toMatchObject({ userId: 'U0NEVER001', action: 'pause', outcome: 'refused' });
  });

  it('a click from an organization with no installation: an ephemeral refusal through response_url, not silence', async () => {
    const click = await h.clickButton({
      message: { channel: CHANNEL, ts: '1700000000.000100', blocks: [] },
      actionId: 'mq_pause',
      value: JSON.stringify({ ref: 'acme/web:main' }),
      team: NEVER,
      enterprise: OTHER_ENTERPRISE,
      user: 'U0NEVER001',
    });
    expect(click.status).toBe(200);
    const reply = await h.reply(click.responseUrl);
    expect(reply['response_type']).toBe('ephemeral');
    expect(textOf(reply)).toMatch(/not installed in your workspace/);
    await h.idle();
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('a team with its own installation acts with its own Trunk connection, never another’s', async () => {
    const sent = await h.sendCommand('pause acme/web:main', { team: TEAM_B, user: ADMIN_B });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() => h.trunkCalls('updateQueue')[0]);
    const tokens = new Set(h.trunkCalls().map((r) => r.headers['x-api-token']));
    expect([...tokens]).toEqual(['token-of-b']);
  });
});

describe('Socket Mode: the same guard, in front of every listener', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { SLACK_APP_TOKEN: 'xapp-1-A0FAKEAPP-test', SLACK_SIGNING_SECRET: undefined },
      slackOptions: { users: [...defaultUsers(), KAZ] },
    });
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    await h.slack.socketMode.connected();
  });
  afterAll(async () => h?.close());

  it('a command from another organization is refused in the envelope’s ack; no Trunk call', async () => {
    const responseUrl = h.slack.responseUrl({ channel: CHANNEL, user: KAZ.id });
    const fields = Object.fromEntries(
      new URLSearchParams(
        slashCommandBody({
          teamId: OTHER_TEAM,
          userId: KAZ.id,
          channelId: CHANNEL,
          text: 'pause acme/web:main',
          responseUrl,
        }),
      ),
    );
    const ack = await h.slack.socketMode.send('slash_commands', fields);
    expect(String(ack.payload?.['text'])).toMatch(/another organization/);
    await settle();
    await h.idle();
    expect(h.trunkCalls()).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
  });
});
