/**
 * Tests reach the app's clock and digest timings through createApp's overrides, never through variables
 * the product reads: the production code names no MQ_TEST_ variable, and the test entry that hands the
 * seams to a child process (test/helpers/app-process.ts) turns its arguments into overrides.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appProcessArgs, overridesFromArgs } from '../helpers/app-process.ts';
import { ROOT } from '../helpers/processes.ts';

describe('test seams', () => {
  it('no file under src/ reads an MQ_TEST_ variable', () => {
    const src = join(ROOT, 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    const readers = files.filter((f) => /MQ_TEST_/.test(readFileSync(join(src, f), 'utf8')));
    expect(readers).toEqual([]);
  });

  it('the test entry turns its arguments into grouped createApp overrides', () => {
    const args = appProcessArgs({
      clockOffsetMs: 90_000,
      digestTickCron: '* * * * * *',
      digestLeaseMs: 3_000,
      digestPaceMs: 0,
    });
    const o = overridesFromArgs(args);
    expect(o.digest).toEqual({ tickCron: '* * * * * *', leaseMs: 3_000, paceMs: 0 });
    const before = Date.now();
    const shifted = o.clock!();
    expect(shifted - before).toBeGreaterThanOrEqual(90_000);
    expect(shifted - Date.now()).toBeLessThanOrEqual(90_000);
    expect(overridesFromArgs([])).toEqual({});
  });

  it('a mistyped seam stops the entry instead of being ignored', () => {
    expect(() => overridesFromArgs(['--clock-ofset-ms=5'])).toThrow(/clock-ofset-ms/);
    expect(() => overridesFromArgs(['--digest-lease-ms=soon'])).toThrow(
      '--digest-lease-ms must be a number of milliseconds, not soon',
    );
  });
});
