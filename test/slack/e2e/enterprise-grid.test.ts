/**
 * Enterprise Grid, as DESIGN says (issue 19): on an org-wide install the organization's admins and owners
 * (`users.info` → `enterprise_user.is_admin` / `is_owner`, though not admins of the workspace they type in)
 * are operators, by command, button and the settings form. On a workspace install, a member of the same
 * organization who does not belong to the workspace is told exactly that. Payloads follow Slack's
 * documented org-wide shapes (test/fixtures/slack-payloads).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import { viewSubmissionPayload } from '../../../dev/fakes/slack/signing.ts';
import type { Harness } from '../../helpers/app-harness.ts';
import { findAction, stateFromView, textOf } from '../../helpers/block-kit-reading.ts';
import { gridMember, installViaOAuth, startOrgWideHarness } from '../../helpers/oauth-install.ts';
import { payload, postCommandFields, postInteraction } from '../../helpers/slack-payloads.ts';

const ENTERPRISE = 'E0STARSHP1';
const GRID_WORKSPACE = 'T0BRIDGE01';
const GRID_CHANNEL = 'C0BRIDGE01';
const GRID_INSTALLER = 'W0CAPTAIN1';
/** Admin and owner of the organization, plain members of the workspace they type in. */
const ORG_ADMIN = 'W0ORGADM01';
const ORG_OWNER = 'W0ORGOWN01';
const ORG_MEMBER = 'W0ORGMEM01';

const ACME_ENTERPRISE = 'E0ACMEORG1';
const ACME = 'T0ACME0001';
const SISTER = 'W0SISTER01';

const gridUser = gridMember(ENTERPRISE, GRID_WORKSPACE);

let h: Harness;

