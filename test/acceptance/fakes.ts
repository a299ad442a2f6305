// Acceptance fakes, written from the documented contract only (the README's commands and promises,
// docs/trunk-api-v1.md, Slack's own API documentation), not from the app's code or the project's own fakes
// (dev/fakes), so the app is tried against a second, independent reading of Slack and Trunk.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, unknown>;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Parses a Slack Web API body: JSON, or form-encoded with JSON-looking fields (blocks, view) decoded. */
export function parseSlackBody(raw: string, contentType: string | undefined): Json {
  if (raw === '') return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Json;
  const out: Json = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (/^[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v);
        continue;
      } catch {
        // not JSON after all: keep the string
      }
    }
    out[k] = v;
  }
  return out;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

// ---------------------------------------------------------------------------------------------------
// Fake Slack: Web API under /api/<method>, response_url receiver under /respond/<id>.

export interface SlackCall {
  method: string;
  body: Json;
  /** ts this fake answered with (chat.postMessage / chat.postEphemeral). */
  ts?: string;
  /** The id this fake gave the view it opened (views.open), as Slack gives each modal its own. */
  viewId?: string;
  status?: number;
  error?: string;
  authorization: string | undefined;
  at: number;
}

export interface ResponsePost {
  id: string;
  body: Json;
  at: number;
}

export interface SlackUser {
  id: string;
  name: string;
  is_admin: boolean;
  is_owner: boolean;
  tz: string;
}

export interface FakeSlack {
  url: string;
  apiUrl: string;
  calls: SlackCall[];
  responses: ResponsePost[];
  users: Map<string, SlackUser>;
  /** oauth.v2.access: code → the installation it grants. */
  oauthCodes: Map<string, { teamId: string; botToken: string; userId: string }>;
  /** chat.* calls to these channels answer ok:false with the given error (e.g. not_in_channel). */
  channelErrors: Map<string, string>;
  /** The next `count` calls of `method` get HTTP 429 with Retry-After. */
  rateLimitNext(method: string, count: number, retryAfterSec: number): void;
  responseUrl(id: string): string;
  close(): Promise<void>;
}

