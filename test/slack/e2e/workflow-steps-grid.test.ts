/**
 * Workflow Builder steps on Enterprise Grid, where Slack lets an app with custom steps be installed only
 * organization-wide (manifest `org_deploy_enabled: true`): the step's envelope names the enterprise
 * install, the app acts in the organization's one workspace (`E…`: its Trunk connection, its operators),
 * and the organization's admins are operators while its plain members are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/app-harness.ts';
import { gridMember, installViaOAuth, startOrgWideHarness } from '../../helpers/oauth-install.ts';
import { runStep } from '../../helpers/slack-payloads.ts';

const ENTERPRISE = 'E0FLOWORG1';
const WORKSPACE = 'T0FLOWWS01';
const INSTALLER = 'W0FLOWINS1';
const ORG_ADMIN = 'W0FLOWADM1';
const ORG_MEMBER = 'W0FLOWMEM1';

const gridUser = gridMember(ENTERPRISE, WORKSPACE);

let h: Harness;

beforeAll(async () => {
  h = await startOrgWideHarness({
    enterpriseId: ENTERPRISE,
    workspaceId: WORKSPACE,
    installer: INSTALLER,
    botUserId: 'W0FLOWBOT1',
    users: [gridUser(INSTALLER), gridUser(ORG_ADMIN, { enterpriseAdmin: true }), gridUser(ORG_MEMBER)],
  });
  expect((await installViaOAuth(h)).status).toBe(200);
  await h.app!.store.setTrunkCredentials(ENTERPRISE, { token: 'test-token', orgSlug: 'acme' }, INSTALLER);
  h.trunk.addQueue('acme/grid', 'main', { state: 'running' });
});
afterAll(async () => h?.close());

const grid = { teamId: WORKSPACE, enterpriseId: ENTERPRISE, enterpriseInstall: true };

describe('steps of an org-wide install', () => {
  it("an organization admin pauses a queue through the organization's Trunk connection", async () => {
    const run = await runStep(h, 'pause_queue', { target: 'acme/grid:main' }, { ...grid, person: ORG_ADMIN });
    expect(run.sent.status).toBe(200);
    const done = await h.slack.waitFor(() => h.slack.functionCompletions(run.executionId)[0]);
    expect(done).toMatchObject({ kind: 'success', outputs: { state: 'paused' }, token: run.token });
    expect(h.trunk.queue('acme/grid', 'main')!.state).toBe('paused');
    const audit = await h.app!.store.listAudit(ENTERPRISE, { target: 'acme/grid:main', limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: ORG_ADMIN });
  });

  it('a plain member of the organization is refused', async () => {
    const run = await runStep(
      h,
      'resume_queue',
      { target: 'acme/grid:main' },
      { ...grid, person: ORG_MEMBER },
    );
    const done = await h.slack.waitFor(() => h.slack.functionCompletions(run.executionId)[0]);
    expect(done.kind).toBe('error');
    expect(done.error).toContain("You can't resume acme/grid:main");
    expect(h.trunk.queue('acme/grid', 'main')!.state).toBe('paused');
  });
});
