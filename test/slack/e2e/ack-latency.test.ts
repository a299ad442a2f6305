/**
 * The ack never waits for Trunk: with Trunk answering after 3 s, commands and clicks are acknowledged
 * within a few hundred milliseconds, and the person later gets a friendly "did not answer in time".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, textOf, USERS } from '../../helpers/app-harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  // Warm up (first request pays for auth.test and module loading).
  await h.sendCommand('help');
});
afterAll(async () => h?.close());

describe('slow Trunk (3 s)', () => {
  it('acks status, pause and a click fast, then answers friendly', async () => {
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    h.trunk.setLatency(3_000);
    const sends = await Promise.all([
      h.sendCommand('status'),
      h.sendCommand('pause', { user: USERS.admin }),
      h.clickButton({ message: msg, actionId: 'mq_drain', user: USERS.admin }),
    ]);
    for (const s of sends) {
      expect(s.status).toBe(200);
      expect(s.ackMs).toBeLessThan(500);
    }
    for (const s of sends) {
      const reply = await h.reply(s.responseUrl, 8_000);
      expect(textOf(reply)).toContain('did not answer in time');
    }
    h.trunk.setLatency(0);
  }, 20_000);
});
