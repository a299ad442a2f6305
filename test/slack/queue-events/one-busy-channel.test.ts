/**
 * One channel never holds up the others (issue 19), through the real wire at Slack's real pace (one write
 * a second per channel): twelve live status messages in one channel (four queues, three each) are
 * redrawn after every change, while another channel watches one of those queues. The watcher's tick does
 * not wait for the busy channel, and the other channel's feed post arrives within a second or two of the
 * change, while the busy channel is still working through its redraws.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;
const clock = { now: Date.now() };

beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now } });
});
afterAll(async () => h?.close());

const BUSY = 'C0BUSY0001';
const OTHER = 'C0QUIET001';
const QUEUES = ['acme/busy1', 'acme/busy2', 'acme/busy3', 'acme/busy4'];
/** WATCH_INTERVAL_SECONDS in this app (the default). */
const INTERVAL_MS = 20_000;

async function outboxDepth(): Promise<number> {
  const res = await fetch(`${h.app!.url}/metrics`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith('mergequeue_outbox_depth '));
  return Number(line?.split(' ')[1]);
}

describe('one busy channel', () => {
  it('12 live status messages in one channel: a feed in another channel still gets each change within 2 watch intervals (in about a second), and the tick does not wait', async () => {
    for (const repo of QUEUES) h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 1 });
    // A linked author whose PR is in the busiest queue: their note has its own lane too.
    const link = await h.sendCommand('me github busy-author', { user: USERS.member });
    await h.reply(link.responseUrl);
    h.trunk.enqueuePr(QUEUES[0]!, 'main', { prNumber: 77, prAuthor: 'busy-author', state: 'pending' });
    for (const repo of QUEUES)
      for (let i = 0; i < 3; i++) {
        const sent = await h.sendCommand(`status ${repo}:main`, { channel: BUSY });
        expect(sent.status).toBe(200);
      }
    await h.slack.waitFor(() => h.slack.channelMessages(BUSY).length === 12, 10_000);
    await h.idle();
    const watch = await h.sendCommand(`watch ${QUEUES[0]}:main`, { channel: OTHER });
    expect(textOf((await h.reply(watch.responseUrl)) as { text?: unknown })).toContain('follows');
    await h.idle();
    const events = h.app!.events!;
    clock.now += INTERVAL_MS + 1000;
    await events.tick(); // the baseline

    const delays: number[] = [];
    const ticks: number[] = [];
    let noteDelay = 0;
    for (let round = 2; round <= 4; round++) {
      for (const repo of QUEUES) h.trunk.patchQueue(repo, 'main', { concurrency: round });
      if (round === 3) {
        const pr = h.trunk.queue(QUEUES[0]!, 'main')!.enqueuedPullRequests![0]!;
        h.trunk.patchQueue(QUEUES[0]!, 'main', { enqueuedPullRequests: [{ ...pr, state: 'testing' }] });
      }
      clock.now += INTERVAL_MS + 1000;
      const changedAt = performance.now();
      await events.watch.watcher.tick();
      ticks.push(performance.now() - changedAt);
      await h.slack.waitFor(
        () => h.slack.channelMessages(OTHER).find((m) => textOf(m).includes(`→ ${round}`)),
        INTERVAL_MS,
      );
      delays.push(performance.now() - changedAt);
      if (round === 3) {
        await h.slack.waitFor(() => h.slack.channelMessages(USERS.member)[0], INTERVAL_MS);
        noteDelay = performance.now() - changedAt;
      }
      // The busy channel still has redraws queued when the other channel's post is out (/metrics says so).
      if (round === 2) expect(await outboxDepth()).toBeGreaterThan(3);
    }
    console.info(
      `change→feed delay with 12 live messages in one channel: ${delays.map((d) => `${Math.round(d)} ms`).join(', ')}; change→author note: ${Math.round(noteDelay)} ms; ticks: ${ticks.map((d) => `${Math.round(d)} ms`).join(', ')}`,
    );
    expect(textOf(h.slack.channelMessages(USERS.member)[0])).toContain('#77');
    expect(noteDelay).toBeLessThan(6_000);
    // Each change reaches the other channel well within two intervals, and in fact before the busy
    // channel's 12 redraws (12 s at Slack's pace) could have gone out.
    for (const d of delays) expect(d).toBeLessThan(2 * INTERVAL_MS);
    for (const d of delays) expect(d).toBeLessThan(6_000);
    for (const t of ticks) expect(t).toBeLessThan(3_000);

    // Every live message ends up showing the latest change (a waiting redraw is replaced by the newer one).
    await events.watch.watcher.settled();
    for (const m of h.slack.channelMessages(BUSY))
      expect(textOf(h.slack.message(BUSY, m.ts))).toContain('*Concurrency*\n4');
  }, 120_000);
});
