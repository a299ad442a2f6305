/** /healthz, /readyz and /metrics of the real app, and the counters the app feeds while it works. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readiness } from '../../src/http/routes.ts';
import { type Harness, startHarness } from '../helpers/app-harness.ts';

async function metricValue(url: string, line: RegExp): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = line.exec(text);
  return m ? Number(m[1]) : 0;
}

describe('operational endpoints of the running app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/web', 'main');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('/healthz says the process is alive', async () => {
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz checks the store and its migrations', async () => {
    const res = await fetch(`${h.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready' });
  });

  it('/metrics serves Prometheus text with the app counters', async () => {
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    for (const name of [
      'mergequeue_commands_total',
      'mergequeue_interactions_total',
      'mergequeue_trunk_calls_total',
      'mergequeue_trunk_call_duration_seconds',
      'mergequeue_digests_total',
      'mergequeue_slack_api_errors_total',
      'mergequeue_slack_rate_limit_waits_total',
      'mergequeue_unhandled_rejections_total',
      'mergequeue_requests_in_flight',
      'mergequeue_process_resident_memory_bytes',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('counts commands, Trunk calls with latency, and Slack API failures as the app works', async () => {
    const okBefore = await metricValue(
      h.url,
      /mergequeue_commands_total\{name="status",outcome="ok"\} (\d+)/,
    );
    h.trunk.failNext(1, { status: 503 }, 'getQueue');
    const sent = await h.sendCommand('status');
    expect(sent.status).toBe(200);
    // The status message is posted to the channel once Trunk answers (after one retry).
    const posted = await h.slack.waitFor(() =>
      h.slack.callsTo('chat.postMessage').find((c) => JSON.stringify(c.args).includes('acme/web')),
    );
    expect(posted.status).toBe(200);
    await expect
      .poll(() => metricValue(h.url, /mergequeue_commands_total\{name="status",outcome="ok"\} (\d+)/))
      .toBe(okBefore + 1);
    const after = await (await fetch(`${h.url}/metrics`)).text();
    // The 503 was retried: both attempts are counted, each with its latency.
    expect(after).toMatch(/mergequeue_trunk_calls_total\{operation="getQueue",status="503"\} 1\b/);
    expect(after).toMatch(/mergequeue_trunk_calls_total\{operation="getQueue",status="200"\} [1-9]/);
    expect(after).toMatch(/mergequeue_trunk_call_duration_seconds_count\{operation="getQueue"\} [2-9]/);

    // An unknown subcommand is counted as invalid.
    const bad = await h.sendCommand('frobnicate');
    await h.reply(bad.responseUrl);
    expect(
      await metricValue(h.url, /mergequeue_commands_total\{name="invalid",outcome="invalid"\} (\d+)/),
    ).toBe(1);

    // respond() failing at Slack is counted under response_url.
    h.slack.failNext('response_url', { status: 404, body: 'expired_url' });
    await h.sendCommand('help');
    await h.slack.waitFor(() => h.slack.responsePosts.find((p) => p.status === 404), 5000);
    await expect
      .poll(() =>
        metricValue(
          h.url,
          /mergequeue_slack_api_errors_total\{method="response_url",error="http_404"\} (\d+)/,
        ),
      )
      .toBe(1);
  });

  it("counts Slack API errors and rate-limit waits of Bolt's own clients", async () => {
    h.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    await h.sendCommand('status');
    await expect
      .poll(
        () =>
          metricValue(h.url, /mergequeue_slack_rate_limit_waits_total\{method="chat.postMessage"\} (\d+)/),
        {
          timeout: 5000,
        },
      )
      .toBe(1);
    // A permission check (users.info) failing at Slack: the person is told, the error counted once.
    h.slack.failNext('users.info', { error: 'user_not_found' });
    const sent = await h.sendCommand('pause incident', { user: 'U0STRANGER' });
    await h.reply(sent.responseUrl);
    await expect
      .poll(
        () =>
          metricValue(
            h.url,
            /mergequeue_slack_api_errors_total\{method="users.info",error="user_not_found"\} (\d+)/,
          ),
        { timeout: 5000 },
      )
      .toBe(1);
  });

  it('reports the app as not ready when the store stops answering', async () => {
    const broken = {
      store: { ready: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) },
      metrics: h.app!.metrics,
      lifecycle: { isShuttingDown: () => false },
    };
    expect(await readiness(broken)).toEqual({
      status: 503,
      body: { status: 'not_ready' },
      detail: 'store unreachable: connect ECONNREFUSED 127.0.0.1:5432',
    });
    const hanging = { ...broken, store: { ready: () => new Promise<never>(() => {}) }, readyTimeoutMs: 50 };
    expect((await readiness(hanging)).detail).toMatch(/did not answer within 50 ms/);
    const behind = {
      ...broken,
      store: { ready: async () => ({ ok: false, schemaVersion: 1, detail: 'migration 2 not applied' }) },
    };
    expect(await readiness(behind)).toEqual({
      status: 503,
      body: { status: 'not_ready' },
      schemaVersion: 1,
      detail: 'migration 2 not applied',
    });
  });
});
