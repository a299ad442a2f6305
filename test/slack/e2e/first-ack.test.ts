/**
 * The first command after start waits for auth.test (whose workspace the bot token is), asked at start
 * outside any request. That answer must not wait for the answers-first gate (observability/answers-first.ts)
 * while the very request that needs it is unanswered: it did, and the first ack took the gate's full second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
});
afterAll(async () => h?.close());

describe('the first request after start', () => {
  it('is acknowledged without waiting out the answers-first bound', async () => {
    const t0 = performance.now();
    const sent = await h.sendCommand('help', { user: USERS.admin });
    expect(sent.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(700);
  });
});
