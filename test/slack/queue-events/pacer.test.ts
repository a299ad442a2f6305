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
    const start = Date.now();
    const at: Record<string, number[]> = { a: [], b: [] };
    await Promise.all([
      ...[1, 2, 3].map(() => pacer.turn('T|CA').then(() => at.a!.push(Date.now() - start))),
      pacer.turn('T|CB').then(() => at.b!.push(Date.now() - start)),
    ]);
    const a = at.a!.sort((x, y) => x - y);
    // Timers may fire a millisecond early; the spacing is what matters.
    expect(a[1]! - a[0]!).toBeGreaterThanOrEqual(GAP - 5);
    expect(a[2]! - a[1]!).toBeGreaterThanOrEqual(GAP - 5);
    expect(at.b![0]!).toBeLessThan(GAP);
  });
});
