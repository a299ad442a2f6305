/**
 * Webhook signing secrets entered in `/mergequeue connect`, end to end: stored encrypted, never echoed, the
 * answer names this workspace's endpoint path; a delivery signed with a stored secret is then accepted, a
 * malformed secret is refused in its field with nothing saved, and "remove" removes them (deliveries 401).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signDelivery } from '../../dev/fakes/trunk/index.ts';
import { type Harness, startHarness, TEAM, USERS } from '../helpers/app-harness.ts';
import { stateFromView } from '../helpers/block-kit-reading.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.trunk.setTokens(['connect-v1-token-1']);
  h.trunk.addQueue('acme/web', 'main', {});
}, 30_000);
afterAll(async () => h?.close());

async function submit(secrets: string) {
  const before = h.slack.views.length;
  await h.sendCommand('connect', { user: USERS.admin });
  const view = await h.slack.waitFor(() =>
    h.slack.views.slice(before).find((v) => v.view['callback_id'] === 'mq_connect'),
  );
  const values = stateFromView(view.view);
  values['token'] = { v: { type: 'plain_text_input', value: 'connect-v1-token-1' } };
  values['orgSlug'] = { v: { type: 'plain_text_input', value: 'acme' } };
  values['webhookSecrets'] = { v: { type: 'plain_text_input', value: secrets || null } };
  return h.submitView({ view, values, user: USERS.admin });
}

async function deliver(secret: string): Promise<number> {
  const body = JSON.stringify({ type: 'pull_request.submitted', pr_number: 1 });
  const res = await fetch(`${h.url}/trunk/webhooks/${TEAM}`, {
    method: 'POST',
    headers: signDelivery(secret, newMessageId(), Math.floor(Date.now() / 1000), body),
    body,
  });
  await res.text();
  return res.status;
}

describe('connect: webhook signing secrets', () => {
  it('stores several, encrypted and never echoed, and shows the endpoint path', async () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(await deliver(a)).toBe(401);
    const sub = await submit(`${a}\n${b}`);
    expect(sub.json).toBeUndefined();
    const answer = await h.slack.waitFor(() =>
      h.slack.ephemerals.find((e) => JSON.stringify(e).includes('/trunk/webhooks/')),
    );
    expect(JSON.stringify(answer)).toContain(`/trunk/webhooks/${TEAM}`);
    expect(JSON.stringify(answer)).not.toContain('whsec_');
    expect(await h.app!.store.getTrunkWebhookSecrets(TEAM)).toEqual([a, b]);
    const raw = await h.app!.store.db.query('SELECT trunk_webhook_secrets FROM workspace_settings');
    expect(JSON.stringify(raw)).not.toContain('whsec_');
    expect(await deliver(b)).toBe(200);
    expect(await deliver(newWebhookSecret())).toBe(401);
  });

  it('refuses a malformed secret in its field and saves nothing', async () => {
    const kept = await h.app!.store.getTrunkWebhookSecrets(TEAM);
    const sub = await submit('whsec_oops not-a-secret');
    expect(sub.json).toMatchObject({
      response_action: 'errors',
      errors: { webhookSecrets: expect.stringContaining('whsec_') },
    });
    expect(JSON.stringify(sub.json)).not.toContain('oops');
    expect(await h.app!.store.getTrunkWebhookSecrets(TEAM)).toEqual(kept);
  });

  it('keeps them when the field is empty, removes them on "remove"', async () => {
    const kept = await h.app!.store.getTrunkWebhookSecrets(TEAM);
    expect((await submit('')).json).toBeUndefined();
    expect(await h.app!.store.getTrunkWebhookSecrets(TEAM)).toEqual(kept);
    expect((await submit('remove')).json).toBeUndefined();
    expect(await h.app!.store.getTrunkWebhookSecrets(TEAM)).toEqual([]);
    expect(await deliver(kept[0]!)).toBe(401);
  });
});
