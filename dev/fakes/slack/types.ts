/** What the fake Slack records and what a test configures it with: plain data, shared by its modules. */
import type { SocketModeFake } from './socket-mode.ts';

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
  /** Enterprise Grid: an admin or owner of the whole organization (`enterprise_user.is_admin`/`is_owner`). */
  enterpriseAdmin?: boolean;
  enterpriseOwner?: boolean;
}

export interface FakeChannel {
  id: string;
  name?: string;
  isPrivate?: boolean;
  /** Whether the bot is a member; false makes chat.postMessage answer not_in_channel. Default true. */
  isMember?: boolean;
  /** conversations.members; unset: every user the fake knows. */
  members?: string[];
  /** A Slack Connect channel (conversations.info `is_shared`, `is_ext_shared`). */
  isShared?: boolean;
  /** Shared between workspaces of one Enterprise Grid organization (`is_shared`, `is_org_shared`; not ext). */
  isOrgShared?: boolean;
  /** Deleted, or never there: conversations.* answer channel_not_found (unknown channels are made up). */
  gone?: boolean;
  /** The channel already has its channel canvas (made by a person): conversations.canvases.create refuses. */
  hasCanvas?: boolean;
}

/** A canvas made through canvases.create or conversations.canvases.create. */
export interface FakeCanvas {
  id: string;
  /** The channel it was created in (tabbed in), if any. */
  channelId?: string;
  /** The channel's own canvas (conversations.canvases.create), not a standalone one. */
  channelCanvas: boolean;
  title?: string;
  markdown: string;
  /** What it said before each canvases.edit, oldest first, with when it was edited. */
  edits: Array<{ markdown: string; at: number }>;
  /** canvases.access.set grants, in order. */
  access: Array<{ channelId?: string; userId?: string; level: string }>;
  createdAt: number;
  deleted?: boolean;
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
  /** Shown through this response_url: a later post to it with replace_original edits it. */
  responseUrlId?: string;
  /** How many times it was replaced in place. */
  edits?: number;
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

/** One accepted chat.unfurl: where (a posted message, or a composer preview) and the unfurls by URL. */
export interface FakeUnfurl {
  channel?: string;
  ts?: string;
  unfurlId?: string;
  source?: string;
  /** URL → what the app sent for it (`blocks`, or attachment fields). */
  unfurls: Record<string, Record<string, unknown>>;
  at: number;
}

/** A Workflow Builder step execution started by the fake (functions.ts). */
export interface FunctionExecutionInput {
  callbackId: string;
  inputs: Record<string, unknown>;
  teamId?: string;
  enterpriseId?: string;
  /** The app is installed organization-wide (Enterprise Grid): the envelope's authorizations say so. */
  enterpriseInstall?: boolean;
  executionId?: string;
}

export interface FakeFunctionExecution {
  executionId: string;
  /** The execution's own token (`bot_access_token`): the only one that completes it. */
  token: string;
  /** The Events API body to post, signed, to the app's /slack/events (as JSON). */
  envelope: Record<string, unknown>;
}

/** A functions.completeSuccess / completeError that Slack accepted. */
export interface FakeFunctionCompletion {
  executionId: string;
  kind: 'success' | 'error';
  outputs?: Record<string, unknown>;
  error?: string;
  token: string;
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
  /** Accepted chat.unfurl calls, oldest first. */
  readonly unfurls: FakeUnfurl[];
  /** Canvases made through the canvases API, oldest first. */
  readonly canvases: FakeCanvas[];
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
  /**
   * Blocks of `type` (e.g. 'data_visualization') are refused with `invalid_blocks` (chat.* answer
   * `{ok:false}`, a response_url HTTP 400) the next `times` times; default: until `refuseBlocks(type, 0)`.
   */
  refuseBlocks(type: string, times?: number): void;
  /** Delay every call to `method` (or '*') by ms. */
  setLatency(ms: number, method?: string): void;
  /** Socket Mode: connections opened with the ws:// URL from apps.connections.open (xapp- token). */
  readonly socketMode: SocketModeFake;
  /** Starts a Workflow Builder step execution: its function_executed envelope and execution token. */
  startFunction(input: FunctionExecutionInput): FakeFunctionExecution;
  /** Someone cancelled the execution's workflow: completing it is refused from now on. */
  cancelFunction(executionId: string): void;
  /** Completions Slack accepted (functions.completeSuccess / completeError), oldest first. */
  functionCompletions(executionId?: string): FakeFunctionCompletion[];
  /** Resolves with the predicate's first truthy result, re-evaluated after every recorded request. */
  waitFor<T>(predicate: () => T | undefined | false | null, timeoutMs?: number): Promise<T>;
  clear(): void;
  close(): Promise<void>;
}
