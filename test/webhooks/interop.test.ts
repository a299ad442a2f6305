/**
 * Issue 21 reviewed from outside: deliveries made the way a Svix sender written by someone else makes them.
 * Signed here with node:crypto alone (HMAC-SHA256 over `id.timestamp.body` with the key base64-decoded from
 * after `whsec_`, as docs.svix.com/receiving/verifying-payloads/how-manual writes it), not with the library
 * the app verifies with, so a shared mistake cannot pass. Sent over the real wire to
 * POST /trunk/webhooks/<workspace>: several signatures with an unknown version among them, header names in
 * any case, UTF-8 bodies kept byte for byte, charset in the content type, chunked bodies with no length,
 * the tolerance both ways, signed non-JSON, two copies of one message at once; then the spec's constructed
 * payloads verbatim through the merge-queue pipeline and the flaky-test feeds.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const nowSec = () => Math.floor(Date.now() / 1000);
const msgId = () => `msg_${randomBytes(12).toString('hex')}`;

/** Svix's signature of `body` (the exact bytes sent) with `secret`. */
function svixSign(secret: string, id: string, ts: number, body: Buffer): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${ts}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { TRUNK_WEBHOOK_SECRET: SECRET } });
}, 30_000);
afterAll(async () => {
  await h?.close();
});

interface Sent {
  status: number;
  text: string;
}

/** A raw POST: `chunks` are written one by one with no Content-Length (chunked) when `chunked`. */
function send(
  body: Buffer,
  headers: Record<string, string>,
  o: { chunked?: boolean; ws?: string } = {},
): Promise<Sent> {
  const url = new URL(`${h.url}/trunk/webhooks/${o.ws ?? TEAM}`);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: o.chunked ? headers : { ...headers, 'Content-Length': String(body.length) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The app may close the connection after a 413 while a chunked body is still being written.
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') return;
      reject(err);
    });
    if (o.chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      req.end();
    } else req.end(body);
  });
}

