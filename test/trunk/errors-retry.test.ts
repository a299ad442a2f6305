/**
 * Error taxonomy and retry rules, over real HTTP against a scripted server: which statuses are retried,
 * how long the client waits (measured through the injected sleep), deadlines, aborts, and that the token
 * never leaks into any error.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trunkHint } from '../../src/slack/blocks/errors.ts';
import {
  isTrunkError,
  TrunkAuthError,
  type TrunkError,
  TrunkInvalidRequestError,
  TrunkInvalidResponseError,
  TrunkNotFoundError,
  TrunkRateLimitedError,
  TrunkUnavailableError,
} from '../../src/trunk/errors.ts';
import { queueSettings, queueWithPrs } from './fixtures.ts';
import { REPO, rejectionOf, type ScriptedServer, startScripted, TOKEN, testClient } from './helpers.ts';

let server: ScriptedServer;
let t: ReturnType<typeof testClient>;
const addr = { repo: REPO, targetBranch: 'main' };

beforeAll(async () => {
  server = await startScripted();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  expect(server.bodyViolations()).toEqual([]);
  server.reset();
  await t?.close();
});

function fresh(overrides: Parameters<typeof testClient>[1] = {}) {
  t = testClient(server.url, overrides);
  return t;
}

/** Every error text a person or a log could see, including nested causes. */
function allText(err: unknown): string {
  const e = err as TrunkError;
  return [
    e.message,
    e.detail ?? '',
    e.userMessage,
    trunkHint(e),
    JSON.stringify(e),
    String(e.stack),
    String(e.cause),
  ].join('\n');
}

