/**
 * What following a queue costs in Trunk calls: the same queue story (the Trunk fake's own movement from one
 * seed: PRs enter, test, merge and fail, the web app pauses) followed by 1 channel, then by 50 channels and
 * 50 live status messages. One app in this process each time, its clock moved one watch interval per step
 * and its watcher ticked (app.events.tick()), so the figure counts calls, not time. Issue 12: equal within 5%.
 */
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { startHarness, TRUNK_TOKEN } from '../test/helpers/app-harness.ts';
import { textOf } from '../test/helpers/block-kit-reading.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const SEED = 12;
const STEPS = 40;
const FOLLOWERS = 50;
const REPO = 'acme/busy';
const TARGET = `${REPO}:main`;
const TOPICS = 'state submitted testing merged failed health';

interface Run {
  calls: number;
  byOperation: Record<string, number>;
  posts: number;
  liveRedraws: number;
}

async function follow(followers: number): Promise<Run> {
  const trunk = await startTrunkFake({ tokens: [TRUNK_TOKEN], activity: { seed: SEED } });
  trunk.addQueue(REPO, 'main', { state: 'running', concurrency: 2 });
  const clock = { now: Date.parse('2026-11-02T09:00:00Z') };
  const h = await startHarness({ trunk, app: { clock: () => clock.now } });
  try {
    const channels = Array.from({ length: followers }, (_, i) => `C0BENCH${String(i).padStart(4, '0')}`);
    for (const channel of channels) {
      await h.sendCommand(`watch ${TARGET} ${TOPICS}`, { channel });
      // With more than one follower, each channel also keeps a live status message.
      if (followers > 1) await h.sendCommand(`status ${TARGET}`, { channel });
    }
    await h.idle(60_000);
    clock.now += 21_000;
    await h.app!.events!.tick(); // the baseline
    trunk.clearRequests();
    for (let i = 0; i < STEPS; i++) {
      trunk.activity!.advance();
      clock.now += 21_000;
      await h.app!.events!.tick();
    }
    const byOperation: Record<string, number> = {};
    for (const r of trunk.requests) byOperation[r.operation] = (byOperation[r.operation] ?? 0) + 1;
    const messages = channels.flatMap((c) => h.slack.channelMessages(c));
    return {
      calls: trunk.requests.length,
      byOperation,
      posts: messages.filter((m) => !textOf(m).includes('live · updated')).length,
      liveRedraws: messages.reduce((n, m) => n + m.history.length, 0),
    };
  } finally {
    await h.close();
    await trunk.close();
  }
}

export const benchmark: Benchmark = {
  name: 'watch-followers',
  description: `Trunk calls of one queue over ${STEPS} watch intervals: 1 channel vs ${FOLLOWERS} channels + ${FOLLOWERS} live messages`,
  async run(): Promise<BenchFigure[]> {
    const one = await follow(1);
    const many = await follow(FOLLOWERS);
    const ratio = many.calls / Math.max(1, one.calls);
    console.log('1 follower:', one.byOperation, `${FOLLOWERS} + ${FOLLOWERS}:`, many.byOperation);
    return [
      { id: 'watch.followers.1.trunk_calls', value: one.calls, unit: 'calls', target: '', ok: true },
      {
        id: `watch.followers.${FOLLOWERS}x2.trunk_calls`,
        value: many.calls,
        unit: 'calls',
        target: '',
        ok: true,
      },
      {
        id: 'watch.followers.ratio',
        value: Math.round(ratio * 1000) / 1000,
        unit: 'x',
        target: '<= 1.05x',
        ok: ratio <= 1.05,
      },
      // The followers did hear: without deliveries the equal figures would prove nothing.
      {
        id: `watch.followers.${FOLLOWERS}x2.live_redraws`,
        value: many.liveRedraws,
        unit: 'count',
        target: '> 0',
        ok: many.liveRedraws > 0,
      },
      {
        id: `watch.followers.${FOLLOWERS}x2.feed_posts`,
        value: many.posts,
        unit: 'count',
        target: '> 0',
        ok: many.posts > 0,
      },
    ];
  },
};
