/**
 * `/mergequeue stats` through the wire (issue 28): on the first ask of a queue the app reads Trunk's record
 * back (v1 listPullRequests with `since` and cursor paging, v2 queue-entry-history 50 PRs a request), says
 * "reading Trunk's record…" and replaces that answer in place with figures equal to a ground truth computed
 * here from the fake's seeded history (nearest-rank percentiles, the reader's days); the charts are valid
 * Block Kit; a refused chart is answered again without it; the budget is never exceeded while reading back;
 * the read-back happens once; without a v2 key the answer says what is not known of the past.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeededHistory } from '../../../dev/fakes/trunk/index.ts';
import { dayLabel, durationText } from '../../../src/slack/blocks/stats.ts';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { localDay, type TruthFigures, truthOf } from '../../helpers/history-truth.ts';

const KEY = 'trunk_v2_stats_key';
const TZ = 'Asia/Tokyo'; // the member's Slack timezone (test/helpers/app-harness.ts)
const MAX_RPS = 10;
let h: Harness;
let plain: Harness;
let seeded: SeededHistory;
let seededPlain: SeededHistory;

beforeAll(async () => {
  [h, plain] = await Promise.all([
    startHarness({ env: { TRUNK_API_KEY: KEY, TRUNK_MAX_RPS: String(MAX_RPS) } }),
    startHarness({ env: { TRUNK_MAX_RPS: String(MAX_RPS) } }),
  ]);
  h.trunk.v2.setKeys({ [KEY]: [] });
  h.trunk.addQueue('acme/web', 'main');
  seeded = h.trunk.seedHistory('acme/web', 'main', { days: 20, prsPerDay: 40, seed: 11 });
  plain.trunk.addQueue('acme/web', 'main');
  seededPlain = plain.trunk.seedHistory('acme/web', 'main', { days: 10, prsPerDay: 30, seed: 12 });
}, 60_000);
afterAll(async () => Promise.all([h?.close(), plain?.close()]));

/** The last 7 of the reader's days up to now (Tokyo has no DST: midnight is 15:00 UTC the day before). */
function window7d(now: number) {
  const [y, m, d] = localDay(now, TZ).split('-').map(Number) as [number, number, number];
  return { from: Date.UTC(y, m - 1, d - 6) - 9 * 3_600_000, to: now + 60_000 };
}

type Posted = { text: unknown; blocks?: unknown[] };

/** The most requests that arrived within any one second. */
function busiestSecond(requests: ReadonlyArray<{ at: number }>): number {
  const at = requests.map((r) => r.at).sort((a, b) => a - b);
  return Math.max(0, ...at.map((t, i) => at.slice(i).filter((u) => u < t + 1_000).length));
}

async function askStats(harness: Harness, text: string) {
  const asked = Date.now();
  const sent = await harness.sendCommand(text, { user: USERS.member });
  expect(sent.status).toBe(200);
  const final = await harness.slack.waitFor(
    () =>
      harness.slack
        .postsTo(sent.responseUrl)
        .find((p) => p.status === 200 && /did:/.test(String(p.body['text']))),
    60_000,
  );
  return { sent, asked, final: final.body as Posted };
}

function expectFigures(text: string, truth: TruthFigures) {
  expect(text).toContain(`Merged: ${truth.merged} `);
  expect(text).toContain(`Kicked: ${truth.kicked} `);
  expect(text).toContain(`Cancelled: ${truth.cancelled} `);
  expect(text).toContain(
    `Time in queue: p50 ${durationText(truth.p50Ms)} · p90 ${durationText(truth.p90Ms)}`,
  );
  expect(text).toContain(`Time testing: p50 ${durationText(truth.testingP50Ms)}`);
}

