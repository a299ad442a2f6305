/** The browser part of an OAuth install, as Slack and a person's browser do it, against the harness. */
import { expect } from 'vitest';
import type { SlackFakeOptions } from '../../dev/fakes/slack/server.ts';
import { type Harness, type HarnessOptions, startHarness } from './app-harness.ts';

/** GET /slack/install, then Slack's redirect back with a code; returns the redirect's response. */
export async function installViaOAuth(h: Harness, clientId = 'client-id-1'): Promise<Response> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const location = new URL(start.headers.get('location')!);
  expect(location.pathname).toBe('/oauth/v2/authorize');
  expect(location.searchParams.get('client_id')).toBe(clientId);
  expect(location.searchParams.get('scope')).toContain('commands');
  const state = location.searchParams.get('state')!;
  expect(state).toBeTruthy();
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
  return fetch(`${h.url}/slack/oauth_redirect?code=fake-code-1&state=${encodeURIComponent(state)}`, {
    headers: { cookie },
    redirect: 'manual',
  });
}

type FakeUser = NonNullable<SlackFakeOptions['users']>[number];

/** People of an Enterprise Grid organization who belong to its workspace `workspaceId`. */
export function gridMember(enterpriseId: string, workspaceId: string) {
  return (id: string, extra: Partial<FakeUser> = {}): FakeUser => ({
    id,
    name: id.toLowerCase(),
    teamId: workspaceId,
    enterpriseId,
    teams: [workspaceId],
    ...extra,
  });
}

export interface OrgWideInstall {
  enterpriseId: string;
  workspaceId: string;
  installer: string;
  botUserId: string;
  /** The people the fake Slack knows (the installer among them). */
  users: FakeUser[];
  env?: HarnessOptions['env'];
}

/**
 * A harness in OAuth mode whose fake Slack will grant an org-wide install of `enterpriseId` (its workspace
 * `workspaceId`) by `installer`; the test then installs through the browser flow (installViaOAuth).
 */
export async function startOrgWideHarness(o: OrgWideInstall): Promise<Harness> {
  const h = await startHarness({
    mode: 'oauth',
    ...(o.env ? { env: o.env } : {}),
    slackOptions: {
      clientId: 'client-id-1',
      clientSecret: 'client-secret-1',
      acceptAnyBotToken: false,
      users: o.users,
    },
  });
  h.slack.setInstallation({
    teamId: o.workspaceId,
    enterpriseId: o.enterpriseId,
    orgWide: true,
    installerUserId: o.installer,
    botUserId: o.botUserId,
  });
  return h;
}
