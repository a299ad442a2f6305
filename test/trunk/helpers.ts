/**
 * A tiny scripted Trunk stand-in on 127.0.0.1 for precise fault scripting: each request takes the next
 * scripted reply (status, plain-text or JSON body, headers, a dropped socket, or no answer at all).
 * Every request is recorded, and every body is checked against Trunk's OpenAPI document.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTrunkAgent } from '../../src/trunk/agent.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { type AttemptEvent, createTrunkClient, type TrunkClientOptions } from '../../src/trunk/client.ts';
import { requestBodyErrors } from './openapi.ts';

export const TOKEN = 'tk_live_SECRET-0123456789abcdef';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: unknown;
  /** Client side port of the connection, to tell reused connections from new ones. */
  remotePort: number | undefined;
}

export type Reply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string> }
  | { destroy: true }
  | { hang: true };

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  /** Replies used in order, one per request; when none is left, `fallback` answers. */
  script(...replies: Reply[]): void;
  fallback: (req: Recorded) => Reply;
  /** OpenAPI violations among the request bodies received so far. */
  bodyViolations(): string[];
  /** Forget recorded requests, violations and unused scripted replies (between tests). */
  reset(): void;
  close(): Promise<void>;
}

export async function startScripted(): Promise<ScriptedServer> {
  const queue: Reply[] = [];
  const requests: Recorded[] = [];
  const violations: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
        violations.push(`${req.url}: body is not JSON`);
      }
      const rec: Recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
        remotePort: req.socket.remotePort,
      };
      requests.push(rec);
      if (body !== undefined) violations.push(...requestBodyErrors(rec.path, body));
      const reply = queue.shift() ?? api.fallback(rec);
      if ('destroy' in reply) {
        req.socket.destroy();
        return;
      }
      if ('hang' in reply) return;
      const headers: Record<string, string> = { ...reply.headers };
      let out = '';
      if (reply.json !== undefined) {
        out = JSON.stringify(reply.json);
        headers['content-type'] ??= 'application/json';
      } else if (reply.text !== undefined) {
        out = reply.text;
        headers['content-type'] ??= 'text/plain; charset=utf-8';
      }
      res.writeHead(reply.status ?? 200, headers);
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const api: ScriptedServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => {
      queue.push(...replies);
    },
    fallback: () => ({ status: 500, text: 'no scripted reply left' }),
    bodyViolations: () => [...violations],
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      violations.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

/** A client wired for tests: its own Agent, recorded sleeps and attempts, deterministic jitter. */
export function testClient(baseUrl: string, overrides: Partial<TrunkClientOptions> = {}) {
  const sleeps: number[] = [];
  const attempts: AttemptEvent[] = [];
  const agent = createTrunkAgent({ keepAliveTimeoutMs: 5_000 });
  const client = createTrunkClient({
    baseUrl,
    auth: apiTokenAuth(TOKEN),
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    onAttempt: (e) => attempts.push(e),
    ...overrides,
  });
  return { client, sleeps, attempts, agent, close: () => agent.close() };
}

export const REPO = { host: 'github.com', owner: 'acme', name: 'web' } as const;

/** Resolve with the rejection of `p`, failing the test if it resolves. */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