describe('/mergequeue stats', () => {
  it('first ask: reading Trunk’s record…, then the figures in place, equal to the ground truth', async () => {
    await h.reset();
    const { sent, asked, final } = await askStats(h, 'stats acme/web:main 7d');
    const posts = h.slack.postsTo(sent.responseUrl);
    expect(String(posts[0]?.body['text'])).toContain('Reading Trunk’s record of acme/web:main');
    expect(posts[0]?.at).toBeLessThan(asked + 3_000);
    assertValidReply(posts[0]!.body as Posted);
    assertValidReply(final);
    // Replaced in place: the person sees one answer, edited.
    const shown = h.slack.ephemerals.filter((e) => e.responseUrlId !== undefined && e.user === USERS.member);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.edits).toBe(1);
    expect(String(shown[0]?.text)).toContain('did: the last 7 days');

    const w = window7d(asked);
    const truth = truthOf(seeded.transitions, w.from, w.to, TZ);
    expect(truth.merged).toBeGreaterThan(150);
    const text = textOf(final);
    expectFigures(text, truth);
    for (const [day, t] of truth.days)
      expect(text).toContain(
        `${dayLabel({ day })}: ${t.merged} merged, ${t.kicked} kicked, p50 ${durationText(t.p50Ms)}, p90 ${durationText(t.p90Ms)}`,
      );
    // The charts: merged and kicked per day, p50/p90 per day, one point a day.
    const charts = (final.blocks ?? []).filter(
      (b) => (b as { type: string }).type === 'data_visualization',
    ) as Array<{
      chart: { type: string; series: Array<{ name: string; data: Array<{ label: string; value: number }> }> };
    }>;
    expect(charts.map((c) => c.chart.type)).toEqual(['bar', 'line']);
    const merged = charts[0]?.chart.series.find((s) => s.name === 'Merged')?.data ?? [];
    expect(merged).toHaveLength(7);
    expect(merged.reduce((n, d) => n + d.value, 0)).toBe(truth.merged);
    expect(text).toContain('before:');
    expect(text).not.toContain('Without a Trunk v2 key');
    // Trunk's record holds no past pauses: the answer says whose observations the paused time is.
    expect(text).toMatch(/Paused or draining: .*\(as this app saw the queue change\)/);

    // Read back with v1 paging and v2 batches, never above the budget in any second.
    const lists = h.trunkCalls('listPullRequests');
    expect(lists.length).toBeGreaterThan(1);
    expect(
      lists.every((r) => (r.body as { take?: number }).take === 100 && (r.body as { since?: string }).since),
    ).toBe(true);
    expect(lists.slice(1).every((r) => typeof (r.body as { cursor?: string }).cursor === 'string')).toBe(
      true,
    );
    const batches = h.trunkCalls('pullRequests.queueEntryHistoryBatch');
    expect(batches.length).toBeGreaterThan(0);
    for (const b of batches)
      expect(
        new URL(b.path, 'http://x').searchParams.get('pullRequestIds')?.split(',').length,
      ).toBeLessThanOrEqual(50);
    // The budget as the app keeps it (trunk/budget.ts): the organization's requests at most TRUNK_MAX_RPS in
    // any second, and `GET /v2/pull-requests…` reads, which Trunk counts apart, at most 5 a second per key.
    const prRead = (r: { path: string }) => r.path.startsWith('/v2/pull-requests');
    expect(busiestSecond(h.trunk.requests.filter((r) => !prRead(r)))).toBeLessThanOrEqual(MAX_RPS);
    expect(busiestSecond(h.trunk.requests.filter(prRead))).toBeLessThanOrEqual(5);
  }, 90_000);

  it('a later ask reads nothing back again and answers at once', async () => {
    await h.reset();
    const { sent } = await askStats(h, 'stats acme/web:main');
    expect(h.trunkCalls('listPullRequests')).toHaveLength(0);
    expect(h.trunkCalls('pullRequests.queueEntryHistoryBatch')).toHaveLength(0);
    expect(String(h.slack.postsTo(sent.responseUrl)[0]?.body['text'])).toContain('did: the last 7 days');
  });

  it('charts Slack refuses (invalid_blocks) are answered again without them', async () => {
    await h.reset();
    h.slack.refuseBlocks('data_visualization', 1);
    const { sent, final } = await askStats(h, 'stats acme/web:main 30d');
    const statuses = h.slack.postsTo(sent.responseUrl).map((p) => p.status);
    expect(statuses).toEqual([400, 200]);
    assertValidReply(final);
    expect((final.blocks ?? []).some((b) => (b as { type: string }).type === 'data_visualization')).toBe(
      false,
    );
    expect(textOf(final)).toContain('Merged:');
  });

  it('30 days are charted two days a point, every chart valid', async () => {
    await h.reset();
    const { final } = await askStats(h, 'stats 30d acme/web:main');
    assertValidReply(final);
    const charts = (final.blocks ?? []).filter(
      (b) => (b as { type: string }).type === 'data_visualization',
    ) as Array<{
      title: string;
      chart: { axis_config: { categories: string[] } };
    }>;
    expect(charts).toHaveLength(2);
    expect(charts[0]?.title).toContain('per 2 days');
    expect(charts[0]?.chart.axis_config.categories).toHaveLength(15);
  });

  it('without a v2 key: conclusions read back, and the answer says what is not known of the past', async () => {
    await plain.reset();
    const { asked, final } = await askStats(plain, 'stats acme/web:main');
    const text = textOf(final);
    const w = window7d(asked);
    const truth = truthOf(seededPlain.transitions, w.from, w.to, TZ);
    // v1 tells each PR's last conclusion: a PR kicked and later merged counts as merged alone.
    const lastStates = new Map<number, { state: string; at: number }>();
    for (const t of seededPlain.transitions) lastStates.set(t.prNumber, { state: t.state, at: t.at });
    const mergedInWindow = [...lastStates.values()].filter(
      (s) => s.state === 'merged' && s.at >= w.from,
    ).length;
    expect(mergedInWindow).toBeLessThanOrEqual(truth.merged);
    expect(text).toContain(`Merged: ${mergedInWindow} `);
    expect(text).toContain(`0 of ${mergedInWindow} merged PRs whose whole stay is known`);
    expect(text).toContain('Without a Trunk v2 key');
    expect(plain.trunk.requests.some((r) => r.path.startsWith('/v2/'))).toBe(false);
  }, 60_000);

  it('bad input gets the usage', async () => {
    await h.reset();
    const sent = await h.sendCommand('stats 5d');
    const reply = (await h.reply(sent.responseUrl)) as Posted;
    expect(textOf(reply)).toContain('`1d`, `7d` or `30d`');
    expect(textOf(reply)).toContain('/mergequeue stats [owner/repo[:branch]] [1d|7d|30d]');
  });
});
