/**
 * The fake Slack's state: the workspace it pretends to be (tokens, people, channels, the installation
 * it hands out) and what it has recorded, plus the small helpers every group of Web API methods uses.
 */
import { EventEmitter } from 'node:events';
import type {
  FakeCanvas,
  FakeChannel,
  FakeEphemeral,
  FakeInstallation,
  FakeMessage,
  FakeTokenIdentity,
  FakeUnfurl,
  FakeUser,
  FakeView,
  RecordedCall,
  ResponsePost,
  ResponseUrlContext,
  SlackFake,
  SlackFakeOptions,
  SlackFault,
} from './types.ts';

/** A Web API answer: `{ ok: … }` body, status 200 unless said otherwise. */
export type Answer = { status?: number; body: Record<string, unknown>; headers?: Record<string, string> };
export type Method = (args: Record<string, unknown>, token: string | undefined) => Answer;

export interface SlackState {
  readonly now: () => number;
  readonly defaultTeamId: string;
  readonly acceptAnyBotToken: boolean;
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  readonly tokens: Map<string, FakeTokenIdentity>;
  readonly revoked: Set<string>;
  readonly users: Map<string, FakeUser>;
  readonly usergroups: Map<string, string[]>;
  readonly channels: Map<string, FakeChannel>;
  installation: FakeInstallation;
  /** refresh token → team id */
  readonly refreshTokens: Map<string, string>;
  readonly calls: RecordedCall[];
  readonly messages: FakeMessage[];
  readonly ephemerals: FakeEphemeral[];
  readonly responsePosts: ResponsePost[];
  readonly views: FakeView[];
  readonly unfurls: FakeUnfurl[];
  readonly canvases: FakeCanvas[];
  readonly responseUrls: Map<string, ResponseUrlContext>;
  readonly issuedTokens: SlackFake['issuedTokens'];
  readonly faults: Map<string, SlackFault[]>;
  /** Block types answered `invalid_blocks`, with how many more times (Infinity: until cleared). */
  readonly refusedBlocks: Map<string, number>;
  readonly latency: Map<string, number>;
  /** 'change' after every recorded request (waitFor listens). */
  readonly events: EventEmitter;
  /** The port it listens on, once listening (Socket Mode URLs name it). */
  port: number;
  seq: number;
  lastTsMicros: number;
}

export function createState(opts: SlackFakeOptions): SlackState {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    now: opts.now ?? Date.now,
    defaultTeamId: opts.defaultTeamId ?? 'T0DEFAULT',
    acceptAnyBotToken: opts.acceptAnyBotToken ?? true,
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    tokens: new Map(Object.entries(opts.tokens ?? {})),
    revoked: new Set(),
    users: new Map((opts.users ?? []).map((u) => [u.id, u])),
    usergroups: new Map(Object.entries(opts.usergroups ?? {})),
    channels: new Map((opts.channels ?? []).map((c) => [c.id, c])),
    installation: opts.installation ?? { teamId: 'T0INSTALL', teamName: 'Installed' },
    refreshTokens: new Map(),
    calls: [],
    messages: [],
    ephemerals: [],
    responsePosts: [],
    views: [],
    unfurls: [],
    canvases: [],
    responseUrls: new Map(),
    issuedTokens: [],
    faults: new Map(),
    refusedBlocks: new Map(),
    latency: new Map(),
    events,
    port: 0,
    seq: 0,
    lastTsMicros: 0,
  };
}

export function nextTs(s: SlackState): string {
  // Unique and increasing, like Slack's "seconds.micros" message ids.
  const micros = Math.max(s.now() * 1000, s.lastTsMicros + 1);
  s.lastTsMicros = micros;
  const sec = Math.floor(micros / 1_000_000);
  return `${sec}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

export function nextId(s: SlackState, prefix: string): string {
  return `${prefix}${(++s.seq).toString(36).toUpperCase().padStart(8, '0')}`;
}

/** Who a token belongs to, or the error Slack would answer with. */
export function identityOf(s: SlackState, token: string | undefined): FakeTokenIdentity | string {
  if (!token) return 'not_authed';
  if (s.revoked.has(token)) return 'token_revoked';
  const known = s.tokens.get(token);
  if (known) return known;
  if (s.acceptAnyBotToken && /^xox[bp]-/.test(token))
    return { teamId: s.defaultTeamId, userId: 'U0BOT', botId: 'B0BOT', teamName: 'Default' };
  return 'invalid_auth';
}

export function takeFault(s: SlackState, method: string): SlackFault | undefined {
  const list = s.faults.get(method);
  if (!list || list.length === 0) return undefined;
  return list.shift();
}

/** A channel the fake has heard of; one it has not is made up on first use (the bot is in it). */
export function channelFor(s: SlackState, id: string): FakeChannel {
  let c = s.channels.get(id);
  if (!c) {
    c = { id, name: id.toLowerCase(), isMember: true };
    s.channels.set(id, c);
  }
  return c;
}

/** Edits a message in place (chat.update, replace_original), keeping what it said before. */
export function editMessage(s: SlackState, m: FakeMessage, args: Record<string, unknown>): void {
  m.history.push({
    ...(m.text !== undefined ? { text: m.text } : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    at: s.now(),
  });
  const text = str(args['text']);
  if (text !== undefined) m.text = text;
  const blocks = jsonField(args['blocks']);
  if (Array.isArray(blocks)) m.blocks = blocks;
}

export const err = (error: string, extra: Record<string, unknown> = {}): Answer => ({
  body: { ok: false, error, ...extra },
});

export const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** Form-encoded bodies carry blocks and views as JSON strings. */
export const jsonField = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};

/**
 * Whether `blocks` hold a block type the fake was told to refuse (Slack answering `invalid_blocks`, as it
 * does for a chart it will not draw); takes one refusal when so.
 */
export function refusesBlocks(s: SlackState, blocks: unknown): boolean {
  if (!Array.isArray(blocks)) return false;
  for (const b of blocks) {
    const type = (b as { type?: unknown } | null)?.type;
    if (typeof type !== 'string') continue;
    const left = s.refusedBlocks.get(type);
    if (left === undefined || left <= 0) continue;
    if (left !== Number.POSITIVE_INFINITY) s.refusedBlocks.set(type, left - 1);
    return true;
  }
  return false;
}
