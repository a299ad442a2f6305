/**
 * The Slack outbox over the wire: a real WebClient against the Slack fake on loopback. One pacer per
 * channel shared by every kind of post, Slack's Retry-After honoured, one list of final errors, and what
 * happens to queued posts at shutdown.
 */
import { Writable } from 'node:stream';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../../dev/fakes/slack/server.ts';
import { createLogger } from '../../../src/observability/log.ts';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.ts';
import { instrumentedSlackFetch } from '../../../src/observability/slack-metrics.ts';
import { FINAL_SLACK_ERRORS } from '../../../src/slack/outbox/final-errors.ts';
import { SlackOutbox } from '../../../src/slack/outbox/outbox.ts';

const WS = 'T0OUTBOX01';
let slack: SlackFake;

beforeAll(async () => {
  slack = await startSlackFake();
});
afterAll(async () => slack?.close());
beforeEach(() => slack.clear());

function rig(paceMs: number) {
  const metrics = createMetrics({ defaultMetrics: false });
  const lines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  // As in production (slack/workspace.ts), except that rate-limited calls are handed to the outbox.
  const client = new WebClient('xoxb-outbox', {
    slackApiUrl: slack.url,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    fetch: instrumentedSlackFetch(metrics),
  });
  const outbox = new SlackOutbox({ slackFor: () => client, logger, metrics, paceMs });
  return { outbox, metrics, lines };
}

async function metric(metrics: Metrics, name: string): Promise<string> {
  return (await metrics.registry.metrics())
    .split('\n')
    .filter((l) => l.startsWith(name))
    .join('\n');
}

const msg = (text: string) => ({ text });

describe('the Slack outbox', () => {
  it('a digest, a feed and a freeze announcement to one channel share its pace; another channel does not wait', async () => {
    const { outbox } = rig(400);
    const start = Date.now();
    await Promise.all([
      outbox.post({ workspaceId: WS, channel: 'C1' }, msg('digest'), 'digest'),
      outbox.post({ workspaceId: WS, channel: 'C1' }, msg('feed'), 'feed'),
      outbox.post({ workspaceId: WS, channel: 'C1' }, msg('freeze'), 'freeze'),
      outbox.post({ workspaceId: WS, channel: 'C2' }, msg('other'), 'feed'),
    ]);
    expect(slack.channelMessages('C1').map((m) => m.text)).toEqual(['digest', 'feed', 'freeze']);
    // When each request reached Slack (the fake records it): one pace apart in C1, at once in C2.
    const arrived = (channel: string) =>
      slack.calls
        .filter((c) => c.method === 'chat.postMessage' && c.args['channel'] === channel)
        .map((c) => c.at);
    const [a, b, c] = arrived('C1');
    expect(b! - a!).toBeGreaterThanOrEqual(300);
    expect(c! - b!).toBeGreaterThanOrEqual(300);
    expect(arrived('C2')[0]! - start).toBeLessThan(300);
  });

  it("a 429 waits Slack's Retry-After for that channel, then the same message is posted once", async () => {
    const { outbox } = rig(0);
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const start = performance.now();
    const r = await outbox.post({ workspaceId: WS, channel: 'C3' }, msg('after the wait'), 'feed');
    expect(r).toMatchObject({ ok: true });
    expect(performance.now() - start).toBeGreaterThanOrEqual(950);
    expect(slack.channelMessages('C3').map((m) => m.text)).toEqual(['after the wait']);
  });

  it('one list of final errors: each answered final with what is closed and counted by code; passing trouble is not final', async () => {
    const { outbox, metrics } = rig(0);
    for (const [code, refusal] of FINAL_SLACK_ERRORS) {
      if (code === 'no_installation') continue; // never a Slack answer: the workspace has no token
      slack.failNext('chat.postMessage', { error: code });
      const r = await outbox.post({ workspaceId: WS, channel: 'C4' }, msg(code), 'feed');
      expect(r, code).toEqual({ ok: false, code, final: true, refusal });
    }
    expect(await metric(metrics, 'mergequeue_outbox_final_errors_total{code="is_archived"}')).toMatch(/ 1$/);
    slack.failNext('chat.postMessage', { status: 503 });
    expect(await outbox.post({ workspaceId: WS, channel: 'C4' }, msg('503'), 'feed')).toEqual({
      ok: false,
      code: 'http_503',
      final: false,
    });
    expect(await metric(metrics, 'mergequeue_outbox_final_errors_total{code="http_503"}')).toBe('');
  });

  it('a workspace without installation is final (no_installation); an installation store that does not answer is passing trouble', async () => {
    const { metrics } = rig(0);
    const logger = createLogger('silent');
    const none = new SlackOutbox({
      slackFor: () => Promise.reject(new Error(`no Slack installation for workspace ${WS}`)),
      logger,
      metrics,
    });
    expect(await none.post({ workspaceId: WS, channel: 'C6' }, msg('x'), 'digest')).toEqual({
      ok: false,
      code: 'no_installation',
      final: true,
      refusal: 'workspace',
    });
    const down = new SlackOutbox({
      slackFor: () => Promise.reject(new Error('the store is not answering')),
      logger,
      metrics,
    });
    expect(await down.post({ workspaceId: WS, channel: 'C6' }, msg('x'), 'digest')).toEqual({
      ok: false,
      code: 'slack_client_unavailable',
      final: false,
    });
  });

  it('at shutdown: what drains before the deadline is posted, the rest is dropped with a log line and a metric', async () => {
    const { outbox, metrics, lines } = rig(400);
    const results = [1, 2, 3, 4].map((i) =>
      outbox.post({ workspaceId: WS, channel: 'C5' }, msg(`m${i}`), i === 4 ? 'notice' : 'feed'),
    );
    await new Promise((r) => setTimeout(r, 50));
    // m1 is out; m2 waits for its turn, m3 and m4 behind it.
    expect(await metric(metrics, 'mergequeue_outbox_depth')).toMatch(/depth 3$/m);
    expect(await metric(metrics, 'mergequeue_outbox_oldest_age_seconds')).toMatch(/seconds 0\.0\d+$/m);
    await outbox.stop(500);
    const settled = await Promise.all(results);
    expect(settled[0]).toMatchObject({ ok: true });
    expect(settled[1]).toMatchObject({ ok: true });
    expect(settled.slice(2)).toEqual([
      { ok: false, code: 'outbox_stopped', final: false },
      { ok: false, code: 'outbox_stopped', final: false },
    ]);
    expect(slack.channelMessages('C5').map((m) => m.text)).toEqual(['m1', 'm2']);
    expect(await metric(metrics, 'mergequeue_outbox_dropped_total{kind="feed"}')).toMatch(/ 1$/);
    expect(await metric(metrics, 'mergequeue_outbox_depth')).toMatch(/depth 0$/m);
    expect(await metric(metrics, 'mergequeue_outbox_dropped_total{kind="notice"}')).toMatch(/ 1$/);
    expect(lines.join('')).toContain('Slack outbox stopped with writes still queued');
    // Stopped: a new post is refused at once, as passing trouble (its owner retries it from the store).
    expect(await outbox.post({ workspaceId: WS, channel: 'C5' }, msg('late'), 'feed')).toMatchObject({
      ok: false,
      code: 'outbox_stopped',
    });
  });
});
