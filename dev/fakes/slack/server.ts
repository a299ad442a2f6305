/**
 * A fake Slack Web API: a real HTTP server on 127.0.0.1 that answers the methods this app calls, the way
 * @slack/web-api expects (POST /api/<method>, form or JSON body, `Authorization: Bearer`, `{ok: …}` bodies,
 * 429 with Retry-After), plus response_url endpoints. It records every call so tests can assert on the wire.
 * Used by the end-to-end tests, the benchmarks and the sandbox.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSocketModeServer, type SocketModeFake } from './socket-mode.ts';

export interface FakeUser {
  id: string;
  name?: string;
  realName?: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  isBot?: boolean;
  deleted?: boolean;
  tz?: string;
  teamId?: string;
  /** Multi-channel guest (`is_restricted`). */
  isRestricted?: boolean;
  /** Single-channel guest (`is_ultra_restricted`). */
  isUltraRestricted?: boolean;
  /** A person of another organization seen through a Slack Connect channel (`is_stranger`). */
  isStranger?: boolean;
  /** Enterprise Grid: `enterprise_user.enterprise_id` and the org's workspaces they are in. */
  enterpriseId?: string;
  teams?: string[];
}

export interface FakeChannel {
  id: string;
  name?: string;
  isPrivate?: boolean;
  /** Whether the bot is a member; false makes chat.postMessage answer not_in_channel. Default true. */
  isMember?: boolean;
  /** conversations.members; unset: every user the fake knows. */
  members?: string[];
}

/** Who a bot token belongs to (auth.test's answer). */
export interface FakeTokenIdentity {
  teamId: string;
  teamName?: string;
  enterpriseId?: string;
  /** An org-wide (Enterprise Grid) token: teamId is then the enterprise id. */
  isEnterpriseInstall?: boolean;
  userId: string;
  botId: string;
}

/** What oauth.v2.access hands out for a code. */
export interface FakeInstallation {
  teamId: string;
  teamName?: string;
  enterpriseId?: string;
  appId?: string;
  botUserId?: string;
  botId?: string;
  installerUserId?: string;
  scope?: string;
  /** With token rotation the bot token expires and comes with a refresh token. */
  tokenRotation?: boolean;
  expiresInSeconds?: number;
  /**
   * Org-wide install on the enterprise `enterpriseId`: oauth.v2.access answers as Slack documents it for
   * organization-wide apps (`team: null`, `is_enterprise_install: true`); teamId is then unused.
   */
  orgWide?: boolean;
  /** The installer also grants a user token (authed_user.access_token, `xoxp-…`). */
  userToken?: boolean;
}

export interface SlackFakeOptions {
  port?: number;
  /** Bot tokens with their identity. Tokens not listed are accepted when they start with xoxb- (default team). */
  tokens?: Record<string, FakeTokenIdentity>;
  /** When false only listed (or installed) tokens are accepted. Default true. */
  acceptAnyBotToken?: boolean;
  defaultTeamId?: string;
  users?: FakeUser[];
  usergroups?: Record<string, string[]>;
  channels?: FakeChannel[];
  /** OAuth app credentials checked by oauth.v2.access; unset accepts any. */
  clientId?: string;
  clientSecret?: string;
  installation?: FakeInstallation;
  now?: () => number;
}

export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
  /** The bearer token (or body token), as sent. */
  token: string | undefined;
  /** What the fake answered: HTTP status and body. */
  status: number;
  response: Record<string, unknown>;
  at: number;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text?: string;
  blocks?: unknown[];
  /** The user or bot that posted it. */
  user?: string;
  /** 'api' for chat.postMessage, 'response_url' for in_channel responses. */
  via: 'api' | 'response_url';
  /** Every earlier version (chat.update / replace_original). */
  history: Array<{ text?: string; blocks?: unknown[]; at: number }>;
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  text?: string;
  blocks?: unknown[];
  via: 'api' | 'response_url';
  at: number;
}

export interface ResponseUrlContext {
  channel: string;
  user: string;
  /** The message a button was on: replace_original / delete_original act on it. */
  messageTs?: string;
}

