/**
 * The README's promise "a second signal exits at once": the real process gets SIGTERM while a command's
 * Trunk call is slow (shutdown waits for it, up to a long SHUTDOWN_TIMEOUT_MS), then a second SIGTERM; it
 * exits 1 at once instead of waiting, and says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/app-harness.ts';
import { logLines } from '../helpers/processes.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a second signal', () => {
  it('while shutdown waits for a slow command, exits 1 at once', async () => {
    h = await startHarness({ process: true, env: { SHUTDOWN_TIMEOUT_MS: '20000', LOG_LEVEL: 'info' } });
    h.trunk.addQueue('acme/web', 'main');
    h.trunk.setLatency({ getQueue: 8000 });
    const exited = h.child!.exited;

    expect((await h.sendCommand('status')).status).toBe(200);
    await expect.poll(() => h!.trunkCalls('getQueue').length, { interval: 10 }).toBeGreaterThan(0);
    h.child!.child.kill('SIGTERM');
    // Shutdown has begun and is waiting for the command in flight.
    await expect
      .poll(async () => (await fetch(`${h!.url}/readyz`)).status, { interval: 20, timeout: 2000 })
      .toBe(503);
    expect(h.child!.exitCode()).toBeUndefined();

    const t0 = Date.now();
    h.child!.child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(Date.now() - t0).toBeLessThan(1000);
    const logs = logLines(h.output());
    expect(logs.some((l) => l['msg'] === 'second signal during shutdown: exiting now')).toBe(true);
    expect(logs.some((l) => l['msg'] === 'shutdown complete')).toBe(false);
  }, 30_000);
});