export const TEAM_ID = 'T0ACME42';

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const responses: ResponsePost[] = [];
  const users = new Map<string, SlackUser>();
  const channelErrors = new Map<string, string>();
  const oauthCodes = new Map<string, { teamId: string; botToken: string; userId: string }>();
  const rateLimits = new Map<string, { count: number; retryAfter: number }>();
  let tsCounter = 0;
  let viewCounter = 0;
  const nextTs = (): string => `${Math.floor(Date.now() / 1000)}.${String(++tsCounter).padStart(6, '0')}`;
  /** The installation a request's bot token came from (undefined: the single-workspace token). */
  const grantOf = (req: IncomingMessage, body: Json) => {
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '') || String(body['token'] ?? '');
    return [...oauthCodes.values()].find((g) => g.botToken === bearer);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path.startsWith('/respond/')) {
        let body: Json;
        try {
          body = parseSlackBody(raw, req.headers['content-type'] ?? 'application/json');
        } catch {
          body = { raw };
        }
        responses.push({ id: path.slice('/respond/'.length), body, at: Date.now() });
        sendJson(res, 200, { ok: true });
        return;
      }
      if (!path.startsWith('/api/')) return sendText(res, 404, 'not found');
      const method = path.slice('/api/'.length);
      let body: Json;
      try {
        body = parseSlackBody(raw, req.headers['content-type']);
      } catch {
        return sendJson(res, 200, { ok: false, error: 'invalid_json' });
      }
      const call: SlackCall = { method, body, authorization: req.headers.authorization, at: Date.now() };
      calls.push(call);
      const channel = typeof body['channel'] === 'string' ? body['channel'] : 'C0UNKNOWN';
      const limit = rateLimits.get(method);
      if (limit && limit.count > 0) {
        limit.count -= 1;
        call.status = 429;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit.retryAfter) });
        res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        return;
      }
      const chanErr = method.startsWith('chat.') ? channelErrors.get(channel) : undefined;
      if (chanErr) {
        call.status = 200;
        call.error = chanErr;
        return sendJson(res, 200, { ok: false, error: chanErr });
      }
      switch (method) {
        case 'oauth.v2.access': {
          const grant = oauthCodes.get(String(body['code'] ?? ''));
          if (!grant) return sendJson(res, 200, { ok: false, error: 'invalid_code' });
          return sendJson(res, 200, {
            ok: true,
            app_id: 'A0ACCEPT',
            authed_user: { id: grant.userId, scope: '', token_type: 'user' },
            scope: 'commands,chat:write,chat:write.public,users:read,usergroups:read',
            token_type: 'bot',
            access_token: grant.botToken,
            bot_user_id: `UB${grant.teamId}`,
            team: { id: grant.teamId, name: `Team ${grant.teamId}` },
            enterprise: null,
            is_enterprise_install: false,
          });
        }
        case 'auth.test': {
          const grant = grantOf(req, body);
          return sendJson(res, 200, {
            ok: true,
            url: 'https://acme.slack.com/',
            team: 'Acme',
            user: 'mergequeue',
            team_id: grant?.teamId ?? TEAM_ID,
            user_id: 'U0BOT',
            bot_id: 'B0BOT',
            is_enterprise_install: false,
          });
        }
        case 'chat.postMessage': {
          const ts = nextTs();
          call.ts = ts;
          return sendJson(res, 200, { ok: true, channel, ts, message: { ...body, ts, bot_id: 'B0BOT' } });
        }
        case 'chat.update':
          return sendJson(res, 200, { ok: true, channel, ts: body['ts'], text: body['text'] ?? '' });
        case 'chat.postEphemeral':
          call.ts = nextTs();
          return sendJson(res, 200, { ok: true, message_ts: call.ts });
        case 'views.open':
        case 'views.update':
        case 'views.push': {
          const view = (body['view'] ?? {}) as Json;
          // An update keeps the view's id; an open or a push makes a new view.
          const id = method === 'views.update' ? String(body['view_id'] ?? '') : `V0ACC${++viewCounter}`;
          if (method !== 'views.update') call.viewId = id;
          return sendJson(res, 200, { ok: true, view: { id, team_id: TEAM_ID, hash: 'h1', ...view } });
        }
        case 'users.info': {
          const id = String(body['user'] ?? '');
          const u = users.get(id);
          if (!u) return sendJson(res, 200, { ok: false, error: 'user_not_found' });
          return sendJson(res, 200, {
            ok: true,
            user: {
              id: u.id,
              // Asked with a workspace's bot token, Slack describes that workspace's own members.
              team_id: grantOf(req, body)?.teamId ?? TEAM_ID,
              name: u.name,
              real_name: u.name,
              tz: u.tz,
              tz_offset: 0,
              is_admin: u.is_admin,
              is_owner: u.is_owner,
              is_primary_owner: false,
              is_bot: false,
              profile: { display_name: u.name, real_name: u.name },
            },
          });
        }
        case 'usergroups.users.list':
          return sendJson(res, 200, { ok: true, users: [] });
        case 'conversations.info':
          return sendJson(res, 200, {
            ok: true,
            channel: {
              id: channel,
              name: `chan-${channel.toLowerCase()}`,
              is_channel: true,
              is_member: true,
            },
          });
        default:
          return sendJson(res, 200, { ok: false, error: 'unknown_method' });
      }
    })().catch((err: unknown) => sendText(res, 500, String(err)));
  });
  const url = await listen(server);
  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    responses,
    users,
    channelErrors,
    oauthCodes,
    rateLimitNext: (method, count, retryAfter) => {
      rateLimits.set(method, { count, retryAfter });
    },
    responseUrl: (id) => `${url}/respond/${id}`,
    close: () => close(server),
  };
}

// ---------------------------------------------------------------------------------------------------
// Fake Trunk API v1: the six POST operations of docs/trunk-api-v1.md, x-api-token, plain-text errors.

export interface TrunkRequest {
  path: string;
  token: string | undefined;
  body: Json;
  status: number;
  at: number;
}

export interface FakeTrunk {
  url: string;
  requests: TrunkRequest[];
  queue: Json;
  /** Enqueued PRs returned by getQueue (tests may add more). */
  enqueued: Json[];
  /** Failing tests (filtered by status.timestamp in [start_time, end_time), paged by opaque tokens). */
  failing: Json[];
  quarantined: Json[];
  /** Delay (ms) before every answer. */
  latencyMs: number;
  /** Delay (ms) before answers to one path (overrides latencyMs). */
  latencyFor: Map<string, number>;
  /** The next `count` requests (to `path`, if given) get this plain-text error instead of an answer. */
  failNext(count: number, status: number, text: string, path?: string): void;
  close(): Promise<void>;
}

