/**
 * Slack accepts about one message a second per channel: the pacer spaces writes to one channel by its gap
 * and lets writes to other channels through at once (real timers, a short gap).
 */
import { describe, expect, it } from 'vitest';
import { ChannelPacer } from '../../../src/slack/outbox/pacer.ts';

const GAP = 80;

describe('ChannelPacer', () => {
  it('spaces turns of one channel by the gap; another channel does not wait', async () => {
    const pacer = new ChannelPacer(GAP);
    const start = performance.now();
    const at: Record<string, number[]> = { a: [], b: [] };
    await Promise.all([
      ...[1, 2, 3].map(() => pacer.turn('T|CA').then(() => at.a!.push(performance.now() - start))),
      pacer.turn('T|CB').then(() => at.b!.push(performance.now() - start)),
    ]);
    const a = at.a!.sort((x, y) => x - y);
    // The k-th turn comes no sooner than k gaps after the first: the pacer keeps a schedule, so a turn that a
    // busy machine ran late does not push the next one later (the gap between two late callbacks may look
    // shorter; Slack's limit is a rate, which the schedule keeps). Timers may fire a millisecond early.
    expect(a[0]!).toBeLessThan(GAP);
    expect(a[1]!).toBeGreaterThanOrEqual(GAP - 2);
    expect(a[2]!).toBeGreaterThanOrEqual(2 * GAP - 2);
    expect(at.b![0]!).toBeLessThan(GAP);
  });
});
