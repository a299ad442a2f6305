/** The metric helpers against the real fakes: a WebClient over the instrumented fetch, the Trunk client's hook. */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../dev/fakes/slack/server.ts';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { createMetrics, type Metrics } from '../../src/observability/metrics.ts';
import { instrumentedSlackFetch, slackMethodOf } from '../../src/observability/slack-metrics.ts';
import { recordTrunkAttempt } from '../../src/observability/trunk-metrics.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';

async function value(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const row = metric?.values.find((v) =>
    Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want),
  );
  return row?.value ?? 0;
}

describe('Slack API metrics', () => {
  let slack: SlackFake;
  beforeAll(async () => {
    slack = await startSlackFake({});
  });
  afterAll(async () => {
    await slack?.close();
  });

  const client = (metrics: Metrics) =>
    new WebClient('xoxb-metrics-test', {
      slackApiUrl: slack.url,
      fetch: instrumentedSlackFetch(metrics),
      retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 },
    });

  it('counts platform errors by method and error code', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    await expect(client(metrics).chat.postMessage({ channel: 'C0NOPE', text: 'x' })).rejects.toThrow(
      /channel_not_found/,
    );
    await client(metrics).chat.postMessage({ channel: 'C0YES00001', text: 'fine' });
    expect(
      await value(metrics, 'mergequeue_slack_api_errors_total', {
        method: 'chat.postMessage',
        error: 'channel_not_found',
      }),
    ).toBe(1);
    const all = (await metrics.registry.getMetricsAsJSON()).find(
      (m) => m.name === 'mergequeue_slack_api_errors_total',
    );
    expect(all?.values.reduce((n, v) => n + v.value, 0)).toBe(1);
  });

  it('counts each 429 wait, and the call still succeeds after it', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const t0 = Date.now();
    const res = await client(metrics).chat.postMessage({ channel: 'C0YES00001', text: 'after the wait' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(res.ok).toBe(true);
    expect(
      await value(metrics, 'mergequeue_slack_rate_limit_waits_total', { method: 'chat.postMessage' }),
    ).toBe(1);
    expect(await value(metrics, 'mergequeue_slack_api_errors_total', { method: 'chat.postMessage' })).toBe(0);
  });

  it('counts HTTP errors, and response_url posts under their own name', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    slack.failNext('users.info', { status: 503 }, 3);
    await expect(client(metrics).users.info({ user: 'U0X' })).rejects.toThrow();
    expect(
      await value(metrics, 'mergequeue_slack_api_errors_total', { method: 'users.info', error: 'http_503' }),
    ).toBe(3);

    const url = slack.responseUrl({ channel: 'C0YES00001', user: 'U0X' });
    slack.failNext('response_url', { status: 404, body: 'expired_url' });
    const f = instrumentedSlackFetch(metrics);
    const r = await f(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    expect(r.status).toBe(404);
    expect(
      await value(metrics, 'mergequeue_slack_api_errors_total', {
        method: 'response_url',
        error: 'http_404',
      }),
    ).toBe(1);
    expect(slackMethodOf(`${slack.url}conversations.info`)).toBe('conversations.info');
  });
});

describe('Trunk call metrics', () => {
  let trunk: TrunkFake;
  beforeAll(async () => {
    trunk = await startTrunkFake({ tokens: ['metrics-token'] });
    trunk.addQueue('acme/web', 'main');
  });
  afterAll(async () => {
    await trunk?.close();
  });

  it('records every attempt by operation and status, with latency', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const api = createTrunkClient({
      baseUrl: trunk.url,
      auth: apiTokenAuth('metrics-token'),
      onAttempt: recordTrunkAttempt(metrics),
      sleep: async () => {},
    });
    trunk.failNext(1, { status: 502 }, 'getQueue');
    trunk.setLatency({ getQueue: 60 });
    const repo = { host: 'github.com', owner: 'acme', name: 'web' };
    await api.getQueue({ repo, targetBranch: 'main' });
    await expect(api.getQueue({ repo, targetBranch: 'nope' })).rejects.toThrow();
    expect(
      await value(metrics, 'mergequeue_trunk_calls_total', { operation: 'getQueue', status: '502' }),
    ).toBe(1);
    expect(
      await value(metrics, 'mergequeue_trunk_calls_total', { operation: 'getQueue', status: '200' }),
    ).toBe(1);
    expect(
      await value(metrics, 'mergequeue_trunk_calls_total', { operation: 'getQueue', status: '404' }),
    ).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/mergequeue_trunk_call_duration_seconds_count\{operation="getQueue"\} 3/);
    // The 60 ms latency lands above the 0.05 s bucket for every attempt.
    expect(text).toMatch(/mergequeue_trunk_call_duration_seconds_bucket\{le="0.05",operation="getQueue"\} 0/);
  });
});
