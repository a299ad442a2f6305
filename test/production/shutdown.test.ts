/**
 * Graceful shutdown of the real process: a signal arrives while a command's Trunk call is slow; the
 * command still gets its answer at the fake Slack, new requests are refused, /readyz turns 503, and the
 * process exits 0. With a short SHUTDOWN_TIMEOUT_MS the process does not wait past it and exits 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/app-harness.ts';
import { logLines } from '../helpers/processes.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function exitOf(harness: Harness): Promise<number | string> {
  return harness.child!.exited;
}

describe.each(['SIGTERM', 'SIGINT'] as const)('on %s', (signal) => {
  it('finishes the command in flight, refuses new requests, reports not ready, exits 0', async () => {
    h = await startHarness({ process: true, env: { SHUTDOWN_TIMEOUT_MS: '8000', LOG_LEVEL: 'info' } });
    h.trunk.addQueue('acme/web', 'main');
    h.trunk.setLatency({ getQueue: 1200 });
    const exited = exitOf(h);

    const sent = await h.sendCommand('status');
    expect(sent.status).toBe(200);
    await expect.poll(() => h!.trunkCalls('getQueue').length, { interval: 10 }).toBeGreaterThan(0);
    const signalledAt = Date.now();
    h.child!.child.kill(signal);

    // While the Trunk call is still running: not ready, still alive, new Slack requests refused.
    await expect
      .poll(async () => (await fetch(`${h!.url}/readyz`)).status, { interval: 20, timeout: 1000 })
      .toBe(503);
    const ready = await fetch(`${h.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'shutting_down' });
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    const refused = await h.sendCommand('help');
    expect(refused.status).toBe(503);
    expect(Date.now() - signalledAt).toBeLessThan(1200);

    // The command in flight is answered (its status message reaches Slack), then the process exits 0.
    const posted = await h.slack.waitFor(
      () => h!.slack.callsTo('chat.postMessage').find((c) => JSON.stringify(c.args).includes('acme/web')),
      8000,
    );
    expect(posted.status).toBe(200);
    expect(await exited).toBe(0);
    expect(h.slack.postsTo(refused.responseUrl)).toHaveLength(0);

    const logs = logLines(h.output());
    const done = logs.find((l) => l['msg'] === 'shutdown complete');
    expect(done).toMatchObject({ clean: true, abandoned: 0, failedSteps: [] });
    const steps = logs.filter((l) => l['msg'] === 'shutdown step done').map((l) => l['step']);
    expect(steps).toEqual([
      'audit-retention',
      'history-retention',
      'history-readback',
      'digest-scheduler',
      'freezer',
      'step-waits',
      'slow-queues',
      'dashboards',
      'queue-watcher',
      'http-server',
      'store',
    ]);
  }, 30_000);
});

describe('shutdown timeout', () => {
  it('does not wait past SHUTDOWN_TIMEOUT_MS for stuck work, and exits 1', async () => {
    h = await startHarness({
      process: true,
      env: { SHUTDOWN_TIMEOUT_MS: '300', LOG_LEVEL: 'info' },
    });
    h.trunk.addQueue('acme/web', 'main');
    h.trunk.setLatency({ getQueue: 2400 });
    const exited = exitOf(h);
    await h.sendCommand('status');
    await expect.poll(() => h!.trunkCalls('getQueue').length, { interval: 10 }).toBeGreaterThan(0);
    const t0 = Date.now();
    h.child!.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    // 300 ms of draining plus the close steps; far less than the stuck call's 2.4 s.
    expect(Date.now() - t0).toBeLessThan(2000);
    const done = logLines(h.output()).find((l) => l['msg'] === 'shutdown complete');
    expect(done).toMatchObject({ clean: false, abandoned: 1 });
  }, 30_000);
});
