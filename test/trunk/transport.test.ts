/**
 * The client's transport: base URL handling, connection reuse through one shared Agent across clients
 * (one per workspace token), and the pure retry policy functions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTrunkAgent } from '../../src/trunk/agent.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isRetryable,
  parseRetryAfter,
} from '../../src/trunk/retry.ts';
import { queueWithPrs } from './fixtures.ts';
import { REPO, type ScriptedServer, startScripted } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScripted();
  server.fallback = () => ({ json: queueWithPrs(0) });
});
afterEach(() => {
  expect(server.bodyViolations()).toEqual([]);
});
afterAll(async () => {
  await server.close();
});

describe('connections', () => {
  it('clients for different workspaces share one keep-alive Agent and reuse its connection', async () => {
    server.reset();
    const agent = createTrunkAgent({ connections: 1 });
    try {
      const a = createTrunkClient({ baseUrl: server.url, auth: apiTokenAuth('token-a'), dispatcher: agent });
      const b = createTrunkClient({
        baseUrl: `${server.url}/`,
        auth: apiTokenAuth('token-b'),
        dispatcher: agent,
      });
      const addr = { repo: REPO, targetBranch: 'main' };
      await a.getQueue(addr);
      await b.getQueue(addr);
      await a.getQueue(addr);
      expect(server.requests.map((r) => r.headers['x-api-token'])).toEqual(['token-a', 'token-b', 'token-a']);
      const ports = new Set(server.requests.map((r) => r.remotePort));
      expect(ports.size).toBe(1);
    } finally {
      await agent.close();
    }
  });

  it('a base URL ending in /v1 is accepted without doubling the version', async () => {
    server.reset();
    const agent = createTrunkAgent();
    try {
      const c = createTrunkClient({
        baseUrl: `${server.url}/v1/`,
        auth: apiTokenAuth('t'),
        dispatcher: agent,
      });
      await c.getQueue({ repo: REPO, targetBranch: 'main' });
      expect(server.requests[0]?.path).toBe('/v1/getQueue');
    } finally {
      await agent.close();
    }
  });

  it('refuses a base URL that is not http(s) and an empty token, without echoing it', () => {
    expect(() => createTrunkClient({ baseUrl: 'ftp://x', auth: apiTokenAuth('t') })).toThrow(/http/);
    expect(() => createTrunkClient({ baseUrl: 'not a url', auth: apiTokenAuth('t') })).toThrow(/not a URL/);
    expect(() => apiTokenAuth('  ')).toThrow(/empty/);
  });
});

describe('retry policy (pure)', () => {
  it('retries 429, 408, 5xx and network errors only', () => {
    for (const s of [429, 408, 500, 502, 503, 504, 599])
      expect(isRetryable({ kind: 'status', status: s })).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 422, 200, 302]) {
      expect(isRetryable({ kind: 'status', status: s })).toBe(false);
    }
    expect(isRetryable({ kind: 'network' })).toBe(true);
    expect(isRetryable({ kind: 'timeout' })).toBe(false);
  });

  it('full jitter within a doubling, capped ceiling', () => {
    const p = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffMs(i, p, () => 0.9999))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffMs(3, p, () => 0)).toBe(0);
  });

  it('parses Retry-After seconds and HTTP dates; ignores junk', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });

  it('stops at the attempt limit and never waits past the deadline', () => {
    const base = { policy: DEFAULT_RETRY_POLICY, random: () => 0.5 };
    const s503 = { kind: 'status' as const, status: 503 };
    expect(decideRetry({ ...base, outcome: s503, attempt: 1, remainingMs: 10_000 })).toEqual({
      retry: true,
      delayMs: 125,
    });
    expect(decideRetry({ ...base, outcome: s503, attempt: 4, remainingMs: 10_000 }).reason).toBe(
      'attempts_exhausted',
    );
    expect(
      decideRetry({ ...base, outcome: { ...s503, retryAfterMs: 5000 }, attempt: 1, remainingMs: 4000 })
        .reason,
    ).toBe('deadline');
    expect(
      decideRetry({ ...base, outcome: { kind: 'status', status: 404 }, attempt: 1, remainingMs: 1e6 }).reason,
    ).toBe('not_retryable');
  });
});
