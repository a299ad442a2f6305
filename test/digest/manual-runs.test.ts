/**
 * Manual runs (`digest run`) take a slot of the scheduler like scheduled digests: with every slot busy a
 * run is refused with a message (and audited) instead of going past the replica's concurrency, and the
 * cooldown it had claimed is given back so the person can retry as soon as a slot frees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addedId, CHANNEL, ctx, type Rig, startRig, WS } from './helpers.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => rig?.close());

describe('manual runs and the scheduler’s concurrency', () => {
  it('a run with every slot taken is refused and audited; once a slot frees it runs', async () => {
    const s = rig.service({ concurrency: 1 });
    const recent = new Date(rig.clock.now - 60_000).toISOString();
    rig.trunk.setFailingTests('acme/web', [
      { id: 'a1', name: 'CheckoutSpec totals', status: { reason: 'failed', timestamp: recent } },
    ]);
    const add = async (channelId: string) =>
      addedId(
        (await s.handleCommand(['add', 'failing', 'acme/web', '09:00', 'UTC'], ctx({ channelId }))).text,
      );
    const first = await add(CHANNEL);
    const second = await add('C0DIGEST09');
    rig.slack.setLatency(400, 'chat.postMessage');
    try {
      expect((await s.handleCommand(['run', first], ctx())).text).toMatch(/Posting digest/);
      const busy = await s.handleCommand(['run', second], ctx({ channelId: 'C0DIGEST09' }));
      expect(busy.text).toMatch(/Every digest slot of this app is busy.*Try again in a minute/);
      const [audit] = await rig.store.listAudit(WS, { limit: 1 });
      expect(audit).toMatchObject({
        action: 'digest.run',
        outcome: 'refused',
        detail: { reason: 'scheduler busy' },
      });
      await s.idle();
    } finally {
      rig.slack.setLatency(0, 'chat.postMessage');
    }
    // The refused run did not keep the cooldown: it runs at once now.
    expect((await s.handleCommand(['run', second], ctx({ channelId: 'C0DIGEST09' }))).text).toMatch(
      /Posting digest/,
    );
    await s.idle();
    expect(rig.slack.channelMessages('C0DIGEST09').length).toBeGreaterThan(0);
  });
});
