/**
 * Link unfurls on Enterprise Grid, on an org-wide install (the install custom steps need): the link_shared
 * envelope names the enterprise install, the app reads through the organization's Trunk connection, and a
 * channel shared between the organization's workspaces unfurls while a Slack Connect channel does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventEnvelope } from '../../../dev/fakes/slack/signing.ts';
import { linkSharedEvent } from '../../../dev/fakes/slack/unfurl.ts';
import type { Harness } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { gridMember, installViaOAuth, startOrgWideHarness } from '../../helpers/oauth-install.ts';
import { postEventEnvelope } from '../../helpers/slack-payloads.ts';

const ENTERPRISE = 'E0LINKORG1';
const WORKSPACE = 'T0LINKWS01';
const INSTALLER = 'W0LINKINS1';
const MEMBER = 'W0LINKMEM1';
const APP = 'https://app.trunk.io';

const gridUser = gridMember(ENTERPRISE, WORKSPACE);

let h: Harness;

beforeAll(async () => {
  h = await startOrgWideHarness({
    enterpriseId: ENTERPRISE,
    workspaceId: WORKSPACE,
    installer: INSTALLER,
    botUserId: 'W0LINKBOT1',
    users: [gridUser(INSTALLER), gridUser(MEMBER)],
    env: { TRUNK_APP_URL: APP },
  });
  expect((await installViaOAuth(h)).status).toBe(200);
  await h.app!.store.setTrunkCredentials(ENTERPRISE, { token: 'test-token', orgSlug: 'acme' }, INSTALLER);
  h.trunk.addQueue('acme/grid', 'main', { state: 'running' }, [
    { prNumber: 7, prTitle: 'Org change', state: 'pending' },
  ]);
});
afterAll(async () => h?.close());

async function paste(channel: string, url: string) {
  const before = h.slack.unfurls.length;
  const event = linkSharedEvent({ user: MEMBER, channel, urls: [url] });
  const envelope = eventEnvelope({
    teamId: WORKSPACE,
    enterpriseId: ENTERPRISE,
    enterpriseInstall: true,
    event,
  });
  expect((await postEventEnvelope(h, envelope)).status).toBe(200);
  await h.idle();
  return h.slack.unfurls.slice(before);
}

describe('link unfurls on an org-wide install', () => {
  it("a channel shared between the organization's workspaces unfurls, through the organization's Trunk", async () => {
    h.slack.setChannel({ id: 'C0LINKORG1', name: 'releases', isOrgShared: true });
    const url = `${APP}/acme/pull/7?repo=acme/grid`;
    const [u] = await paste('C0LINKORG1', url);
    expect(u?.channel).toBe('C0LINKORG1');
    expect(textOf({ blocks: u!.unfurls[url]!['blocks'] })).toContain('Org change');
  });

  it('a channel shared with another organization unfurls to nothing, and Trunk is not asked', async () => {
    h.slack.setChannel({ id: 'C0LINKEXT1', name: 'with-vendor', isShared: true });
    const reads = h.trunk.requests.length;
    expect(await paste('C0LINKEXT1', `${APP}/acme/pull/7?repo=acme/grid`)).toEqual([]);
    expect(h.trunk.requests).toHaveLength(reads);
  });
});
