/**
 * Slack's documented payloads, field for field (test/fixtures/slack-payloads and its README), through the
 * real wire: an OAuth-mode app, a workspace install and an org-wide (Enterprise Grid) install. Covers
 * tokens_revoked deleting exactly what was revoked, a click on an ephemeral message, interactions no
 * listener handles, and Grid and Slack Connect shapes (W… users, `team: null`, `is_ext_shared_channel`).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import { viewSubmissionPayload } from '../../../dev/fakes/slack/signing.ts';
import { createLogger } from '../../../src/observability/log.ts';
import { slackInstallationStore } from '../../../src/slack/installation-store.ts';
import { type Harness, startHarness } from '../../helpers/app-harness.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { installViaOAuth } from '../../helpers/oauth-install.ts';
import {
  payload,
  postCommandFields,
  postEventEnvelope,
  postInteraction,
  shapeDifferences,
} from '../../helpers/slack-payloads.ts';

// The ids the fixtures use (Slack's shapes: upper-case letters and digits).
const TEAM = 'T0ACME0001';
const INSTALLER = 'U0INSTALL1';
const ADMIN = 'U0ADMIN001';
const BOT = 'U0MQBOT001';
const CHANNEL = 'C0ACMEWEB1';
const ENTERPRISE = 'E0STARSHP1';
const GRID_WORKSPACE = 'T0BRIDGE01';
const GRID_INSTALLER = 'W0CAPTAIN1';
const GRID_ADMIN = 'W0ADMIRAL1';
const GRID_BOT = 'W0MQBOT001';
const GRID_CHANNEL = 'C0BRIDGE01';

const workspaceInstall = {
  teamId: TEAM,
  teamName: 'Acme',
  installerUserId: INSTALLER,
  botUserId: BOT,
  userToken: true,
};
const orgInstall = {
  teamId: GRID_WORKSPACE,
  teamName: 'Starship',
  enterpriseId: ENTERPRISE,
  orgWide: true,
  installerUserId: GRID_INSTALLER,
  botUserId: GRID_BOT,
  userToken: true,
};
const teamQuery = { teamId: TEAM, enterpriseId: undefined, isEnterpriseInstall: false } as const;
const orgQuery = { teamId: undefined, enterpriseId: ENTERPRISE, isEnterpriseInstall: true } as const;

const logLines: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const l of chunk.toString().split('\n').filter(Boolean))
      logLines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});
const logsSince = (n: number) => logLines.slice(n);
const atLevel = (lines: Array<Record<string, unknown>>, level: string) =>
  lines.filter((l) => l['level'] === level);

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    mode: 'oauth',
    app: { logger: createLogger('debug', logStream) },
    slackOptions: {
      clientId: 'client-id-1',
      clientSecret: 'client-secret-1',
      acceptAnyBotToken: false,
      defaultTeamId: TEAM,
      installation: workspaceInstall,
      users: [
        { id: INSTALLER, name: 'ines', teamId: TEAM },
        { id: ADMIN, name: 'ada', isAdmin: true, teamId: TEAM },
        { id: GRID_INSTALLER, name: 'captain', isAdmin: true, teamId: ENTERPRISE },
        { id: GRID_ADMIN, name: 'admiral', isAdmin: true, teamId: ENTERPRISE },
      ],
    },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  expect((await installViaOAuth(h)).status).toBe(200);
  await h.app!.store.setTrunkCredentials(TEAM, { token: 'test-token', orgSlug: 'acme' }, INSTALLER);
});
afterAll(async () => h?.close());

/** Posts a status message in the channel (as the bot) and returns it as the fake Slack holds it. */
async function statusMessage(opts: { team: string; user: string; channel: string }): Promise<FakeMessage> {
  const before = h.slack.channelMessages(opts.channel).length;
  await h.sendCommand('status acme/web:main', opts);
  return h.slack.waitFor(() => h.slack.channelMessages(opts.channel)[before]);
}

