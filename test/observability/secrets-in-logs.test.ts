/**
 * No secret in any log line at any level. At LOG_LEVEL=trace the Slack libraries log request bodies and
 * URLs as plain text (the OAuth exchange's client_secret and code, the refresh grant's refresh_token),
 * which key-based redaction never sees. This runs an OAuth install and a token refresh (rotation) in a
 * child process and reads everything it wrote.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSlackFake } from '../../dev/fakes/slack/server.ts';
import { signedHeaders, slashCommandBody } from '../../dev/fakes/slack/signing.ts';
import { CHANNEL, type Harness, startHarness, USERS } from '../helpers/app-harness.ts';

const TEAM = 'T0LOGTEAM1';
const hex = (n: number) => randomBytes(n).toString('hex');
const SECRETS = {
  clientSecret: `cs${hex(16)}`,
  stateSecret: `st${hex(16)}`,
  trunkToken: `trk${hex(12)}`,
  // "+" and "/" so that the URL-encoded form is different from the raw one.
  encryptionKey: Buffer.from(`${'\xfb\xff'.repeat(8)}${hex(8)}`, 'latin1').toString('base64'),
};
const CODE = `${Date.now()}.${hex(6)}.${hex(32)}`;
let h: Harness;

beforeAll(async () => {
  const slack = await startSlackFake({
    clientId: 'client-id-1',
    clientSecret: SECRETS.clientSecret,
    acceptAnyBotToken: false,
    installation: {
      teamId: TEAM,
      installerUserId: USERS.member,
      botUserId: 'U0BOTLOG1',
      tokenRotation: true,
      expiresInSeconds: 600, // inside the refresh window: the next request refreshes it
    },
    users: [{ id: USERS.member, name: 'mel', teamId: TEAM }],
  });
  h = await startHarness({
    mode: 'oauth',
    process: true,
    slack,
    env: {
      LOG_LEVEL: 'trace',
      SLACK_CLIENT_SECRET: SECRETS.clientSecret,
      SLACK_STATE_SECRET: SECRETS.stateSecret,
      ENCRYPTION_KEY: SECRETS.encryptionKey,
      TRUNK_API_TOKEN: SECRETS.trunkToken,
      TRUNK_ORG_SLUG: 'acme',
    },
  });
}, 30_000);
afterAll(async () => {
  await h?.close();
  await h?.slack.close();
});

describe('logs at LOG_LEVEL=trace', () => {
  it('an OAuth install and a token refresh write no secret, token, code or signature', async () => {
    const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
    const done = await fetch(
      `${h.url}/slack/oauth_redirect?code=${encodeURIComponent(CODE)}&state=${encodeURIComponent(state)}`,
      { headers: { cookie }, redirect: 'manual' },
    );
    expect(done.status).toBe(200);
    const first = h.slack.issuedTokens.at(-1)!;

    // A signed command from the new workspace: authorize() refreshes the expiring bot token first.
    const body = slashCommandBody({
      teamId: TEAM,
      userId: USERS.member,
      channelId: CHANNEL,
      text: 'help',
      responseUrl: h.slack.responseUrl({ channel: CHANNEL, user: USERS.member }),
    });
    const headers = signedHeaders(h.signingSecret, body);
    const sent = await fetch(`${h.url}/slack/events`, { method: 'POST', headers, body });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() =>
      h.slack.callsTo('oauth.v2.access').find((c) => c.args['grant_type'] === 'refresh_token'),
    );
    await h.slack.waitFor(() => h.slack.responsePosts[0]);
    const second = h.slack.issuedTokens.at(-1)!;
    expect(second.token).not.toBe(first.token);
    // Let the last lines (the refreshed tokens saved, the reply sent) reach the output.
    await new Promise((r) => setTimeout(r, 300));

    const out = h.output();
    // The run really logged at trace: the libraries' own request lines are there.
    expect(out).toContain('oauth.v2.access');
    expect(out).toMatch(/"level":"debug"/);
    const forbidden: Record<string, string> = {
      ...SECRETS,
      encryptionKeyUrlEncoded: encodeURIComponent(SECRETS.encryptionKey),
      signingSecret: h.signingSecret,
      code: CODE,
      codeUrlEncoded: encodeURIComponent(CODE),
      signature: String(headers['x-slack-signature']).slice(3),
      firstBotToken: first.token,
      firstRefreshToken: first.refreshToken!,
      secondBotToken: second.token,
      secondRefreshToken: second.refreshToken!,
    };
    for (const [name, value] of Object.entries(forbidden))
      expect(out.includes(value), `${name} appears in the output`).toBe(false);
  }, 30_000);
});