beforeAll(async () => {
  h = await startOrgWideHarness({
    enterpriseId: ENTERPRISE,
    workspaceId: GRID_WORKSPACE,
    installer: GRID_INSTALLER,
    botUserId: 'W0MQBOT001',
    users: [
      gridUser(GRID_INSTALLER),
      gridUser(ORG_ADMIN, { enterpriseAdmin: true }),
      gridUser(ORG_OWNER, { enterpriseOwner: true }),
      gridUser(ORG_MEMBER),
      // An admin of a sister workspace of Acme's organization, not a member of Acme's workspace.
      {
        id: SISTER,
        name: 'sis',
        teamId: 'T0SISTER01',
        enterpriseId: ACME_ENTERPRISE,
        teams: ['T0SISTER01'],
        isAdmin: true,
      },
    ],
  });
  expect((await installViaOAuth(h)).status).toBe(200);
  await h.app!.store.setTrunkCredentials(
    ENTERPRISE,
    { token: 'test-token', orgSlug: 'acme' },
    GRID_INSTALLER,
  );
  h.slack.setInstallation({ teamId: ACME, enterpriseId: ACME_ENTERPRISE, installerUserId: 'U0INSTALL1' });
  expect((await installViaOAuth(h)).status).toBe(200);
  await h.app!.store.setTrunkCredentials(ACME, { token: 'test-token', orgSlug: 'acme' }, 'U0INSTALL1');
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

/** The documented org-wide slash command, typed by `user`. */
async function orgCommand(user: string, text: string) {
  const fields = payload<Record<string, string>>('slash_command.org-wide');
  const responseUrl = h.slack.responseUrl({ channel: GRID_CHANNEL, user });
  Object.assign(fields, { user_id: user, user_name: user.toLowerCase(), text, response_url: responseUrl });
  const sent = await postCommandFields(h, fields);
  expect(sent.status).toBe(200);
  return { ...sent, responseUrl };
}

/** The documented org-wide block_actions payload (team: null), clicking `actionId` on `msg` as `user`. */
async function orgClick(msg: FakeMessage, actionId: string, user: string) {
  const body = payload<Record<string, unknown> & { actions: Array<Record<string, unknown>> }>(
    'block_actions.org-wide.grid-user',
  );
  const button = findAction(msg.blocks ?? [], actionId)!;
  (body['container'] as Record<string, unknown>)['message_ts'] = msg.ts;
  Object.assign(body['message'] as object, { ts: msg.ts, blocks: msg.blocks ?? [], text: msg.text });
  Object.assign(body['user'] as object, { id: user, username: user.toLowerCase(), name: user.toLowerCase() });
  Object.assign(body.actions[0]!, {
    action_id: actionId,
    block_id: button['block_id'],
    value: button['value'],
  });
  const responseUrl = h.slack.responseUrl({ channel: msg.channel, user, messageTs: msg.ts });
  body['response_url'] = responseUrl;
  const sent = await postInteraction(h, body);
  expect(sent.status).toBe(200);
  return { ...sent, responseUrl };
}

async function statusMessage(): Promise<FakeMessage> {
  const before = h.slack.channelMessages(GRID_CHANNEL).length;
  await orgCommand(GRID_INSTALLER, 'status acme/web:main');
  const msg = await h.slack.waitFor(() => h.slack.channelMessages(GRID_CHANNEL)[before]);
  h.trunk.clearRequests();
  return msg;
}

describe('org-wide install: the organization’s admins and owners are operators', () => {
  it('an admin of the organization (enterprise_user.is_admin, not a workspace admin) pauses by command', async () => {
    await orgCommand(ORG_ADMIN, 'pause acme/web:main maintenance');
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused' || undefined);
    await h.idle();
    const [last] = await h.app!.store.listAudit(ENTERPRISE, { limit: 1 });
    expect(last).toMatchObject({ userId: ORG_ADMIN, action: 'pause', outcome: 'ok' });
  });

  it('an owner of the organization resumes by button', async () => {
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    const msg = await statusMessage();
    await orgClick(msg, 'mq_resume', ORG_OWNER);
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'running' || undefined);
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
  });

  it('an admin of the organization saves the settings form', async () => {
    await orgCommand(ORG_ADMIN, 'settings acme/web:main');
    const view = await h.slack.waitFor(() =>
      h.slack.views.find(
        (v) => v.view['callback_id'] === 'mq_settings' && stateFromView(v.view)['concurrency'],
      ),
    );
    const values = stateFromView(view.view);
    values['concurrency']!['v'] = { type: 'number_input', value: '5' };
    const submission = viewSubmissionPayload({
      teamId: GRID_WORKSPACE,
      userId: ORG_ADMIN,
      enterpriseId: ENTERPRISE,
      callbackId: 'mq_settings',
      privateMetadata: String(view.view['private_metadata']),
      values,
    });
    Object.assign(submission, { team: null, is_enterprise_install: true });
    Object.assign(submission['user'] as Record<string, unknown>, { team_id: ENTERPRISE });
    expect((await postInteraction(h, submission)).status).toBe(200);
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.concurrency === 5 || undefined);
  });

  it('a plain member of the organization is still refused (control)', async () => {
    const sent = await orgCommand(ORG_MEMBER, 'pause acme/web:main');
    const reply = await h.reply(sent.responseUrl);
    expect(reply['response_type']).toBe('ephemeral');
    expect(textOf(reply)).toMatch(/admins and owners of the organization/);
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });
});

describe('workspace install in a Grid: a member of the organization outside this workspace', () => {
  it('is told exactly that, not "another organization"; audited; nothing sent', async () => {
    const sent = await h.sendCommand('pause acme/web:main', {
      team: ACME,
      enterprise: ACME_ENTERPRISE,
      user: SISTER,
      channel: 'C0ACMEWEB1',
    });
    const reply = await h.reply(sent.responseUrl);
    expect(reply['response_type']).toBe('ephemeral');
    expect(textOf(reply)).toMatch(/belong to this Enterprise Grid organization but not to this workspace/);
    expect(textOf(reply)).not.toMatch(/another organization/);
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    const [last] = await h.app!.store.listAudit(ACME, { limit: 1 });
    expect(last).toMatchObject({ userId: SISTER, action: 'pause', outcome: 'refused' });
  });
});