/** A documented block_actions payload aimed at a button the app rendered on `msg`. */
function clickOn(name: string, msg: FakeMessage, actionId: string, user: string) {
  const body = payload<Record<string, unknown> & { actions: Array<Record<string, unknown>> }>(name);
  const button = findAction(msg.blocks ?? [], actionId)!;
  const container = body['container'] as Record<string, unknown>;
  container['message_ts'] = msg.ts;
  if (body['message'])
    Object.assign(body['message'], { ts: msg.ts, blocks: msg.blocks ?? [], text: msg.text });
  Object.assign(body.actions[0]!, {
    action_id: actionId,
    block_id: button['block_id'],
    value: button['value'],
  });
  const responseUrl = h.slack.responseUrl({ channel: msg.channel, user, messageTs: msg.ts });
  body['response_url'] = responseUrl;
  return { body, responseUrl };
}

describe('a click on an ephemeral message (container.is_ephemeral, no message)', () => {
  it('is answered through response_url at once: no chat.update, no warning', async () => {
    await h.reset();
    const msg = await statusMessage({ team: TEAM, user: ADMIN, channel: CHANNEL });
    h.slack.clear();
    const mark = logLines.length;
    const { body, responseUrl } = clickOn('block_actions.ephemeral', msg, 'mq_refresh', ADMIN);
    expect(body['message']).toBeUndefined();
    const sent = await postInteraction(h, body);
    expect(sent.status).toBe(200);
    const replaced = await h.slack.waitFor(() =>
      h.slack.postsTo(responseUrl).find((p) => p.body['replace_original'] === true),
    );
    expect(textOf(replaced.body)).toContain('acme/web:main');
    await h.idle();
    expect(h.slack.callsTo('chat.update')).toHaveLength(0);
    expect(atLevel(logsSince(mark), 'warn')).toEqual([]);
  });
});

describe('interactions no listener handles', () => {
  const unhandled: Array<[string, string]> = [
    ['view_closed', 'view_closed'],
    ['block_actions.modal-input', 'block_actions'],
  ];
  for (const [name, type] of unhandled)
    it(`${name}: acknowledged at once with an empty 200, noted at debug, no error`, async () => {
      const mark = logLines.length;
      const sent = await postInteraction(h, payload(name));
      expect(sent.status).toBe(200);
      expect(sent.text).toBe('');
      expect(sent.ackMs).toBeLessThan(1_000);
      await h.idle();
      const lines = logsSince(mark);
      expect(
        atLevel(lines, 'debug').find((l) => l['msg'] === 'no listener handles this request: acknowledged'),
      ).toMatchObject({ type });
      expect(atLevel(lines, 'error')).toEqual([]);
      expect(atLevel(lines, 'warn')).toEqual([]);
    });

  it('a global shortcut a later manifest could enable is acknowledged the same way', async () => {
    const mark = logLines.length;
    const sent = await postInteraction(h, payload('shortcut.global'));
    expect(sent.status).toBe(200);
    expect(sent.ackMs).toBeLessThan(1_000);
    await h.idle();
    expect(atLevel(logsSince(mark), 'debug').some((l) => l['type'] === 'shortcut')).toBe(true);
    expect(atLevel(logsSince(mark), 'error')).toEqual([]);
  });

  it('an event from a Slack Connect channel (is_ext_shared_channel) is acknowledged and changes nothing', async () => {
    h.slack.clear();
    const mark = logLines.length;
    const sent = await postEventEnvelope(h, payload('event_callback.ext-shared-channel'));
    expect(sent.status).toBe(200);
    expect(sent.ackMs).toBeLessThan(1_000);
    await h.idle();
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
    expect(atLevel(logsSince(mark), 'error')).toEqual([]);
  });
});

