/**
 * Which `<workspace>` path a signing secret verifies, through the real wire. Single-workspace mode:
 * TRUNK_WEBHOOK_SECRET only on the id commands and feeds are kept under (the bot token's team; its enterprise
 * only for an org-wide token), so nothing is answered 200 and then kept under an id nothing is filed under;
 * while Slack has not said whose the bot token is, 503 (Svix retries), quickly. OAuth: each installation's
 * stored secrets on its own path only (the enterprise's for an org-wide install), and each keeps its copy of
 * a message Svix sent to both endpoints under one id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSlackFake } from '../../dev/fakes/slack/server.ts';
import { newMessageId, newWebhookSecret, signDelivery } from '../../dev/fakes/trunk/index.ts';
import { BOT_TOKEN, type Harness, startHarness } from '../helpers/app-harness.ts';
import { installViaOAuth } from '../helpers/oauth-install.ts';

const SECRET = newWebhookSecret();
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function post(ws: string, secret = SECRET, id = newMessageId()): Promise<number> {
  const body = JSON.stringify({ type: 'something.new' });
  const headers = signDelivery(secret, id, Math.floor(Date.now() / 1000), body);
  const res = await fetch(`${h!.url}/trunk/webhooks/${ws}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await res.text();
  return res.status;
}

const token = (orgWide: boolean) => ({
  [BOT_TOKEN]: {
    teamId: orgWide ? 'E0GRID0001' : 'T0GRIDTEAM',
    enterpriseId: 'E0GRID0001',
    isEnterpriseInstall: orgWide,
    userId: 'U0BOT',
    botId: 'B0BOT',
  },
});

describe('TRUNK_WEBHOOK_SECRET in single-workspace mode', () => {
  it.each([
    [
      "the team's path, not its enterprise's, for a workspace token in a Grid",
      false,
      'T0GRIDTEAM',
      'E0GRID0001',
    ],
    ["the enterprise's path for an org-wide token", true, 'E0GRID0001', 'T0GRIDTEAM'],
  ])('verifies %s', async (_, orgWide, ours, other) => {
    h = await startHarness({
      env: { TRUNK_WEBHOOK_SECRET: SECRET },
      slackOptions: { tokens: token(orgWide) },
    });
    expect(await post(ours)).toBe(200);
    expect(await post(other)).toBe(401);
  });

  it('answers 503 within seconds while Slack has not said whose the bot token is', async () => {
    const slack = await startSlackFake({ tokens: token(false) });
    try {
      slack.failNext('auth.test', { delayMs: 60_000 }, 100);
      h = await startHarness({ slack, env: { TRUNK_WEBHOOK_SECRET: SECRET } });
      const started = Date.now();
      expect(await post('T0GRIDTEAM')).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await h?.close();
      h = undefined;
      await slack.close();
    }
  }, 20_000);
});

describe('OAuth: each installation its own secrets', () => {
  it("verifies a workspace's deliveries with its secrets only, an org-wide install's on its enterprise path", async () => {
    h = await startHarness({
      mode: 'oauth',
      slackOptions: { clientId: 'client-id-1', clientSecret: 'client-secret-1', acceptAnyBotToken: false },
    });
    const installs = [
      { teamId: 'T0TEAMAAA1' },
      { teamId: 'T0TEAMBBB1' },
      { teamId: 'T0GRIDWS01', enterpriseId: 'E0GRIDORG1', orgWide: true },
    ];
    const secrets = new Map<string, string>();
    for (const inst of installs) {
      h.slack.setInstallation({ ...inst, installerUserId: 'UINSTALL01', botUserId: 'UBOT000001' });
      expect((await installViaOAuth(h)).status).toBeLessThan(400);
      const id = inst.enterpriseId ?? inst.teamId;
      secrets.set(id, newWebhookSecret());
      await h.app!.store.setTrunkWebhookSecrets(id, [secrets.get(id)!], 'UINSTALL01');
    }
    expect(await post('T0TEAMAAA1', secrets.get('T0TEAMAAA1'))).toBe(200);
    expect(await post('T0TEAMBBB1', secrets.get('T0TEAMAAA1'))).toBe(401);
    expect(await post('T0TEAMBBB1', secrets.get('T0TEAMBBB1'))).toBe(200);
    expect(await post('E0GRIDORG1', secrets.get('E0GRIDORG1'))).toBe(200);
    expect(await post('T0GRIDWS01', secrets.get('E0GRIDORG1'))).toBe(401);
    expect(await post('T0NOBODY01', secrets.get('T0TEAMAAA1'))).toBe(401);
    // Svix gives one message the same id at each endpoint: each workspace keeps its copy, once.
    const shared = newMessageId();
    const kept = async (ws: string) =>
      (await h!.app!.store.db.query('SELECT delivery_id FROM webhook_inbox WHERE workspace_id = $1', [ws]))
        .map((r) => String(r['delivery_id']))
        .filter((d) => d.startsWith(shared));
    for (let i = 0; i < 2; i++)
      for (const ws of ['T0TEAMAAA1', 'T0TEAMBBB1'])
        expect(await post(ws, secrets.get(ws), shared)).toBe(200);
    expect(await kept('T0TEAMAAA1')).toHaveLength(1);
    expect(await kept('T0TEAMBBB1')).toHaveLength(1);
  });
});