function signed(
  body: Buffer,
  o: { id?: string; ts?: number; prefix?: string; extraSignatures?: string[]; secret?: string } = {},
): Record<string, string> {
  const id = o.id ?? msgId();
  const ts = o.ts ?? nowSec();
  const p = o.prefix ?? 'svix';
  const cap = (s: string) => s.replace(/(^|-)([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
  return {
    'Content-Type': 'application/json; charset=utf-8',
    [cap(`${p}-id`)]: id,
    [cap(`${p}-timestamp`)]: String(ts),
    [cap(`${p}-signature`)]: [...(o.extraSignatures ?? []), svixSign(o.secret ?? SECRET, id, ts, body)].join(
      ' ',
    ),
  };
}

const kept = async (id: string) =>
  (await h.app!.store.db.query('SELECT type FROM webhook_inbox WHERE delivery_id = $1', [id])).map(
    (r) => r['type'],
  );

describe('a Svix sender written by someone else', () => {
  it('verifies a UTF-8 body byte for byte, whatever the header case, charset or unknown signature versions', async () => {
    // Pretty-printed, non-ASCII: re-serialising it would change the bytes and break the signature.
    const body = Buffer.from(
      '{\n  "type": "test_case.monitor_status_changed",\n  "test_case": { "id": "t-é", "name": "checkout ✓ charges café 💳" }\n}\n',
      'utf8',
    );
    const id = msgId();
    const r = await send(
      body,
      signed(body, { id, extraSignatures: ['v1a,bm90IGEgcmVhbCBzaWduYXR1cmU=', 'v2,whatever'] }),
    );
    expect(r.status).toBe(200);
    expect(await kept(id)).toEqual(['test_case.monitor_status_changed']);
  });

  it('accepts the webhook-* names and a chunked body without a length', async () => {
    const body = Buffer.from(JSON.stringify({ type: 'something.new', note: 'ünïcödé' }));
    const id = msgId();
    const r = await send(body, signed(body, { id, prefix: 'webhook' }), { chunked: true });
    expect(r.status).toBe(200);
    expect(await kept(id)).toEqual(['something.new']);
  });

  it('keeps the five-minute tolerance both ways and refuses a timestamp in milliseconds', async () => {
    const body = Buffer.from(JSON.stringify({ type: 'something.new' }));
    const ok = [nowSec() - 240, nowSec() + 240];
    const bad = [nowSec() - 360, nowSec() + 360, Date.now()];
    for (const ts of ok) expect((await send(body, signed(body, { ts }))).status).toBe(200);
    for (const ts of bad) {
      const r = await send(body, signed(body, { ts }));
      expect(r.status).toBe(401);
      expect(r.text).toBe('unauthorized\n');
    }
  });

  it('answers 400 to a signed body that is not JSON, and 413 to an oversized chunked body', async () => {
    const notJson = Buffer.from('type=pull_request.failed');
    expect((await send(notJson, signed(notJson))).status).toBe(400);
    const big = Buffer.alloc(1024 * 1024 + 100, 0x20);
    const id = msgId();
    const r = await send(big, signed(big, { id }), { chunked: true });
    expect(r.status).toBe(413);
    expect(await kept(id)).toEqual([]);
  });

  it("refuses a secret of this workspace on another workspace's path", async () => {
    const body = Buffer.from(JSON.stringify({ type: 'something.new' }));
    const id = msgId();
    for (const ws of ['T0OTHER01', 'E0ORG0001', 't0default', 'not-a-team']) {
      const r = await send(body, signed(body, { id }), { ws });
      expect(r.status).toBe(401);
    }
    expect(await kept(id)).toEqual([]);
  });

  it('keeps one of two copies of a message arriving at once', async () => {
    const body = Buffer.from(JSON.stringify({ type: 'something.new' }));
    const headers = signed(body);
    const both = await Promise.all([send(body, headers), send(body, headers)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(await kept(headers['Svix-Id']!)).toHaveLength(1);
  });
});

describe("the spec's constructed examples, verbatim", () => {
  const post = async (payload: object) => {
    const body = Buffer.from(JSON.stringify(payload, null, 2));
    const r = await send(body, signed(body));
    expect(r.status).toBe(200);
    await h.app!.webhooks.idle();
  };
  const feed = (channel: string) =>
    h.slack.channelMessages(channel).filter((m) => !/started a (flaky-test )?feed/.test(textOf(m)));
  const repository = { host: 'github.com', owner: 'acme', name: 'widgets' };

  it('posts pull_request.failed, .canceled and pull_request_batch.merged once each in the watching channel', async () => {
    const channel = 'C0SPECMQ1';
    h.trunk.addQueue('acme/widgets', 'main', { state: 'running' });
    const sent = await h.sendCommand('watch acme/widgets:main submitted testing merged failed', {
      channel,
    });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('follows');
    await h.app!.events!.tick();
    await post({
      type: 'pull_request.failed',
      action: 'failed',
      status: 'failed',
      author: 'octocat',
      pr_number: 4901,
      repository,
      target_branch: 'main',
      http_details_url: 'https://app.trunk.io/gh/acme/widgets/merge/main/8762',
      batched: true,
      is_bisection: false,
      test_branch: 'trunk-merge/pr-4900-4901/abc123',
      test_branch_sha: 'a23f8853080d3fe873c3419a735513898c2329f5',
      test_pr_number: 15,
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      timestamp: '2026-07-28T11:35:00Z',
    });
    const failed = await h.slack.waitFor(() => feed(channel).find((m) => textOf(m).includes('#4901')));
    expect(textOf(failed)).toMatch(/fail/i);
    // `canceled` (one l), no timestamp, no `type`: an old payload carrying only `action`.
    await post({
      action: 'canceled',
      status: 'canceled',
      author: 'octocat',
      pr_number: 4902,
      repository: { host: 'GitHub.com', owner: 'Acme', name: 'Widgets' },
      target_branch: 'main',
      http_details_url: 'https://app.trunk.io/gh/acme/widgets/merge/main/8763',
      cancellation_reason: 'SOME_REASON_NOT_PUBLISHED',
    });
    const cancelled = await h.slack.waitFor(() => feed(channel).find((m) => textOf(m).includes('#4902')));
    expect(textOf(cancelled)).toContain('SOME_REASON_NOT_PUBLISHED');
    // A batch payload without `type` (only `action` and `pr_numbers`).
    await post({
      action: 'merged',
      pr_numbers: [4903, 4904],
      repository,
      status: 'merged',
      target_branch: 'main',
      test_branch: 'trunk-merge/pr-4903-4904/abc123',
      test_branch_sha: 'a23f8853080d3fe873c3419a735513898c2329f5',
      test_pr_number: 16,
    });
    await h.slack.waitFor(() => {
      const text = feed(channel).map(textOf).join('\n');
      return text.includes('#4903') && text.includes('#4904') ? true : undefined;
    });
    // Another branch of the same repository is not the followed queue.
    await post({
      type: 'pull_request.failed',
      action: 'failed',
      status: 'failed',
      author: 'octocat',
      pr_number: 4905,
      repository,
      target_branch: 'release',
      http_details_url: 'https://app.trunk.io/gh/acme/widgets/merge/release/1',
      failure_reason: 'TEST_RUN_TIMEOUT',
    });
    const texts = feed(channel).map(textOf);
    // A webhook names no title, and a batch no authors: nothing stands in for them.
    expect(texts.join('\n')).not.toMatch(/\(no title\)|by unknown/);
    expect(texts.filter((t) => t.includes('#4901'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('#4902'))).toHaveLength(1);
    expect(texts.join('\n')).not.toContain('#4905');
  });

  it('posts the flaky-test examples to the owning team, the summary in the thread, the legacy payload too', async () => {
    const channel = 'C0SPECFT1';
    const sent = await h.sendCommand('tests watch owner @acme/payments acme/widgets', {
      channel,
      user: USERS.admin,
    });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('This channel will hear');
    const testCase = {
      id: 'bfeebcf4-0000-8000-8000-000000000001',
      name: 'checkout > charges card',
      classname: 'CheckoutSpec',
      file_path: 'src/checkout.test.ts',
      html_url:
        'https://app.trunk.io/acme/flaky-tests/test/bfeebcf4-0000-8000-8000-000000000001?repo=acme%2Fwidgets',
      codeowners: ['@acme/payments'],
      quarantined: false,
      variant: '',
    };
    const repo = {
      id: '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
      html_url: 'https://github.com/acme/widgets',
    };
    await post({
      type: 'v2.test_case.status_changed',
      timestamp: new Date().toISOString(),
      previous_status: 'FLAKY',
      new_status: 'BROKEN',
      triggered_by: {
        monitor_id: '1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
        monitor_type: 'failure_rate',
        monitor_status: 'active',
      },
      repository: repo,
      test_case: testCase,
    });
    const status = await h.slack.waitFor(() =>
      feed(channel).find((m) => textOf(m).includes('checkout > charges card')),
    );
    expect(textOf(status)).toContain('@acme/payments');
    await post({
      type: 'test_case.monitor_status_changed',
      timestamp: new Date().toISOString(),
      monitor: { id: '1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d', type: 'pass_on_retry', status: 'active' },
      evidence: {},
      repository: repo,
      test_case: { ...testCase, html_url: 'https://app.trunk.io/…', codeowners: ['@acme/payments'] },
    });
    await post({
      type: 'test_case.investigation_completed',
      investigation_id: '3f1c0000-0000-4000-8000-000000000001',
      trigger: 'AUTOMATIC',
      confidence: 0.82,
      created_at: new Date().toISOString(),
      markdown_summary:
        '## Root cause\n\nThe test races the **payment mock** ([source](https://github.com/acme/widgets/blob/main/src/checkout.test.ts#L42)).\n\n- retries hide it\n- seen on `main` since 2 June\n\n1. await the mock\n2. re-run',
      failure_message: 'expected 200, got 502',
      facts: [{ fact_type: 'GIT_BLAME', content: 'changed by octocat', confidence: 0.7 }],
      repository: repo,
      test_case: testCase,
    });
    const summary = await h.slack.waitFor(() =>
      h.slack
        .channelMessages(channel)
        .find((m) => m.threadTs === status.ts && JSON.stringify(m.blocks).includes('Root cause')),
    );
    expect(JSON.stringify(summary.blocks)).toContain('"type":"markdown"');
    expect(JSON.stringify(summary.blocks)).toContain('Root cause');
    // A payload without `type` is known by its fields.
    await post({
      timestamp: new Date().toISOString(),
      previous_status: 'HEALTHY',
      new_status: 'FLAKY',
      repository: repo,
      test_case: { ...testCase, id: 'bfeebcf4-0000-8000-8000-000000000009', name: 'untyped › still heard' },
    });
    await h.slack.waitFor(() => feed(channel).find((m) => textOf(m).includes('untyped › still heard')));
    // The legacy v1 shape, as Trunk's GitHub-issue transformation reads it: no test id.
    await post({
      type: 'test_case.status_changed',
      status_change: { previous_status: 'healthy', current_status: { value: 'flaky' } },
      test_case: {
        name: 'cart › empties on logout',
        file_path: 'src/cart.test.ts',
        status: { timestamp: new Date().toISOString(), value: 'flaky' },
        quarantine: false,
        repository: { html_url: 'https://github.com/acme/widgets' },
        codeowners: ['@acme/payments'],
        failure_rate_last_7d: 0.12,
        most_common_failures: [{ summary: 'timeout' }],
        pull_requests_impacted_last_7d: 3,
        ticket: null,
        html_url: 'https://app.trunk.io/acme/flaky-tests/test/5c0ffee0-0000-4000-8000-000000000002',
      },
    });
    await h.slack.waitFor(() => feed(channel).find((m) => textOf(m).includes('cart › empties on logout')));
  });
});