const MAX_U32 = 4294967295;
const INT_SETTINGS = [
  'concurrency',
  'bisectionConcurrency',
  'testingTimeoutMinutes',
  'pendingFailureDepth',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
];
const BOOL_SETTINGS = [
  'canOptimisticallyMerge',
  'batch',
  'commentsEnabled',
  'commandsEnabled',
  'createPrsForTestingBranches',
  'statusCheckEnabled',
  'deleteRequiredStatuses',
];
const ENUM_SETTINGS: Record<string, string[]> = {
  state: ['running', 'paused', 'draining'],
  mode: ['single', 'parallel'],
  directMergeMode: ['off', 'always'],
  optimizationMode: ['off', 'bisection_skip_redundant_tests'],
  mergeMethod: ['merge_commit', 'squash', 'rebase'],
};

export const RUN_ID = 'tr-7f3a91';

export async function startFakeTrunk(opts: { token: string; orgSlug: string }): Promise<FakeTrunk> {
  const requests: TrunkRequest[] = [];
  const now = Date.now();
  const iso = (msAgo: number): string => new Date(now - msAgo).toISOString();
  const queue: Json = {
    state: 'running',
    branch: 'main',
    concurrency: 2,
    testingTimeoutMinutes: 60,
    mode: 'parallel',
    canOptimisticallyMerge: true,
    pendingFailureDepth: 1,
    batch: false,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 2,
    createPrsForTestingBranches: true,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: 1,
    requiredStatuses: ['ci/build', 'ci/test'],
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
  };
  const enqueued: Json[] = [
    {
      stateChangedAt: iso(20 * 60_000),
      priorityValue: 100,
      priorityName: 'medium',
      skipTheLine: false,
      noBatch: false,
      prNumber: 4101,
      prTitle: 'Add login rate limiter',
      prSha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      prBaseBranch: 'main',
      prAuthor: 'octo-alice',
      id: 'pr-4101',
      usedDefaultPriorityName: 'medium',
    },
    {
      stateChangedAt: iso(5 * 60_000),
      priorityValue: 10,
      priorityName: 'high',
      skipTheLine: false,
      noBatch: false,
      prNumber: 4107,
      prTitle: 'Fix checkout total rounding',
      prSha: 'b1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      prBaseBranch: 'main',
      prAuthor: 'octo-bob',
      id: 'pr-4107',
      usedDefaultPriorityName: 'medium',
    },
  ];
  const submitted: Json = {
    stateChangedAt: iso(90 * 60_000),
    priorityValue: 100,
    priorityName: 'medium',
    skipTheLine: false,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    prNumber: 12,
    prTitle: 'Upgrade payment SDK',
    prSha: 'c1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    prBaseBranch: 'release-2',
    prAuthor: 'octo-carol',
    id: 'pr-12',
    state: 'not_ready',
    readiness: {
      requiresImpactedTargets: false,
      doesBaseBranchMatch: false,
      hasImpactedTargets: false,
      gitHubMergeability: 'mergeable',
    },
    usedDefaultPriorityName: 'medium',
  };
  const run: Json = {
    requiredStatuses: ['ci/build', 'ci/test'],
    testBranch: 'trunk-merge/pr-4101/abc',
    testBranchSha: 'd1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    checkSuites: [{ checkRuns: [{ name: 'ci/build', url: 'https://ci.example.com/build/1' }] }],
    statusChecks: [{ context: 'ci/test', url: 'https://ci.example.com/test/1' }],
    testedPullRequests: [
      { prNumber: 4101, prUrl: 'https://github.com/acme/web/pull/4101', title: 'Add login rate limiter' },
    ],
    requiredStatusesSource: 'merge_instance',
    createdAt: iso(30 * 60_000),
    status: 'failed',
  };
  const failing: Json[] = [
    {
      id: '0d7c3d0a-1b1e-4a59-9c7a-0f3a2b1c9d01',
      repository: { html_url: 'https://github.com/acme/web' },
      html_url: 'https://app.trunk.io/acme/flaky-tests/test/1',
      name: 'CheckoutSpec computes totals',
      variant: '',
      status: { reason: 'flaky', timestamp: iso(2 * 3600_000) },
      most_common_failures: [
        { summary: 'expected 10.00 got 9.99', occurrence_count: 4, last_occurrence: iso(2 * 3600_000) },
      ],
      failure_rate_last_7d: 0.12,
      failure_rate_last_24h: 0.25,
      codeowners: ['@acme/payments'],
      pull_requests_impacted_last_7d: 6,
      quarantined: false,
      file_path: 'spec/checkout_spec.rb',
      parent: 'CheckoutSpec',
      classname: 'CheckoutSpec',
      ticket: { html_url: '' },
    },
    {
      id: '0d7c3d0a-1b1e-4a59-9c7a-0f3a2b1c9d02',
      repository: { html_url: 'https://github.com/acme/web' },
      html_url: 'https://app.trunk.io/acme/flaky-tests/test/2',
      name: 'LoginSpec locks account after retries',
      variant: 'linux',
      status: { reason: 'broken', timestamp: iso(5 * 3600_000) },
      most_common_failures: [],
      failure_rate_last_7d: 0.4,
      failure_rate_last_24h: 0.5,
      codeowners: [],
      pull_requests_impacted_last_7d: 2,
      quarantined: true,
      file_path: 'spec/login_spec.rb',
      parent: 'LoginSpec',
      classname: 'LoginSpec',
      ticket: { html_url: 'https://linear.app/acme/issue/WEB-1' },
    },
    {
      // Outside the last 24 h: must not be listed by `flaky` (filtered by status.timestamp).
      id: '0d7c3d0a-1b1e-4a59-9c7a-0f3a2b1c9d03',
      repository: { html_url: 'https://github.com/acme/web' },
      html_url: 'https://app.trunk.io/acme/flaky-tests/test/3',
      name: 'AncientSpec failed three days ago',
      variant: '',
      status: { reason: 'flaky', timestamp: iso(3 * 24 * 3600_000) },
      most_common_failures: [],
      failure_rate_last_7d: 0.05,
      failure_rate_last_24h: 0,
      codeowners: [],
      pull_requests_impacted_last_7d: 1,
      quarantined: false,
      file_path: 'spec/ancient_spec.rb',
      parent: 'AncientSpec',
      classname: 'AncientSpec',
      ticket: { html_url: '' },
    },
  ];
  const quarantined: Json[] = [
    {
      name: 'SearchSpec paginates results',
      parent: 'SearchSpec',
      file: 'spec/search_spec.rb',
      classname: 'SearchSpec',
      codeowners: ['@acme/search'],
      quarantined_at: iso(4 * 24 * 3600_000),
      status_last_updated_at: iso(3600_000),
      test_case_id: 'tc-0091',
      variant: '',
    },
  ];

  const fake: FakeTrunk = {
    url: '',
    requests,
    queue,
    enqueued,
    failing,
    quarantined,
    latencyMs: 0,
    latencyFor: new Map(),
    failNext: (count, status, text, path) => {
      fault = { count, status, text, path };
    },
    close: async () => {},
  };
  let fault: { count: number; status: number; text: string; path: string | undefined } | undefined;

  const isOurRepo = (repo: unknown): boolean => {
    const r = repo as Json | undefined;
    return !!r && r['host'] === 'github.com' && r['owner'] === 'acme' && r['name'] === 'web';
  };
  const page = (total: number): Json => ({
    total_rows: total,
    total_pages: 1,
    next_page_token: '',
    prev_page_token: '',
    last_page_token: '',
    page_index: 0,
  });

  // Opaque page tokens: the offset, disguised, so a client that computes tokens instead of echoing them fails.
  const tokenFor = (offset: number): string => `pt_${Buffer.from(`o:${offset}:acc`).toString('base64url')}`;
  function paged(
    rows: Json[],
    size: number,
    body: Json,
    key: string,
  ): { status: number; json?: unknown; text?: string } {
    const tok = String((body['page_query'] as Json | undefined)?.['page_token'] ?? '');
    let offset = 0;
    if (tok !== '') {
      const m = /^pt_(.+)$/.exec(tok);
      const decoded = m ? Buffer.from(m[1]!, 'base64url').toString('utf8') : '';
      const o = /^o:(\d+):acc$/.exec(decoded);
      if (!o) return { status: 400, text: 'page_query.page_token is not a valid page token' };
      offset = Number(o[1]);
    }
    const slice = rows.slice(offset, offset + size);
    const next = offset + size < rows.length ? tokenFor(offset + size) : '';
    const pages = Math.max(1, Math.ceil(rows.length / size));
    return {
      status: 200,
      json: {
        [key]: slice,
        page: {
          total_rows: rows.length,
          total_pages: pages,
          next_page_token: next,
          prev_page_token: offset > 0 ? tokenFor(Math.max(0, offset - size)) : '',
          last_page_token: tokenFor((pages - 1) * size),
          page_index: Math.floor(offset / size),
        },
      },
    };
  }

  function handle(path: string, body: Json): { status: number; json?: unknown; text?: string } {
    const repo = body['repo'] as Json | undefined;
    if (!repo || typeof repo['owner'] !== 'string' || typeof repo['name'] !== 'string' || !repo['host']) {
      return { status: 400, text: 'repo: host, owner and name are required' };
    }
    switch (path) {
      case '/v1/getQueue':
        if (!isOurRepo(repo) || body['targetBranch'] !== 'main') return { status: 404, text: 'Not Found' };
        return { status: 200, json: { ...queue, enqueuedPullRequests: enqueued } };
      case '/v1/updateQueue': {
        if (!isOurRepo(repo) || body['targetBranch'] !== 'main') return { status: 404, text: 'Not Found' };
        for (const k of INT_SETTINGS) {
          const v = body[k];
          if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_U32)) {
            return { status: 400, text: `${k} must be an integer from 1 to ${MAX_U32}` };
          }
        }
        for (const k of BOOL_SETTINGS) {
          if (body[k] !== undefined && typeof body[k] !== 'boolean')
            return { status: 400, text: `${k} must be a boolean` };
        }
        for (const [k, allowed] of Object.entries(ENUM_SETTINGS)) {
          if (body[k] !== undefined && !allowed.includes(body[k] as string)) {
            return { status: 400, text: `${k} must be one of ${allowed.join(', ')}` };
          }
        }
        for (const [k, v] of Object.entries(body)) {
          if (k === 'repo' || k === 'targetBranch' || k === 'deleteRequiredStatuses') continue;
          queue[k] = v;
        }
        return { status: 200, json: { ...queue } };
      }
      case '/v1/getSubmittedPullRequest': {
        const pr = body['pr'] as Json | undefined;
        if (!isOurRepo(repo) || body['targetBranch'] !== 'main' || pr?.['number'] !== 12) {
          return { status: 404, text: 'Not Found' };
        }
        return { status: 200, json: submitted };
      }
      case '/v1/getMergeQueueTestingDetails':
        if (!isOurRepo(repo) || body['targetBranch'] !== 'main' || body['testRunId'] !== RUN_ID) {
          return { status: 404, text: 'Not Found' };
        }
        return { status: 200, json: run };
      case '/v1/flaky-tests/list-failing-tests': {
        if (body['org_url_slug'] !== opts.orgSlug) return { status: 404, text: 'Not Found' };
        if (!isOurRepo(repo)) return { status: 200, json: { tests: [], page: page(0) } };
        const start = Date.parse(String(body['start_time']));
        const end = Date.parse(String(body['end_time']));
        if (Number.isNaN(start) || Number.isNaN(end) || end - start > 7 * 24 * 3600_000 || end < start) {
          return { status: 400, text: 'start_time and end_time must be date-times at most 7 days apart' };
        }
        const size = (body['page_query'] as Json | undefined)?.['page_size'];
        if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > 100) {
          return { status: 400, text: 'page_query.page_size must be from 1 to 100' };
        }
        const tests = failing.filter((t) => {
          const at = Date.parse(String((t['status'] as Json)['timestamp']));
          return at >= start && at < end;
        });
        return paged(tests, size as number, body, 'tests');
      }
      case '/v1/flaky-tests/list-quarantined-tests': {
        if (body['org_url_slug'] !== opts.orgSlug) return { status: 404, text: 'Not Found' };
        if (!isOurRepo(repo)) return { status: 200, json: { quarantined_tests: [], page: page(0) } };
        const size = (body['page_query'] as Json | undefined)?.['page_size'];
        if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > 100) {
          return { status: 400, text: 'page_query.page_size must be from 1 to 100' };
        }
        return paged(quarantined, size as number, body, 'quarantined_tests');
      }
      default:
        return { status: 404, text: 'Not Found' };
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const tokenHeader = req.headers['x-api-token'];
      const token = Array.isArray(tokenHeader) ? tokenHeader[0] : tokenHeader;
      let body: Json = {};
      let result: { status: number; json?: unknown; text?: string };
      const delay = fake.latencyFor.get(path) ?? fake.latencyMs;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (req.method !== 'POST') result = { status: 404, text: 'Not Found' };
      else if (token !== opts.token) result = { status: 401, text: 'Unauthorized' };
      else if (fault && fault.count > 0 && (!fault.path || fault.path === path)) {
        fault.count -= 1;
        result = { status: fault.status, text: fault.text };
      } else {
        try {
          body = JSON.parse(raw) as Json;
          result = handle(path, body);
        } catch {
          result = { status: 400, text: 'request body must be JSON' };
        }
      }
      requests.push({ path, token, body, status: result.status, at: Date.now() });
      if (result.json !== undefined) sendJson(res, result.status, result.json);
      else sendText(res, result.status, result.text ?? '');
    })().catch((err: unknown) => sendText(res, 500, String(err)));
  });
  fake.url = await listen(server);
  fake.close = () => close(server);
  return fake;
}