describe('error classes: each status maps to one class, tried once when not retryable', () => {
  it("400 → TrunkInvalidRequestError with Trunk's plain text as detail, one attempt", async () => {
    const { client, attempts, sleeps } = fresh();
    server.script({ status: 400, text: 'concurrency must be at least 1' });
    const err = await rejectionOf(client.getQueue(addr));
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
    const e = err as TrunkInvalidRequestError;
    expect(e.status).toBe(400);
    expect(e.local).toBe(false);
    expect(e.detail).toBe('concurrency must be at least 1');
    expect(e.userMessage).toContain('concurrency must be at least 1');
    expect(server.requests).toHaveLength(1);
    expect(attempts.map((a) => a.status)).toEqual([400]);
    expect(sleeps).toEqual([]);
  });

  it('401 → TrunkAuthError, one attempt', async () => {
    const { client } = fresh();
    server.script({ status: 401, text: 'Unauthorized' });
    const err = await rejectionOf(client.getQueue(addr));
    expect(err).toBeInstanceOf(TrunkAuthError);
    expect((err as TrunkAuthError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('403 → TrunkAuthError, one attempt', async () => {
    const { client } = fresh();
    server.script({ status: 403, text: 'Forbidden' });
    const err = await rejectionOf(client.updateQueue({ ...addr, state: 'paused' }));
    expect(err).toBeInstanceOf(TrunkAuthError);
    expect((err as TrunkAuthError).status).toBe(403);
    expect(server.requests).toHaveLength(1);
  });

  it('404 → TrunkNotFoundError with the plain-text body as detail, one attempt', async () => {
    const { client } = fresh();
    server.script({ status: 404, text: 'Merge queue not found for acme/web:main\n' });
    const err = await rejectionOf(client.getQueue(addr));
    expect(err).toBeInstanceOf(TrunkNotFoundError);
    expect((err as TrunkNotFoundError).detail).toBe('Merge queue not found for acme/web:main');
    expect((err as TrunkNotFoundError).userMessage).toBe('Trunk found no merge queue for acme/web:main.');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps at most 500 characters of a long error body', async () => {
    const { client } = fresh();
    server.script({ status: 400, text: 'x'.repeat(5000) });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkInvalidRequestError;
    expect(err.detail?.length).toBe(501); // 500 chars + the ellipsis
    expect(err.message.length).toBeLessThan(700);
  });

  it('429 after retries run out → TrunkRateLimitedError carrying Retry-After', async () => {
    const { client, sleeps } = fresh({ retry: { maxAttempts: 2 } });
    server.script(
      { status: 429, text: 'slow down', headers: { 'retry-after': '1' } },
      { status: 429, text: 'slow down', headers: { 'retry-after': '2' } },
    );
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkRateLimitedError;
    expect(err).toBeInstanceOf(TrunkRateLimitedError);
    expect(err.retryAfterMs).toBe(2000);
    expect(trunkHint(err)).toBe('Try again in about 2 s.');
    expect(sleeps).toEqual([1000]);
    expect(server.requests).toHaveLength(2);
  });

  it('5xx after retries run out → TrunkUnavailableError (not timed out)', async () => {
    const { client, attempts } = fresh({ retry: { maxAttempts: 3 } });
    server.script(
      { status: 502, text: 'bad gateway' },
      { status: 503, text: '' },
      { status: 500, text: 'boom' },
    );
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkUnavailableError;
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(err.timedOut).toBe(false);
    expect(err.status).toBe(500);
    expect(err.message).toContain('after 3 attempts');
    expect(attempts.map((a) => a.status)).toEqual([502, 503, 500]);
  });

  it('a 200 whose body is not JSON → TrunkInvalidResponseError, not retried', async () => {
    const { client } = fresh();
    server.script({ status: 200, text: '<html>maintenance</html>' });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkInvalidResponseError;
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect(err.message).toContain('not JSON');
    expect(server.requests).toHaveLength(1);
  });

  it("a proxy's HTML error page is kept as words, not markup", async () => {
    const { client } = fresh({ retry: { maxAttempts: 1 } });
    server.script({
      status: 502,
      text: '<html><head><style>p{}</style></head><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>',
      headers: { 'content-type': 'text/html' },
    });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkUnavailableError;
    expect(err.detail).toBe('502 Bad Gateway nginx');
  });

  it('a throwing onAttempt hook does not break the call', async () => {
    const { client } = fresh({
      onAttempt: () => {
        throw new Error('metrics down');
      },
    });
    server.script({ json: queueWithPrs(0) });
    await expect(client.getQueue(addr)).resolves.toMatchObject({ branch: 'main' });
  });

  it('every error is a TrunkError', async () => {
    const { client } = fresh();
    server.script({ status: 418, text: 'teapot' });
    const err = await rejectionOf(client.getQueue(addr));
    expect(isTrunkError(err)).toBe(true);
    expect(err).toBeInstanceOf(TrunkInvalidRequestError);
  });
});

describe('retry rules', () => {
  it('503 then 200 succeeds after one backoff with full jitter', async () => {
    const { client, sleeps, attempts } = fresh({ random: () => 0.5 });
    server.script({ status: 503, text: 'unavailable' }, { json: queueWithPrs(1) });
    const q = await client.getQueue(addr);
    expect(q.enqueuedPullRequests).toHaveLength(1);
    // First retry: cap = base 250 ms; full jitter with random 0.5 → 125 ms.
    expect(sleeps).toEqual([125]);
    expect(attempts.map((a) => [a.operation, a.attempt, a.status])).toEqual([
      ['getQueue', 1, 503],
      ['getQueue', 2, 200],
    ]);
    expect(attempts.every((a) => a.durationMs >= 0)).toBe(true);
  });

  it('updateQueue is retried on 5xx and sends the same body each time', async () => {
    const { client } = fresh();
    server.script({ status: 500, text: 'oops' }, { json: { ...queueSettings(), state: 'paused' } });
    const q = await client.updateQueue({ ...addr, state: 'paused' });
    expect(q.state).toBe('paused');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.raw).toBe(server.requests[1]?.raw);
  });

  it('429 with Retry-After in seconds waits exactly that long', async () => {
    const { client, sleeps } = fresh();
    server.script(
      { status: 429, text: 'rate limited', headers: { 'retry-after': '2' } },
      { json: queueWithPrs(0) },
    );
    await client.getQueue(addr);
    expect(sleeps).toEqual([2000]);
  });

  it('429 with Retry-After as an HTTP date waits until then', async () => {
    const { client, sleeps } = fresh();
    const at = new Date(Date.now() + 5000).toUTCString();
    server.script(
      { status: 429, text: 'rate limited', headers: { 'retry-after': at } },
      { json: queueWithPrs(0) },
    );
    await client.getQueue(addr);
    expect(sleeps).toHaveLength(1);
    // HTTP dates have whole seconds: between 3 and 5 s from now.
    expect(sleeps[0]).toBeGreaterThan(3000);
    expect(sleeps[0]).toBeLessThanOrEqual(5000);
  });

  it('429 without Retry-After backs off exponentially (capped, jittered)', async () => {
    const { client, sleeps } = fresh({
      random: () => 0.999,
      retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 500 },
    });
    server.script(
      { status: 429, text: '' },
      { status: 429, text: '' },
      { status: 429, text: '' },
      { status: 429, text: '' },
      { json: queueWithPrs(0) },
    );
    await client.getQueue(addr);
    expect(sleeps).toEqual([99, 199, 399, 499]);
  });

  it('a Retry-After longer than the deadline gives up at once instead of waiting', async () => {
    const { client, sleeps } = fresh();
    server.script({ status: 429, text: 'rate limited', headers: { 'retry-after': '60' } });
    const err = (await rejectionOf(client.getQueue(addr, { deadlineMs: 2500 }))) as TrunkRateLimitedError;
    expect(err).toBeInstanceOf(TrunkRateLimitedError);
    expect(err.retryAfterMs).toBe(60_000);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a dropped connection is retried', async () => {
    const { client, attempts } = fresh();
    server.script({ destroy: true }, { json: queueWithPrs(2) });
    const q = await client.getQueue(addr);
    expect(q.enqueuedPullRequests).toHaveLength(2);
    expect(attempts.map((a) => a.status)).toEqual(['network', 200]);
  });

  it('dropped connections until attempts run out → TrunkUnavailableError naming the network error', async () => {
    const { client } = fresh({ retry: { maxAttempts: 2 } });
    server.script({ destroy: true }, { destroy: true });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkUnavailableError;
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(err.timedOut).toBe(false);
    expect(err.message).toMatch(/network error/);
  });

  it('deadline exceeded → TrunkUnavailableError with timedOut, reported as a timeout attempt', async () => {
    const { client, attempts } = fresh();
    server.script({ hang: true });
    const started = performance.now();
    const err = (await rejectionOf(client.getQueue(addr, { deadlineMs: 300 }))) as TrunkUnavailableError;
    const took = performance.now() - started;
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(err.timedOut).toBe(true);
    expect(err.userMessage).toBe('Trunk did not answer in time.');
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3000);
    expect(attempts.map((a) => a.status)).toEqual(['timeout']);
  });

  it('the client default deadline applies when the call sets none', async () => {
    const { client } = fresh({ defaultDeadlineMs: 200 });
    server.script({ hang: true });
    const err = (await rejectionOf(client.getQueue(addr))) as TrunkUnavailableError;
    expect(err.timedOut).toBe(true);
  });

  it('a caller abort rejects with the signal reason and stops retrying', async () => {
    const ac = new AbortController();
    const { client } = fresh({
      sleep: async () => {
        ac.abort(new Error('shutting down'));
      },
    });
    server.script({ status: 503, text: '' }, { json: queueWithPrs(0) });
    const err = await rejectionOf(client.getQueue(addr, { signal: ac.signal }));
    expect((err as Error).message).toBe('shutting down');
    expect(server.requests).toHaveLength(1);
  });

  it('an abort during a request interrupts it', async () => {
    const ac = new AbortController();
    const { client } = fresh();
    server.script({ hang: true });
    const p = client.getQueue(addr, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('cancelled by user')), 50);
    const err = await rejectionOf(p);
    expect((err as Error).message).toBe('cancelled by user');
  });
});

