/** keepRenewed (store/leases.ts): the one heartbeat of work that renews its lease while it runs. */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { keepRenewed } from '../../src/store/leases.ts';

/** Waits (up to 5 s) until `cond` holds: timers on a loaded machine run late, never early. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await sleep(10);
  expect(cond()).toBe(true);
}

describe('keepRenewed', () => {
  it('renews on every beat until stopped, and no renewal starts after stop', async () => {
    let renewals = 0;
    const beat = keepRenewed(async () => {
      renewals++;
      return true;
    }, 50);
    await until(() => renewals >= 2);
    await beat.stop();
    const seen = renewals;
    expect(beat.lost).toBe(false);
    await sleep(150);
    expect(renewals).toBe(seen);
  });

  it('stops at the first refused renewal and says the lease is lost', async () => {
    let renewals = 0;
    const beat = keepRenewed(async () => ++renewals < 2, 50);
    await until(() => beat.lost);
    await sleep(150);
    expect(renewals).toBe(2);
    await beat.stop();
  });

  it('stop waits for the renewal in flight, so none lands after what the holder does next', async () => {
    let landed = false;
    let started = false;
    const beat = keepRenewed(async () => {
      started = true;
      await sleep(100);
      landed = true;
      return true;
    }, 50);
    await until(() => started); // the first renewal is under way
    await beat.stop();
    expect(landed).toBe(true);
  });

  it('a renewal that throws is reported and tried again at the next beat', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const beat = keepRenewed(
      async () => {
        if (++calls === 1) throw new Error('store away');
        return true;
      },
      50,
      (err) => errors.push(err),
    );
    await until(() => calls >= 2);
    await beat.stop();
    expect(errors).toHaveLength(1);
    expect(beat.lost).toBe(false);
  });
});
