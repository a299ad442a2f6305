/**
 * The ack never waits for Trunk: with Trunk answering after 3 s, commands and clicks are acknowledged
 * within a few hundred milliseconds, and the real answers follow once Trunk answers (the Trunk call runs
 * after the ack, with Trunk's own 30 s deadline, so a slow Trunk is not reported as a failure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  // Warm up (first request pays for auth.test and module loading).
  await h.sendCommand('help');
});
afterAll(async () => h?.close());

describe('slow Trunk (3 s)', () => {
  it('acks status, pause and a click fast, then answers with what Trunk said', async () => {
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    h.trunk.setLatency(3_000);
    const t0 = Date.now();
    const sends = await Promise.all([
      h.sendCommand('status acme/web:main'),
      h.sendCommand('pause acme/web:main deploying', { user: USERS.admin }),
      h.clickButton({ message: msg, actionId: 'mq_refresh', user: USERS.member }),
    ]);
    for (const s of sends) {
      expect(s.status).toBe(200);
      expect(s.ackMs).toBeLessThan(500);
    }
    // The pause reaches Trunk and is announced; nobody is told Trunk failed.
    await h.slack.waitFor(
      () =>
        h.slack.channelMessages(CHANNEL).find((m) => /paused/.test(textOf(m)) && /deploying/.test(textOf(m))),
      12_000,
    );
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_900);
    expect(h.trunk.queue('acme/web', 'main')?.state).toBe('paused');
    const everything = [
      ...h.slack.channelMessages(CHANNEL),
      ...sends.flatMap((s) => h.replies(s.responseUrl)),
    ];
    for (const m of everything) expect(textOf(m)).not.toContain('did not answer');
    h.trunk.setLatency(0);
  }, 20_000);
});
