/**
 * The HTTP side of the fake: routing, x-api-token auth, fault injection, request recording.
 * Errors are plain text like the real service; successes are JSON.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  applyQuirks,
  type FailSpec,
  type FakeOperation,
  type Faults,
  type MalformedKind,
  malformedBody,
} from './faults.ts';
import type { HandlerState } from './handler-state.ts';
import { handle } from './handlers.ts';
import { routeV2, type V2FakeOperation, type V2State } from './v2.ts';

export const ROUTES: Record<string, FakeOperation> = {
  '/v1/getQueue': 'getQueue',
  '/v1/updateQueue': 'updateQueue',
  '/v1/getSubmittedPullRequest': 'getSubmittedPullRequest',
  '/v1/getMergeQueueTestingDetails': 'getMergeQueueTestingDetails',
  '/v1/flaky-tests/list-failing-tests': 'listFailingTests',
  '/v1/flaky-tests/list-quarantined-tests': 'listQuarantinedTests',
  '/v1/submitPullRequest': 'submitPullRequest',
  '/v1/cancelPullRequest': 'cancelPullRequest',
  '/v1/restartTestsOnPullRequest': 'restartTestsOnPullRequest',
  '/v1/listPullRequests': 'listPullRequests',
};

/** Operations that change state: applied when their injected latency is over, as a slow server would. */
const WRITES: ReadonlySet<FakeOperation | undefined> = new Set<FakeOperation>([
  'updateQueue',
  'submitPullRequest',
  'cancelPullRequest',
  'restartTestsOnPullRequest',
]);

export interface RecordedRequest {
  /** The operation (v2: Trunk's operationId), or 'unknown' for paths the fake does not serve. */
  operation: FakeOperation | V2FakeOperation | 'unknown';
  method: string;
  path: string;
  /** Lower-case header names, as received. */
  headers: Record<string, string>;
  /** Parsed JSON body; undefined when the body was not JSON (see rawBody). */
  body: unknown;
  rawBody: string;
  /** Status sent; 0 when the connection was dropped (or the request is still in flight). */
  status: number;
  /** Arrival time from the fake's clock (ms since epoch). */
  at: number;
  durationMs: number;
  /** Injected fault, e.g. "status 503", "drop", "random latency spike", "malformed truncated". */
  fault?: string;
  /** False while the request is being answered (e.g. during injected latency). */
  done: boolean;
}

export interface ServerDeps {
  state: HandlerState;
  /** Trunk API v2 (v2.ts), over the same queues. */
  v2: V2State;
  faults: Faults;
  tokens: () => ReadonlySet<string>;
  now: () => number;
  record: (r: RecordedRequest) => void;
  /** Aborted on close, so sleeping requests end promptly. */
  closing: AbortSignal;
}