describe('the token', () => {
  it('is sent as x-api-token with a JSON content type on every call', async () => {
    const { client } = fresh();
    server.script({ status: 503, text: '' }, { json: queueWithPrs(0) });
    await client.getQueue(addr);
    expect(server.requests).toHaveLength(2);
    for (const r of server.requests) {
      expect(r.method).toBe('POST');
      expect(r.headers['x-api-token']).toBe(TOKEN);
      expect(r.headers['content-type']).toBe('application/json');
    }
  });

  it('never appears in any error, even when Trunk echoes it back', async () => {
    const echoes = [
      { status: 401, text: `token ${TOKEN} is not valid` },
      { status: 404, text: `no queue for token ${TOKEN}` },
      { status: 400, text: `bad request with ${TOKEN}` },
      { status: 429, text: TOKEN },
      { status: 503, text: `down (${TOKEN})` },
      { status: 200, text: `not json ${TOKEN}` },
      { status: 200, json: { state: TOKEN } },
    ];
    for (const reply of echoes) {
      const { client } = fresh({ retry: { maxAttempts: 1 } });
      server.script(reply);
      const err = await rejectionOf(client.getQueue(addr));
      expect(isTrunkError(err)).toBe(true);
      expect(allText(err)).not.toContain(TOKEN);
      await t.close();
    }
    // An auth seam that does not list its secrets: its header values are scrubbed.
    const bearer = 'v2-bearer-secret-xyz';
    const custom = fresh({ retry: { maxAttempts: 1 }, auth: { headers: () => ({ authorization: bearer }) } });
    server.script({ status: 401, text: `bad credentials: ${bearer}` });
    const bearerErr = await rejectionOf(custom.client.getQueue(addr));
    expect(bearerErr).toBeInstanceOf(TrunkAuthError);
    expect(allText(bearerErr)).not.toContain(bearer);
    expect(server.requests.at(-1)?.headers.authorization).toBe(bearer);
    await t.close();

    const { client } = fresh({ retry: { maxAttempts: 1 } });
    server.script({ destroy: true });
    expect(allText(await rejectionOf(client.getQueue(addr)))).not.toContain(TOKEN);
    server.script({ hang: true });
    expect(allText(await rejectionOf(client.getQueue(addr, { deadlineMs: 100 })))).not.toContain(TOKEN);
  });
});