describe('tokens_revoked deletes exactly what was revoked (workspace install)', () => {
  const digestCount = async (ws: string) =>
    Number(
      (
        await h.app!.store.db.query<{ n: number | string }>(
          'SELECT COUNT(*) AS n FROM digest_subscriptions WHERE workspace_id = $1',
          [ws],
        )
      )[0]?.n ?? 0,
    );

  beforeAll(async () => {
    await h.reset();
    const sent = await h.sendCommand('digest add failing acme/web 09:00 Europe/London weekdays', {
      team: TEAM,
      user: INSTALLER,
      channel: CHANNEL,
    });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('Added digest');
    await h.app!.store.addOperator(TEAM, { kind: 'user', id: ADMIN, addedBy: INSTALLER });
  });

  it("naming only users (Slack's documented example, bot: []) forgets their token; the workspace keeps working", async () => {
    expect(
      (await slackInstallationStore(h.app!.store.installations).fetchInstallation(teamQuery)).user.token,
    ).toMatch(/^xoxp-/);
    expect(await digestCount(TEAM)).toBe(1);
    const sent = await postEventEnvelope(h, payload('tokens_revoked.users-only'));
    expect(sent.status).toBe(200);
    await h.idle();
    const inst = await slackInstallationStore(h.app!.store.installations).fetchInstallation(teamQuery);
    expect(inst.user.token).toBeUndefined();
    expect(inst.bot?.token).toMatch(/^xoxb-/);
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toMatchObject({ orgSlug: 'acme' });
    expect(await digestCount(TEAM)).toBe(1);
    expect((await h.app!.store.listOperators(TEAM)).map((o) => o.id)).toContain(ADMIN);
    // And a command still works, with the same bot token.
    const msg = await statusMessage({ team: TEAM, user: ADMIN, channel: CHANNEL });
    expect(textOf(msg)).toContain('acme/web:main');
  });

  it('naming our bot deletes the bot token and the digests; Trunk token and operators stay for a re-install', async () => {
    const sent = await postEventEnvelope(h, payload('tokens_revoked.bot'));
    expect(sent.status).toBe(200);
    await h.idle();
    await expect(
      slackInstallationStore(h.app!.store.installations).fetchInstallation(teamQuery),
    ).rejects.toThrow();
    expect(await digestCount(TEAM)).toBe(0);
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toMatchObject({ orgSlug: 'acme' });
    expect((await h.app!.store.listOperators(TEAM)).map((o) => o.id)).toContain(ADMIN);
    // Re-installed, the workspace works without connecting Trunk again.
    expect((await installViaOAuth(h)).status).toBe(200);
    const msg = await statusMessage({ team: TEAM, user: ADMIN, channel: CHANNEL });
    expect(textOf(msg)).toContain('acme/web:main');
  });
});

