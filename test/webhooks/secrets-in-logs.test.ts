/**
 * No webhook signing secret or signature in any log line, at LOG_LEVEL=trace: the app in a child process
 * (TRUNK_WEBHOOK_SECRET set) receives good, forged and stale deliveries, and everything it wrote is read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signDelivery } from '../../dev/fakes/trunk/index.ts';
import { type Harness, startHarness, TEAM } from '../helpers/app-harness.ts';

const SECRET = newWebhookSecret();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ process: true, env: { LOG_LEVEL: 'trace', TRUNK_WEBHOOK_SECRET: SECRET } });
}, 30_000);
afterAll(async () => {
  await h?.close();
});

describe('logs at LOG_LEVEL=trace', () => {
  it('Trunk webhook deliveries, good or refused, write no secret or signature', async () => {
    const body = JSON.stringify({ type: 'pull_request.submitted', pr_number: 3 });
    const now = Math.floor(Date.now() / 1000);
    const sent = [
      signDelivery(SECRET, newMessageId(), now, body),
      signDelivery(newWebhookSecret(), newMessageId(), now, body),
      signDelivery(SECRET, newMessageId(), now - 3600, body, 'webhook'),
    ];
    const statuses: number[] = [];
    for (const headers of sent) {
      const res = await fetch(`${h.url}/trunk/webhooks/${TEAM}`, { method: 'POST', headers, body });
      statuses.push(res.status);
      expect(await res.text()).not.toContain('v1,');
    }
    expect(statuses).toEqual([200, 401, 401]);
    await new Promise((r) => setTimeout(r, 300));
    const out = h.output();
    expect(out).toContain('trunk webhook refused');
    expect(out.includes(SECRET)).toBe(false);
    expect(out.includes(SECRET.slice('whsec_'.length))).toBe(false);
    for (const headers of sent) {
      const signature = (headers['svix-signature'] ?? headers['webhook-signature'])!;
      expect(out.includes(signature.slice(3))).toBe(false);
    }
  }, 30_000);
});
