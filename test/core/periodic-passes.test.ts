/**
 * The one loop of every background worker (src/core/periodic-passes.ts): passes at a fixed rate, never two
 * at once, and a stop that returns by its deadline whatever a pass is doing.
 */
import { describe, expect, it } from 'vitest';
import { PeriodicPasses } from '../../src/core/periodic-passes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicPasses', () => {
  it('runs a pass at once and then every interval, never two at once', async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    const p = new PeriodicPasses({
      every: 20,
      pass: async () => {
        running++;
        most = Math.max(most, running);
        passes++;
        await sleep(30); // longer than the interval
        running--;
      },
      onError: () => {},
    });
    void p.start();
    for (let i = 0; i < 10; i++) p.request();
    await sleep(200);
    await p.stop(Date.now() + 1000);
    expect(most).toBe(1);
    // About one pass every 30 ms (each pass is longer than the interval): no burst of missed ones.
    expect(passes).toBeGreaterThanOrEqual(3);
    expect(passes).toBeLessThanOrEqual(8);
    const after = passes;
    await sleep(60);
    expect(passes).toBe(after);
  });

  it('stop returns by its deadline while a pass and the work it started hang, and no pass starts after', async () => {
    const hung = new Promise<void>(() => {});
    let passes = 0;
    const p = new PeriodicPasses({
      every: 10,
      pass: async () => {
        passes++;
        await hung;
      },
      onError: () => {},
      inFlight: () => [hung],
    });
    void p.start();
    await sleep(20);
    const t0 = Date.now();
    expect(await p.stop(Date.now() + 100)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(400);
    p.request();
    expect(passes).toBe(1);
  });

  it('a pass that throws is reported and the next still runs; a trigger of its own fires passes', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    let fire: () => void = () => {};
    let cancelled = false;
    const p = new PeriodicPasses({
      pass: async () => {
        passes++;
        if (passes === 1) throw new Error('boom');
      },
      onError: (err) => errors.push(err),
    });
    await p.start((f) => {
      fire = f;
      return () => {
        cancelled = true;
      };
    });
    fire();
    await p.idle();
    expect(passes).toBe(2);
    expect(errors).toHaveLength(1);
    expect(await p.stop(Date.now() + 100)).toBe(true);
    expect(cancelled).toBe(true);
  });

  it('a pass asking for another within ms gets it soon, though passes run only on request, until stop', async () => {
    let passes = 0;
    let busy = 2; // the first two passes find the work held elsewhere
    const p = new PeriodicPasses({
      pass: async () => {
        passes++;
        if (busy-- > 0) p.requestWithin(20);
      },
      onError: () => {},
    });
    p.request(); // never started: as the webhook inbox on a replica without the scheduler, kicked
    await sleep(150);
    expect(passes).toBe(3);
    busy = 1;
    p.request();
    await p.idle();
    expect(passes).toBe(4);
    expect(await p.stop(Date.now() + 100)).toBe(true);
    await sleep(60);
    expect(passes).toBe(4); // the look asked for before stop never comes
  });
});