describe('org-wide install (Enterprise Grid): documented shapes', () => {
  beforeAll(async () => {
    await h.reset();
    h.slack.setInstallation(orgInstall);
    expect((await installViaOAuth(h)).status).toBe(200);
    await h.app!.store.setTrunkCredentials(
      ENTERPRISE,
      { token: 'test-token', orgSlug: 'acme' },
      GRID_INSTALLER,
    );
  });

  it("the install answer follows Slack's documented org-wide example (team: null) and is stored under the enterprise", async () => {
    const answer = h.slack.callsTo('oauth.v2.access').at(-1)!.response;
    expect(shapeDifferences(answer, payload('oauth.v2.access.org-wide'))).toEqual([]);
    const inst = await slackInstallationStore(h.app!.store.installations).fetchInstallation(orgQuery);
    expect(inst).toMatchObject({ isEnterpriseInstall: true, enterprise: { id: ENTERPRISE } });
    expect(inst.team).toBeUndefined();
    expect((await h.app!.store.getWorkspace(ENTERPRISE))?.installerUserId).toBe(GRID_INSTALLER);
  });

  it('a slash command from a workspace of the org (is_enterprise_install=true) answers with the org token', async () => {
    const fields = payload<Record<string, string>>('slash_command.org-wide');
    fields['response_url'] = h.slack.responseUrl({ channel: GRID_CHANNEL, user: GRID_ADMIN });
    const sent = await postCommandFields(h, fields);
    expect(sent.status).toBe(200);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(GRID_CHANNEL)[0]);
    expect(textOf(msg)).toContain('acme/web:main');
    const issued = h.slack.issuedTokens.at(-1)!;
    expect(issued.teamId).toBe(ENTERPRISE);
    expect(h.slack.callsTo('chat.postMessage').at(-1)!.token).toBe(issued.token);
  });

  it('a Grid admin (W… id, user.team_id an E… id, team: null) pauses from that message', async () => {
    const msg = h.slack.channelMessages(GRID_CHANNEL)[0]!;
    const { body } = clickOn('block_actions.org-wide.grid-user', msg, 'mq_pause', GRID_ADMIN);
    expect(body['team']).toBeNull();
    const sent = await postInteraction(h, body);
    expect(sent.status).toBe(200);
    // Pause opens the reason modal; its submission, in the same org-wide shape, makes the change.
    const view = await h.slack.waitFor(() =>
      h.slack.views.find((v) => v.triggerId === body['trigger_id'] && v.view['callback_id'] === 'mq_reason'),
    );
    const submission = viewSubmissionPayload({
      teamId: GRID_WORKSPACE,
      userId: GRID_ADMIN,
      enterpriseId: ENTERPRISE,
      callbackId: 'mq_reason',
      privateMetadata: String(view.view['private_metadata']),
      values: { reason: { v: { type: 'plain_text_input', value: 'bridge maintenance' } } },
    });
    Object.assign(submission, { team: null, is_enterprise_install: true });
    Object.assign(submission['user'] as Record<string, unknown>, { team_id: ENTERPRISE });
    expect((await postInteraction(h, submission)).status).toBe(200);
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused' || undefined);
    await h.idle();
    const audit = await h.app!.store.listAudit(ENTERPRISE, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: GRID_ADMIN });
    expect(textOf(h.slack.message(GRID_CHANNEL, msg.ts))).toContain(`<@${GRID_ADMIN}>`);
  });

  it('a revocation for another enterprise touches nothing of ours', async () => {
    const sent = await postEventEnvelope(h, payload('tokens_revoked.other-enterprise'));
    expect(sent.status).toBe(200);
    await h.idle();
    const org = await slackInstallationStore(h.app!.store.installations).fetchInstallation(orgQuery);
    expect(org.bot?.token).toMatch(/^xoxb-/);
    expect(org.user.token).toMatch(/^xoxp-/);
    expect(await h.app!.store.getTrunkCredentials(ENTERPRISE)).toMatchObject({ orgSlug: 'acme' });
    expect(
      (await slackInstallationStore(h.app!.store.installations).fetchInstallation(teamQuery)).bot?.token,
    ).toMatch(/^xoxb-/);
  });
});

describe('tokens_revoked in single-workspace mode (SLACK_BOT_TOKEN)', () => {
  // The fake Slack's auth.test says the configured token is bot user U0BOT of T0DEFAULT.
  let single: Harness;
  const digests = async () =>
    (
      await single.app!.store.db.query('SELECT id FROM digest_subscriptions WHERE workspace_id = $1', [
        'T0DEFAULT',
      ])
    ).length;
  /** The documented bot revocation, for `team` naming `bot`. */
  const revocation = (team: string, bot: string) => {
    const body = payload<{ team_id: string; event: { tokens: { oauth: string[]; bot: string[] } } }>(
      'tokens_revoked.bot',
    );
    body.team_id = team;
    body.event.tokens = { oauth: [], bot: [bot] };
    return body;
  };

  beforeAll(async () => {
    single = await startHarness();
    single.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
    const sent = await single.sendCommand('digest add failing acme/web 09:00 Europe/London', {
      user: 'UADMIN0001',
    });
    expect(textOf(await single.reply(sent.responseUrl))).toContain('Added digest');
  });
  afterAll(async () => single?.close());

  it('naming another bot user, or for another workspace, deletes nothing', async () => {
    await postEventEnvelope(single, revocation('T0DEFAULT', 'U0NOTOURS1'));
    await postEventEnvelope(single, revocation('T0ELSEWHR1', 'U0BOT'));
    await single.idle();
    expect(await digests()).toBe(1);
  });

  it('naming the configured token’s bot user deletes the digests, which could no longer post', async () => {
    await postEventEnvelope(single, revocation('T0DEFAULT', 'U0BOT'));
    await single.idle();
    expect(await digests()).toBe(0);
  });
});