export interface ResponsePost {
  id: string;
  body: Record<string, unknown>;
  context: ResponseUrlContext;
  status: number;
  at: number;
}

export type SlackFault =
  | { status: 429; retryAfter?: number }
  | { status: number; body?: string }
  | { error: string; extra?: Record<string, unknown> }
  | { delayMs: number };

export interface FakeView {
  id: string;
  triggerId?: string;
  view: Record<string, unknown>;
  user?: string;
  at: number;
}

export interface SlackFake {
  /** Web API base ending with /api/ (pass as SLACK_API_URL). */
  readonly url: string;
  /** Server origin, e.g. http://127.0.0.1:1234 */
  readonly origin: string;
  readonly port: number;
  readonly calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  readonly messages: FakeMessage[];
  channelMessages(channel: string): FakeMessage[];
  message(channel: string, ts: string): FakeMessage | undefined;
  readonly ephemerals: FakeEphemeral[];
  readonly responsePosts: ResponsePost[];
  readonly views: FakeView[];
  /** Makes a response_url tied to a channel and user (and the clicked message). */
  responseUrl(context: ResponseUrlContext): string;
  postsTo(responseUrl: string): ResponsePost[];
  addUser(user: FakeUser): void;
  setUsergroup(id: string, members: string[]): void;
  setChannel(channel: FakeChannel): void;
  addToken(token: string, identity: FakeTokenIdentity): void;
  revokeToken(token: string): void;
  setInstallation(installation: FakeInstallation): void;
  /** Tokens handed out by oauth.v2.access, newest last. */
  readonly issuedTokens: Array<{ token: string; refreshToken?: string; teamId: string }>;
  /** The next `times` calls to `method` (a Web API method or 'response_url') fail this way. */
  failNext(method: string, fault: SlackFault, times?: number): void;
  /** Delay every call to `method` (or '*') by ms. */
  setLatency(ms: number, method?: string): void;
  /** Socket Mode: connections opened with the ws:// URL from apps.connections.open (xapp- token). */
  readonly socketMode: SocketModeFake;
  /** Resolves with the predicate's first truthy result, re-evaluated after every recorded request. */
  waitFor<T>(predicate: () => T | undefined | false | null, timeoutMs?: number): Promise<T>;
  clear(): void;
  close(): Promise<void>;
}

const MAX_BODY = 1_000_000;

