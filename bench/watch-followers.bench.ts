/**
 * What following a queue costs at Trunk, by number of followers. The app runs in this process (the test
 * harness: signed commands to /slack/events, the Trunk and Slack fakes) with its clock injected, so a watch
 * interval passes at once. One queue moves on its own (the Trunk fake's activity, the same seed in every
 * run, so every run sees the same story); the same number of intervals pass in each run, and the fake counts
 * getQueue and getSubmittedPullRequest for the queue.
 *
 * Baseline: one channel watching the queue. Then one channel and one live status message, and 50 channels
 * and 50 live status messages. The followers are made through the wire (`/mergequeue watch`, `status`);
 * what those commands read themselves is not counted (the count starts after setup).
 */
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { startHarness, USERS } from '../test/helpers/app-harness.ts';
import type { BenchFigure, Benchmark } from './types.ts';

// Slack writes are paced per channel on the real clock, so the interval count keeps the run short.
const INTERVALS = 30;
const INTERVAL_MS = 21_000; // a little over the default WATCH_INTERVAL_SECONDS (20)
const REPO = 'acme/mono';
const TOPICS = 'state submitted testing merged failed';
const COUNTED = ['getQueue', 'getSubmittedPullRequest'] as const;

interface Run {
  calls: number;
  byOperation: Record<string, number>;
  activityEvents: number;
  posts: number;
}

async function measure(channels: number, liveMessages: number): Promise<Run> {
  const trunk = await startTrunkFake({ tokens: ['test-token'], activity: { seed: 12 } });
  const clock = { now: Date.parse('2026-11-23T09:00:00Z') };
  const h = await startHarness({ trunk, app: { clock: () => clock.now } });
  try {
    h.trunk.addQueue(REPO, 'main', { state: 'running', concurrency: 3 });
    for (let i = 0; i < channels; i++) {
      const sent = await h.sendCommand(`watch ${REPO}:main ${TOPICS}`, {
        user: USERS.admin,
        channel: channelOf(i),
      });
      if (sent.status !== 200) throw new Error(`watch answered ${sent.status}`);
      await h.reply(sent.responseUrl);
    }
    for (let i = 0; i < liveMessages; i++) {
      // Live messages in channels of their own, so a channel's pace is not shared by a feed and a redraw.
      const sent = await h.sendCommand(`status ${REPO}:main`, { channel: channelOf(100 + i) });
      if (sent.status !== 200) throw new Error(`status answered ${sent.status}`);
    }
    await h.slack.waitFor(
      () => h.slack.messages.filter((m) => m.via === 'api').length >= liveMessages || undefined,
      30_000,
    );
    await h.idle();
    // The first look sets the baseline; counting starts after it.
    await h.app!.events!.tick();
    h.trunk.clearRequests();
    const postsBefore = h.slack.callsTo('chat.postMessage').length + h.slack.callsTo('chat.update').length;
    let activityEvents = 0;
    for (let i = 0; i < INTERVALS; i++) {
      activityEvents += trunk.activity!.advance(1).length;
      clock.now += INTERVAL_MS;
      await h.app!.events!.tick();
    }
    const byOperation: Record<string, number> = {};
    for (const op of COUNTED)
      byOperation[op] = h.trunk
        .requestsTo(op)
        .filter((r) => JSON.stringify(r.body).includes(REPO.split('/')[1]!)).length;
    return {
      calls: Object.values(byOperation).reduce((a, b) => a + b, 0),
      byOperation,
      activityEvents,
      posts: h.slack.callsTo('chat.postMessage').length + h.slack.callsTo('chat.update').length - postsBefore,
    };
  } finally {
    await h.close();
    await trunk.close();
  }
}

const channelOf = (i: number) => `C0FOLLOW${String(i).padStart(3, '0')}`;

export const benchmark: Benchmark = {
  name: 'watch-followers',
  description: `Trunk calls for one moving queue over ${INTERVALS} watch intervals: 1 channel vs 1 channel + 1 live message vs 50 channels + 50 live messages`,
  async run(): Promise<BenchFigure[]> {
    const one = await measure(1, 0);
    const oneLive = await measure(1, 1);
    const many = await measure(50, 50);
    for (const [name, r] of [
      ['1 channel', one],
      ['1 channel + 1 live', oneLive],
      ['50 channels + 50 live', many],
    ] as const)
      console.log(
        `  ${name}: ${r.calls} Trunk calls (${Object.entries(r.byOperation)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}), ${r.activityEvents} queue changes, ${r.posts} Slack writes`,
      );
    const ratio = many.calls / one.calls;
    const ratioLive = many.calls / oneLive.calls;
    return [
      {
        id: 'watch.followers.1ch.trunk_calls',
        value: one.calls,
        unit: 'count',
        target: '',
        ok: one.calls > 0,
      },
      {
        id: 'watch.followers.1ch_1live.trunk_calls',
        value: oneLive.calls,
        unit: 'count',
        target: '',
        ok: true,
      },
      {
        id: 'watch.followers.50ch_50live.trunk_calls',
        value: many.calls,
        unit: 'count',
        target: '',
        ok: true,
      },
      {
        id: 'watch.followers.50ch_50live_vs_1ch',
        value: ratio,
        unit: 'x',
        target: '<= 1.05x 1 channel',
        ok: Math.abs(ratio - 1) <= 0.05,
      },
      {
        id: 'watch.followers.50ch_50live_vs_1ch_1live',
        value: ratioLive,
        unit: 'x',
        target: '<= 1.05x 1 channel + 1 live',
        ok: Math.abs(ratioLive - 1) <= 0.05,
      },
    ];
  },
};