const MAX_BODY = 1 << 20;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const DEFAULT_FAIL_TEXT: Record<number, string> = {
  429: 'Too Many Requests: rate limit exceeded',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function createFakeServer(deps: ServerDeps): Server {
  const server = createServer((req, res) => {
    onRequest(deps, req, res).catch(() => {
      // A handler bug must still answer (and show up in the test as a 500), never hang the client.
      if (!res.headersSent) text(res, 500, 'Internal Server Error (fake)');
    });
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

async function onRequest(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const path = (req.url ?? '/').split('?')[0] as string;
  if (path.startsWith('/v2/')) return onV2Request(deps, req, res, path, started);
  const op = ROUTES[path];
  const raw = await readBody(req);
  const entry: RecordedRequest = {
    operation: op ?? 'unknown',
    method: req.method ?? 'GET',
    path,
    headers: headersOf(req),
    body: undefined,
    rawBody: raw ?? '',
    status: 0,
    at: deps.now(),
    durationMs: 0,
    done: false,
  };
  let parseError = '';
  if (raw !== undefined && raw !== '') {
    try {
      entry.body = JSON.parse(raw);
    } catch (err) {
      parseError = (err as Error).message;
    }
  }
  deps.record(entry);
  const finish = (status: number) => {
    entry.status = status;
    entry.done = true;
    entry.durationMs = performance.now() - started;
  };

  const plan = deps.faults.plan(op);
  if (plan.label) entry.fault = plan.label;
  // Injected latency counts from the request's arrival, like a slow server's: a read's answer is prepared
  // while it waits, so "20 ms a page" means the page starts arriving 20 ms after it was asked for. A write
  // (updateQueue) is applied only when the delay is over, as a slow server would apply it.
  const prepared = WRITES.has(op) ? undefined : answer(deps, op, req, raw, entry, plan, parseError);
  const wait = started + plan.delayMs - performance.now();
  if (wait > 0) {
    try {
      await sleep(wait, undefined, { signal: deps.closing });
    } catch {
      finish(0);
      res.destroy();
      return;
    }
  }
  const reply = prepared ?? answer(deps, op, req, raw, entry, plan, parseError);
  if (reply.kind === 'drop') {
    finish(0);
    req.socket.destroy();
    return;
  }
  if (reply.kind === 'hang') {
    // Applied, never answered: the client gives up (its timeout) or close() cuts the socket.
    finish(0);
    return;
  }
  finish(reply.status);
  res.writeHead(reply.status, { 'content-type': reply.contentType, ...reply.headers });
  res.end(reply.body);
}

/** A v2 request: bearer key, JSON envelopes, GET reads (v2.ts); recorded like v1's, with its query. */
async function onV2Request(
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  started: number,
): Promise<void> {
  const raw = (await readBody(req)) ?? '';
  const url = new URL(req.url ?? '/', 'http://fake');
  const route = routeV2(path);
  const entry: RecordedRequest = {
    operation: route.operation ?? 'unknown',
    method: req.method ?? 'GET',
    path: `${path}${url.search}`,
    headers: headersOf(req),
    body: undefined,
    rawBody: raw,
    status: 0,
    at: deps.now(),
    durationMs: 0,
    done: false,
  };
  deps.record(entry);
  const denied = deps.v2.authenticate(req);
  const reply =
    denied ??
    deps.v2.answer(route, req.method ?? 'GET', url, { key: deps.v2.keyOf(req), body: jsonOrUndefined(raw) });
  const late = denied ? 0 : deps.v2.takeDelay(route.operation);
  if (late > 0) await sleep(late, undefined, { signal: deps.closing }).catch(() => undefined);
  entry.status = reply.status;
  entry.done = true;
  entry.durationMs = performance.now() - started;
  if ('text' in reply) {
    text(res, reply.status, reply.text);
    return;
  }
  res.writeHead(reply.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(reply.json));
}

type Reply =
  | { kind: 'drop' }
  | { kind: 'hang' }
  | { kind: 'send'; status: number; contentType: string; headers: Record<string, string>; body: string };

const plainText = 'text/plain; charset=utf-8';

function textReply(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { kind: 'send', status, contentType: plainText, headers, body };
}

/** What the fake answers to one request (faults, routing, auth, validation, the operation itself). */
function answer(
  deps: ServerDeps,
  op: FakeOperation | undefined,
  req: IncomingMessage,
  raw: string | undefined,
  entry: RecordedRequest,
  plan: ReturnType<ServerDeps['faults']['plan']>,
  parseError: string,
): Reply {
  if (plan.drop) return { kind: 'drop' };
  if (plan.fail) return failureReply(plan.fail);
  const path = entry.path;
  if (!op) return textReply(404, `Not Found: no route ${req.method} ${path}`);
  if (req.method !== 'POST')
    return textReply(405, `Method Not Allowed: ${path} accepts POST`, { allow: 'POST' });
  const token = req.headers['x-api-token'];
  if (typeof token !== 'string' || token === '') {
    const hint = req.headers.authorization ? ' (API v1 reads the x-api-token header, not Authorization)' : '';
    return textReply(401, `Unauthorized: missing x-api-token header${hint}`);
  }
  if (!deps.tokens().has(token)) return textReply(401, 'Unauthorized: invalid API token');
  if (raw === undefined) return textReply(413, 'Payload Too Large: request body over 1 MiB');
  if (entry.body === undefined)
    return textReply(
      400,
      raw === ''
        ? 'invalid request: empty body, expected a JSON object'
        : `invalid request: body is not valid JSON (${parseError})`,
    );

  const outcome = handle(op, entry.body, deps.state);
  const lost = plan.loseAnswer;
  if (lost !== undefined) return lost === 'drop' || lost === 'hang' ? { kind: lost } : failureReply(lost);
  if (outcome.status !== 200) return textReply(outcome.status, outcome.text);
  const { quirks } = deps.faults;
  let json = outcome.json;
  if (quirks.extraFields || quirks.uppercaseEnums || quirks.nullRequiredStatuses)
    json = applyQuirks(JSON.parse(JSON.stringify(json)), quirks) as Record<string, unknown>;
  const malformed: MalformedKind | undefined = plan.malformed ?? deps.faults.takeMalformed(op);
  if (malformed !== undefined) {
    const broken = malformedBody(op, json, malformed);
    entry.fault = plan.malformed
      ? entry.fault
      : `malformed ${typeof malformed === 'string' ? malformed : 'raw'}`;
    return { kind: 'send', status: 200, contentType: broken.contentType, headers: {}, body: broken.text };
  }
  return {
    kind: 'send',
    status: 200,
    contentType: 'application/json',
    headers: {},
    body: JSON.stringify(json),
  };
}

function failureReply(spec: FailSpec): Reply {
  const headers: Record<string, string> = {};
  if (spec.retryAfter !== undefined) headers['retry-after'] = String(spec.retryAfter);
  return textReply(
    spec.status,
    spec.body ?? DEFAULT_FAIL_TEXT[spec.status] ?? `Error ${spec.status}`,
    headers,
  );
}

/** A v2 write's JSON body; undefined when it is empty or not JSON (the operation answers 400). */
function jsonOrUndefined(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