export async function startSlackFake(opts: SlackFakeOptions = {}): Promise<SlackFake> {
  const now = opts.now ?? Date.now;
  const defaultTeamId = opts.defaultTeamId ?? 'T0DEFAULT';
  const acceptAny = opts.acceptAnyBotToken ?? true;
  const tokens = new Map<string, FakeTokenIdentity>(Object.entries(opts.tokens ?? {}));
  const revoked = new Set<string>();
  const users = new Map<string, FakeUser>((opts.users ?? []).map((u) => [u.id, u]));
  const usergroups = new Map<string, string[]>(Object.entries(opts.usergroups ?? {}));
  const channels = new Map<string, FakeChannel>((opts.channels ?? []).map((c) => [c.id, c]));
  let installation: FakeInstallation = opts.installation ?? { teamId: 'T0INSTALL', teamName: 'Installed' };
  const refreshTokens = new Map<string, string>(); // refresh token → team id

  const calls: RecordedCall[] = [];
  const messages: FakeMessage[] = [];
  const ephemerals: FakeEphemeral[] = [];
  const responsePosts: ResponsePost[] = [];
  const views: FakeView[] = [];
  const responseUrls = new Map<string, ResponseUrlContext>();
  const issuedTokens: SlackFake['issuedTokens'] = [];
  const faults = new Map<string, SlackFault[]>();
  const latency = new Map<string, number>();
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let seq = 0;
  let lastTsMicros = 0;

  const nextTs = (): string => {
    // Unique and increasing, like Slack's "seconds.micros" message ids.
    const micros = Math.max(now() * 1000, lastTsMicros + 1);
    lastTsMicros = micros;
    const s = Math.floor(micros / 1_000_000);
    return `${s}.${String(micros % 1_000_000).padStart(6, '0')}`;
  };
  const nextId = (prefix: string) => `${prefix}${(++seq).toString(36).toUpperCase().padStart(8, '0')}`;

  const identityOf = (token: string | undefined): FakeTokenIdentity | string => {
    if (!token) return 'not_authed';
    if (revoked.has(token)) return 'token_revoked';
    const known = tokens.get(token);
    if (known) return known;
    if (acceptAny && /^xox[bp]-/.test(token))
      return { teamId: defaultTeamId, userId: 'U0BOT', botId: 'B0BOT', teamName: 'Default' };
    return 'invalid_auth';
  };

  const takeFault = (method: string): SlackFault | undefined => {
    const list = faults.get(method);
    if (!list || list.length === 0) return undefined;
    return list.shift();
  };

  type Answer = { status?: number; body: Record<string, unknown>; headers?: Record<string, string> };
  const err = (error: string, extra: Record<string, unknown> = {}): Answer => ({
    body: { ok: false, error, ...extra },
  });

  const str = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  const jsonField = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  };

  const userJson = (u: FakeUser) => ({
    id: u.id,
    team_id: u.teamId ?? defaultTeamId,
    name: u.name ?? u.id.toLowerCase(),
    real_name: u.realName ?? u.name ?? u.id,
    deleted: u.deleted ?? false,
    is_admin: u.isAdmin ?? false,
    is_owner: u.isOwner ?? false,
    is_primary_owner: false,
    is_bot: u.isBot ?? false,
    is_restricted: u.isRestricted ?? false,
    is_ultra_restricted: u.isUltraRestricted ?? false,
    ...(u.isStranger ? { is_stranger: true } : {}),
    ...(u.enterpriseId
      ? { enterprise_user: { enterprise_id: u.enterpriseId, teams: u.teams ?? [u.teamId ?? defaultTeamId] } }
      : {}),
    tz: u.tz ?? 'UTC',
    tz_label: u.tz ?? 'UTC',
    tz_offset: 0,
    profile: { real_name: u.realName ?? u.name ?? u.id, display_name: u.name ?? '' },
  });

  const channelFor = (id: string): FakeChannel => {
    let c = channels.get(id);
    if (!c) {
      c = { id, name: id.toLowerCase(), isMember: true };
      channels.set(id, c);
    }
    return c;
  };

  const issueInstallTokens = (teamId: string) => {
    const n = (++seq).toString(36);
    const token = installation.tokenRotation ? `xoxe.xoxb-1-${teamId}-${n}` : `xoxb-${teamId}-${n}`;
    const refreshToken = installation.tokenRotation ? `xoxe-1-${teamId}-${n}` : undefined;
    tokens.set(token, {
      teamId,
      teamName: installation.teamName ?? teamId,
      ...(installation.enterpriseId ? { enterpriseId: installation.enterpriseId } : {}),
      ...(installation.orgWide ? { isEnterpriseInstall: true } : {}),
      userId: installation.botUserId ?? 'U0BOTINST',
      botId: installation.botId ?? 'B0BOTINST',
    });
    if (refreshToken) refreshTokens.set(refreshToken, teamId);
    issuedTokens.push(refreshToken ? { token, refreshToken, teamId } : { token, teamId });
    return { token, refreshToken };
  };

  const methods: Record<string, (args: Record<string, unknown>, token: string | undefined) => Answer> = {
    'api.test': (args) => ({ body: { ok: true, args } }),
    'auth.test': (_args, token) => {
      const id = identityOf(token);
      if (typeof id === 'string') return err(id);
      return {
        body: {
          ok: true,
          url: `https://${(id.teamName ?? id.teamId).toLowerCase()}.slack.com/`,
          team: id.teamName ?? id.teamId,
          user: 'mergequeue',
          team_id: id.teamId,
          user_id: id.userId,
          bot_id: id.botId,
          enterprise_id: id.enterpriseId,
          is_enterprise_install: id.isEnterpriseInstall === true,
        },
      };
    },
    'apps.connections.open': () => ({
      body: { ok: true, url: `ws://127.0.0.1:${portRef.port}/socket-mode?ticket=${nextId('W')}` },
    }),
    'auth.revoke': (_args, token) => {
      if (token) revoked.add(token);
      return { body: { ok: true, revoked: true } };
    },
    'chat.postMessage': (args, token) => {
      const channel = str(args['channel']);
      if (!channel) return err('channel_not_found');
      if (!args['text'] && !args['blocks'] && !args['attachments']) return err('no_text');
      const c = channelFor(channel);
      if (c.isMember === false) return err('not_in_channel');
      const id = identityOf(token);
      const ts = nextTs();
      const m: FakeMessage = { channel, ts, via: 'api', history: [] };
      const text = str(args['text']);
      if (text !== undefined) m.text = text;
      const blocks = jsonField(args['blocks']);
      if (Array.isArray(blocks)) m.blocks = blocks;
      const threadTs = str(args['thread_ts']);
      if (threadTs) m.threadTs = threadTs;
      if (typeof id !== 'string') m.user = id.userId;
      messages.push(m);
      return {
        body: {
          ok: true,
          channel,
          ts,
          message: {
            type: 'message',
            text: m.text,
            blocks: m.blocks,
            ts,
            thread_ts: m.threadTs,
            user: m.user,
          },
        },
      };
    },
    'chat.update': (args) => {
      const channel = str(args['channel']);
      const ts = str(args['ts']);
      const m = messages.find((x) => x.channel === channel && x.ts === ts);
      if (!m) return err('message_not_found');
      update(m, args);
      return { body: { ok: true, channel, ts, text: m.text, message: { text: m.text, blocks: m.blocks } } };
    },
    'chat.postEphemeral': (args) => {
      const channel = str(args['channel']);
      const user = str(args['user']);
      if (!channel) return err('channel_not_found');
      if (!user) return err('user_not_found');
      if (channelFor(channel).isMember === false) return err('not_in_channel');
      const e: FakeEphemeral = { channel, user, via: 'api', at: now() };
      const text = str(args['text']);
      if (text !== undefined) e.text = text;
      const blocks = jsonField(args['blocks']);
      if (Array.isArray(blocks)) e.blocks = blocks;
      ephemerals.push(e);
      return { body: { ok: true, message_ts: nextTs() } };
    },
    'views.open': (args) => {
      const triggerId = str(args['trigger_id']);
      if (!triggerId) return err('invalid_arguments');
      if (triggerId.startsWith('expired')) return err('expired_trigger_id');
      const view = jsonField(args['view']);
      if (!view || typeof view !== 'object') return err('invalid_arguments');
      const v: FakeView = { id: nextId('V'), triggerId, view: view as Record<string, unknown>, at: now() };
      views.push(v);
      return { body: { ok: true, view: { ...v.view, id: v.id, hash: `h${seq}` } } };
    },
    'views.update': (args) => {
      const viewId = str(args['view_id']);
      const view = jsonField(args['view']);
      const existing = views.find((v) => v.id === viewId);
      if (!existing) return err('not_found');
      if (!view || typeof view !== 'object') return err('invalid_arguments');
      existing.view = view as Record<string, unknown>;
      return { body: { ok: true, view: { ...existing.view, id: existing.id } } };
    },
    'views.push': (args) => methods['views.open']!(args, undefined),
    'users.info': (args) => {
      const id = str(args['user']);
      const u = id ? users.get(id) : undefined;
      if (!u) return err('user_not_found');
      return { body: { ok: true, user: userJson(u) } };
    },
    'usergroups.users.list': (args) => {
      const id = str(args['usergroup']);
      const members = id ? usergroups.get(id) : undefined;
      if (!members) return err('no_such_subteam');
      return { body: { ok: true, users: [...members] } };
    },
    'conversations.info': (args) => {
      const id = str(args['channel']);
      if (!id || !channels.has(id)) return err('channel_not_found');
      const c = channels.get(id)!;
      return {
        body: {
          ok: true,
          channel: {
            id: c.id,
            name: c.name ?? c.id.toLowerCase(),
            is_channel: true,
            is_private: c.isPrivate ?? false,
            is_member: c.isMember ?? true,
          },
        },
      };
    },
    'conversations.members': (args) => {
      const id = str(args['channel']);
      const c = id ? channels.get(id) : undefined;
      if (!c) return err('channel_not_found');
      const all = c.members ?? [...users.keys()];
      // Paged like Slack: `limit` per page, an opaque cursor (here the offset), '' on the last page.
      const limit = Math.max(1, Math.min(1000, Number(str(args['limit']) ?? 100) || 100));
      const offset = Number(Buffer.from(str(args['cursor']) ?? '', 'base64').toString() || 0);
      const page = all.slice(offset, offset + limit);
      const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString('base64') : '';
      return { body: { ok: true, members: page, response_metadata: { next_cursor: next } } };
    },
    'oauth.v2.access': (args) => {
      if (opts.clientId && str(args['client_id']) !== opts.clientId) return err('invalid_client_id');
      if (opts.clientSecret && str(args['client_secret']) !== opts.clientSecret)
        return err('bad_client_secret');
      const grant = str(args['grant_type']);
      if (grant === 'refresh_token') {
        const rt = str(args['refresh_token']);
        const teamId = rt ? refreshTokens.get(rt) : undefined;
        if (!rt || !teamId) return err('invalid_refresh_token');
        refreshTokens.delete(rt);
        const t = issueInstallTokens(teamId);
        return {
          body: {
            ok: true,
            token_type: 'bot',
            access_token: t.token,
            refresh_token: t.refreshToken,
            expires_in: installation.expiresInSeconds ?? 43_200,
            team: { id: teamId },
          },
        };
      }
      const code = str(args['code']);
      if (!code) return err('invalid_code');
      const inst = installation;
      const orgWide = inst.orgWide === true && inst.enterpriseId !== undefined;
      const t = issueInstallTokens(orgWide ? inst.enterpriseId! : inst.teamId);
      const installer = inst.installerUserId ?? 'U0INSTALLER';
      const authedUser: Record<string, unknown> = { id: installer };
      if (inst.userToken) {
        const userToken = `xoxp-${inst.teamId}-${(++seq).toString(36)}`;
        tokens.set(userToken, {
          teamId: orgWide ? inst.enterpriseId! : inst.teamId,
          userId: installer,
          botId: '',
        });
        Object.assign(authedUser, { scope: 'identify', access_token: userToken, token_type: 'user' });
      }
      const body: Record<string, unknown> = {
        ok: true,
        app_id: inst.appId ?? 'A0FAKEAPP',
        authed_user: authedUser,
        scope:
          inst.scope ??
          'commands,chat:write,chat:write.public,users:read,usergroups:read,channels:read,groups:read',
        token_type: 'bot',
        access_token: t.token,
        bot_user_id: inst.botUserId ?? 'U0BOTINST',
        // Slack's documented org-wide answer has no team: the app is not yet in any workspace.
        team: orgWide ? null : { id: inst.teamId, name: inst.teamName ?? inst.teamId },
        enterprise: inst.enterpriseId
          ? { id: inst.enterpriseId, name: inst.teamName ?? inst.enterpriseId }
          : null,
        is_enterprise_install: orgWide,
      };
      if (t.refreshToken) {
        body['refresh_token'] = t.refreshToken;
        body['expires_in'] = inst.expiresInSeconds ?? 43_200;
      }
      return { body };
    },
  };

  /** Methods that need no bot token (OAuth exchanges use client credentials; Socket Mode an app token). */
  const noAuth = new Set(['api.test', 'oauth.v2.access', 'apps.connections.open']);
  const appTokenOnly = new Set(['apps.connections.open']);
  const portRef = { port: 0 };
  const socketMode = createSocketModeServer(() => events.emit('change'));

  function update(m: FakeMessage, args: Record<string, unknown>) {
    m.history.push({
      ...(m.text !== undefined ? { text: m.text } : {}),
      ...(m.blocks ? { blocks: m.blocks } : {}),
      at: now(),
    });
    const text = str(args['text']);
    if (text !== undefined) m.text = text;
    const blocks = jsonField(args['blocks']);
    if (Array.isArray(blocks)) m.blocks = blocks;
  }

  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          reject(new Error('body too large'));
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  const parseArgs = (req: IncomingMessage, raw: string): Record<string, unknown> => {
    const type = String(req.headers['content-type'] ?? '');
    if (type.includes('application/json')) {
      try {
        const parsed: unknown = raw ? JSON.parse(raw) : {};
        return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
      } catch {
        return {};
      }
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of new URLSearchParams(raw)) out[k] = v;
    return out;
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8',
      ...headers,
    });
    res.end(text);
  };

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** Applies a queued fault; returns true when it answered the request. */
  const applyFault = async (
    res: ServerResponse,
    fault: SlackFault | undefined,
  ): Promise<{ answered: boolean; status?: number; body?: Record<string, unknown> }> => {
    if (!fault) return { answered: false };
    if ('delayMs' in fault) {
      await sleep(fault.delayMs);
      return { answered: false };
    }
    if ('error' in fault) {
      const body = { ok: false, error: fault.error, ...(fault.extra ?? {}) };
      send(res, 200, body);
      return { answered: true, status: 200, body };
    }
    if (fault.status === 429) {
      const retryAfter = 'retryAfter' in fault && fault.retryAfter !== undefined ? fault.retryAfter : 1;
      const body = { ok: false, error: 'ratelimited' };
      send(res, 429, body, { 'retry-after': String(retryAfter) });
      return { answered: true, status: 429, body };
    }
    const text = 'body' in fault && fault.body !== undefined ? fault.body : 'fault injected';
    send(res, fault.status, text);
    return { answered: true, status: fault.status, body: { ok: false, error: text } };
  };

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = req.method === 'POST' ? await readBody(req) : '';

      const responseMatch = /^\/response\/([\w-]+)$/.exec(url.pathname);
      if (responseMatch && req.method === 'POST') {
        await handleResponseUrl(responseMatch[1]!, req, raw, res);
        return;
      }

      const apiMatch = /^\/api\/([\w.]+)$/.exec(url.pathname);
      if (!apiMatch || (req.method !== 'POST' && req.method !== 'GET')) {
        send(res, 404, 'not found');
        return;
      }
      const method = apiMatch[1]!;
      const args = parseArgs(req, raw);
      for (const [k, v] of url.searchParams) if (!(k in args)) args[k] = v;
      const auth = String(req.headers.authorization ?? '');
      let token = auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
      if (!token && typeof args['token'] === 'string') token = args['token'];
      // Basic auth carries client credentials for oauth.v2.access.
      if (auth.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
        if (id && args['client_id'] === undefined) args['client_id'] = id;
        if (secret && args['client_secret'] === undefined) args['client_secret'] = secret;
      }
      const delay = latency.get(method) ?? latency.get('*');
      if (delay) await sleep(delay);

      const record = (status: number, response: Record<string, unknown>) => {
        // Secrets in args (client_secret) are kept: this is a test double on loopback.
        calls.push({ method, args, token, status, response, at: now() });
        events.emit('change');
      };

      const fault = await applyFault(res, takeFault(method));
      if (fault.answered) {
        record(fault.status ?? 200, fault.body ?? {});
        return;
      }
      const handler = methods[method];
      let answer: Answer;
      if (!handler) answer = err('unknown_method');
      else if (appTokenOnly.has(method) && !token?.startsWith('xapp-'))
        answer = err(token ? 'invalid_auth' : 'not_authed');
      else if (!noAuth.has(method) && typeof identityOf(token) === 'string')
        answer = err(identityOf(token) as string);
      else answer = handler(args, token);
      send(res, answer.status ?? 200, answer.body, answer.headers);
      record(answer.status ?? 200, answer.body);
    } catch (e) {
      if (!res.headersSent) send(res, 500, String(e));
    }
  });

  async function handleResponseUrl(id: string, req: IncomingMessage, raw: string, res: ServerResponse) {
    const context = responseUrls.get(id);
    const body = parseArgs(req, raw);
    const post = (status: number) => {
      responsePosts.push({ id, body, context: context ?? { channel: '', user: '' }, status, at: now() });
      events.emit('change');
    };
    const fault = await applyFault(res, takeFault('response_url'));
    if (fault.answered) {
      post(fault.status ?? 200);
      return;
    }
    if (!context) {
      send(res, 404, 'no_such_response_url');
      post(404);
      return;
    }
    const text = str(body['text']);
    const blocks = Array.isArray(body['blocks']) ? (body['blocks'] as unknown[]) : undefined;
    const original = context.messageTs
      ? messages.find((m) => m.channel === context.channel && m.ts === context.messageTs)
      : undefined;
    if (body['delete_original'] === true || body['delete_original'] === 'true') {
      if (original) messages.splice(messages.indexOf(original), 1);
    } else if ((body['replace_original'] === true || body['replace_original'] === 'true') && original) {
      update(original, body);
    } else if (body['response_type'] === 'in_channel') {
      const m: FakeMessage = { channel: context.channel, ts: nextTs(), via: 'response_url', history: [] };
      if (text !== undefined) m.text = text;
      if (blocks) m.blocks = blocks;
      const threadTs = str(body['thread_ts']);
      if (threadTs) m.threadTs = threadTs;
      messages.push(m);
    } else {
      const e: FakeEphemeral = {
        channel: context.channel,
        user: context.user,
        via: 'response_url',
        at: now(),
      };
      if (text !== undefined) e.text = text;
      if (blocks) e.blocks = blocks;
      ephemerals.push(e);
    }
    send(res, 200, { ok: true });
    post(200);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket) => {
    if ((req.url ?? '').startsWith('/socket-mode')) socketMode.handleUpgrade(req, socket);
    else socket.destroy();
  });
  const port = (server.address() as AddressInfo).port;
  portRef.port = port;
  const origin = `http://127.0.0.1:${port}`;

  const fake: SlackFake = {
    url: `${origin}/api/`,
    origin,
    port,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    messages,
    channelMessages: (channel) => messages.filter((m) => m.channel === channel),
    message: (channel, ts) => messages.find((m) => m.channel === channel && m.ts === ts),
    ephemerals,
    responsePosts,
    views,
    responseUrl(context) {
      const id = nextId('R');
      responseUrls.set(id, { ...context });
      return `${origin}/response/${id}`;
    },
    postsTo(responseUrl) {
      const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
      return responsePosts.filter((p) => p.id === id);
    },
    addUser: (u) => void users.set(u.id, u),
    setUsergroup: (id, members) => void usergroups.set(id, [...members]),
    setChannel: (c) => void channels.set(c.id, { ...c }),
    addToken: (t, identity) => void tokens.set(t, identity),
    revokeToken: (t) => void revoked.add(t),
    setInstallation(inst) {
      installation = inst;
    },
    issuedTokens,
    socketMode,
    failNext(method, fault, times = 1) {
      const list = faults.get(method) ?? [];
      for (let i = 0; i < times; i++) list.push(fault);
      faults.set(method, list);
    },
    setLatency(ms, method = '*') {
      latency.set(method, ms);
    },
    waitFor<T>(predicate: () => T | undefined | false | null, timeoutMs = 5_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          const v = predicate();
          if (v) {
            cleanup();
            resolve(v);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `slack fake: condition not met within ${timeoutMs} ms; calls so far: ${calls.map((c) => c.method).join(', ') || 'none'}; response posts: ${responsePosts.length}`,
            ),
          );
        }, timeoutMs);
        const onChange = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          events.off('change', onChange);
        };
        events.on('change', onChange);
        check();
      });
    },
    clear() {
      calls.length = 0;
      messages.length = 0;
      ephemerals.length = 0;
      responsePosts.length = 0;
      views.length = 0;
      faults.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        socketMode.closeAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
