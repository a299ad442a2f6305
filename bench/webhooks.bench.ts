/**
 * Issue 21: how fast a PR transition reaches Slack through Trunk's webhooks, beside polling, in one run on the
 * wall clock. One app in this process with its watcher running on its own (SCHEDULER_ENABLED, a short
 * WATCH_INTERVAL_SECONDS), two watched queues: on one, each new PR is also announced by the fake Trunk's
 * signed webhook (Svix-style, real HTTP); on the other, only the poll sees it. Changes are made at random
 * moments (16 per queue over about a minute: Slack takes one message a second per channel, so denser
 * bursts measure the pacing), and each is timed from the change to its post in the fake Slack.
 * Figures: p95 change→Slack by webhook (target ≤ 2 s), by polling (about 1.25 intervals, for the ratio), their
 * ratio, and Trunk requests per followed queue per hour each way (information: polling keeps its pace).
 */
import { performance } from 'node:perf_hooks';
import { newWebhookSecret } from '../dev/fakes/trunk/index.ts';
import { startHarness } from '../test/helpers/app-harness.ts';
import { textOf } from '../test/helpers/block-kit-reading.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const INTERVAL_S = 5;
const CHANGES = 16;
const WINDOW_MS = 64_000;
const HOOKED = { owner: 'acme', name: 'hooked', channel: 'C0BENCHHK1' };
const POLLED = { owner: 'acme', name: 'polled', channel: 'C0BENCHPL1' };

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

/** Whether a message names PR `pr` (as `#123`, linked or not). */
function mentions(m: { text?: unknown; blocks?: unknown }, pr: number): boolean {
  return new RegExp(`#${pr}(?!\\d)`).test(textOf(m));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(): Promise<BenchFigure[]> {
  const secret = newWebhookSecret();
  const h = await startHarness({
    env: {
      WATCH_INTERVAL_SECONDS: String(INTERVAL_S),
      SCHEDULER_ENABLED: 'true',
      TRUNK_WEBHOOK_SECRET: secret,
      DEFAULT_REPO: undefined,
    },
  });
  try {
    for (const q of [HOOKED, POLLED]) {
      h.trunk.addQueue(`${q.owner}/${q.name}`, 'main', { state: 'running' });
      await h.sendCommand(`watch ${q.owner}/${q.name}:main submitted`, { channel: q.channel });
    }
    h.trunk.webhooks.subscribe(`${h.url}/trunk/webhooks/T0DEFAULT`, secret);
    // Let the watcher take its baselines.
    await sleep(INTERVAL_S * 1000 + 2_000);
    h.trunk.clearRequests();
    const started = performance.now();

    const timeOne = async (q: typeof HOOKED, pr: number, at: number, hooked: boolean): Promise<number> => {
      await sleep(at);
      h.trunk.enqueuePr(`${q.owner}/${q.name}`, 'main', {
        prNumber: pr,
        prAuthor: 'octocat',
        state: 'pending',
      });
      const t0 = performance.now();
      if (hooked)
        h.trunk.webhooks.deliver('pull_request.submitted', {
          action: 'submitted',
          status: 'submitted',
          author: 'octocat',
          pr_number: pr,
          repository: { host: 'github.com', owner: q.owner, name: q.name },
          target_branch: 'main',
        });
      for (;;) {
        if (h.slack.channelMessages(q.channel).some((m) => mentions(m, pr))) return performance.now() - t0;
        if (performance.now() - t0 > 60_000) return Number.NaN;
        await sleep(10);
      }
    };
    const at = () => Math.random() * WINDOW_MS;
    const [hooked, polled] = await Promise.all([
      Promise.all(Array.from({ length: CHANGES }, (_, i) => timeOne(HOOKED, 100 + i, at(), true))),
      Promise.all(Array.from({ length: CHANGES }, (_, i) => timeOne(POLLED, 200 + i, at(), false))),
    ]);
    const hours = (performance.now() - started) / 3_600_000;
    const requestsFor = (q: typeof HOOKED) =>
      h.trunk.requests.filter(
        (r) => (r.body as { repo?: { name?: string } } | undefined)?.repo?.name === q.name,
      ).length;
    const hookP95 = p95(hooked);
    const pollP95 = p95(polled);
    // Each change in exactly one message of its channel (a burst seen by one poll shares a message).
    const once = (q: typeof HOOKED, first: number) =>
      Array.from({ length: CHANGES }, (_, i) => first + i).filter(
        (pr) => h.slack.channelMessages(q.channel).filter((m) => mentions(m, pr)).length === 1,
      ).length;
    return [
      {
        id: 'webhooks.p95_change_to_slack',
        value: hookP95,
        unit: 'ms',
        target: '<= 2000',
        ok: hookP95 <= 2_000,
      },
      {
        id: 'webhooks.polling_p95_change_to_slack',
        value: pollP95,
        unit: 'ms',
        target: `baseline (~1.25 × ${INTERVAL_S} s)`,
        ok: Number.isFinite(pollP95),
      },
      {
        id: 'webhooks.speedup_vs_polling',
        value: pollP95 / hookP95,
        unit: 'x',
        target: '> 1',
        ok: pollP95 / hookP95 > 1,
      },
      {
        id: 'webhooks.changes_posted_exactly_once',
        value: (once(HOOKED, 100) + once(POLLED, 200)) / (2 * CHANGES),
        unit: 'share',
        target: '= 1',
        ok: once(HOOKED, 100) === CHANGES && once(POLLED, 200) === CHANGES,
      },
      {
        id: 'webhooks.trunk_requests_per_queue_hour.webhooks',
        value: requestsFor(HOOKED) / hours,
        unit: 'req/h',
        target: `(info; interval ${INTERVAL_S} s)`,
        ok: true,
      },
      {
        id: 'webhooks.trunk_requests_per_queue_hour.polling',
        value: requestsFor(POLLED) / hours,
        unit: 'req/h',
        target: `(info; interval ${INTERVAL_S} s)`,
        ok: true,
      },
    ];
  } finally {
    await h.close();
  }
}

export const benchmark: Benchmark = {
  name: 'webhooks',
  description: `PR transition → Slack through Trunk webhooks vs polling every ${INTERVAL_S} s (${CHANGES} changes each)`,
  run,
};
