/**
 * Per-workspace access to Trunk and Slack. Trunk credentials come from the store (set with
 * `/mergequeue connect`), else from TRUNK_API_TOKEN / TRUNK_ORG_SLUG in single-workspace mode. Clients are
 * cached per token, so replacing a token takes effect at once; they share one undici Agent, and one Trunk
 * request budget per organization (src/trunk/budget.ts) that tells commands from background work.
 */
import { createHash } from 'node:crypto';
import type { Logger as SlackLogger } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { Dispatcher } from 'undici';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { instrumentedSlackFetch } from '../observability/slack-metrics.ts';
import { recordTrunkAttempt, recordTrunkBudget } from '../observability/trunk-metrics.ts';
import {
  createV2Access,
  V2_PULL_REQUEST_READS_PER_SECOND,
  type V2Workspace,
} from '../queue/trunk-v2-access.ts';
import { sharedTrunkAgent } from '../trunk/agent.ts';
import type { TrunkApi, WorkspaceTrunk } from '../trunk/api.ts';
import { apiTokenAuth } from '../trunk/auth.ts';
import {
  createTrunkBudget,
  type TrunkBudget,
  type TrunkBudgetLedger,
  type TrunkCaller,
} from '../trunk/budget.ts';
import { createTrunkClient } from '../trunk/client.ts';
import { createTrunkReadCache, type TrunkReadCache } from '../trunk/read-cache.ts';
import { apiKeyAuth } from '../trunk/v2/auth.ts';
import { createTrunkV2Client, type TrunkV2Api } from '../trunk/v2/client.ts';
import type { TrunkKeys } from './ports.ts';

export type { WorkspaceTrunk };

type Credentials = { token: string; orgSlug: string };

/** Resolves a workspace's bot token (OAuth: the installation, refreshed when rotating). */
export type BotTokenResolver = (workspaceId: string) => Promise<string | undefined>;

/** The deployment's settings the workspaces' clients are made with (the composition root reads them). */
export interface WorkspacesSettings {
  /** SLACK_API_URL. */
  slackApiUrl: string;
  /** single / oauth: TRUNK_API_TOKEN and TRUNK_API_KEY count only without OAuth. */
  mode: 'single' | 'oauth' | 'sandbox';
  trunk: {
    apiUrl: string;
    maxRps: number;
    token?: string | undefined;
    orgSlug?: string | undefined;
    v2Key?: string | undefined;
  };
  /** WATCH_INTERVAL_SECONDS: what the watcher read stands for a queue for two intervals. */
  watchIntervalSeconds: number;
}

export interface WorkspacesOptions {
  settings: WorkspacesSettings;
  /** Where each workspace's Trunk credentials are stored (set with `connect`). */
  store: TrunkKeys;
  /**
   * The ledger through which replicas share the Trunk budgets (store/trunk-budget.ts on PostgreSQL, built
   * by the composition root); undefined: each budget is this process's own (one process on SQLite).
   */
  budgetLedger: TrunkBudgetLedger | undefined;
  metrics: Metrics;
  slackLogger: SlackLogger;
  /** For warnings about failed Trunk attempts (see observability/trunk-metrics.ts). */
  logger?: Logger;
  botToken: BotTokenResolver;
  dispatcher?: Dispatcher;
  /**
   * Deadline of Trunk calls made for commands and clicks. They run after the ack (the response_url stays
   * valid for 30 minutes), so they get what Trunk's own clients use: giving up early would tell a person
   * "Trunk did not answer" about a change Trunk may still apply.
   */
  interactiveDeadlineMs?: number;
  /**
   * The per-organization Trunk request budget every client of this app shares (commands, watchers,
   * digests); default one of TRUNK_MAX_RPS made here, shared with the other replicas through the store's
   * ledger on PostgreSQL (one process on SQLite keeps it in memory).
   */
  budget?: TrunkBudget;
  /** The process's one short cache of Trunk reads; default one made here. */
  readCache?: TrunkReadCache;
}

export interface Workspaces {
  /** Trunk for a command or click (after the ack); undefined when the workspace has no credentials. */
  trunkFor(workspaceId: string): Promise<WorkspaceTrunk | undefined>;
  /**
   * Trunk for what a person only looks at (the Home, listings): reads answered from the process's read
   * cache when it holds them (a few seconds old, or the watcher's last poll), joined to an identical read in
   * flight, else asked. Changes through it forget what is cached of their queue.
   */
  readsFor(workspaceId: string): Promise<WorkspaceTrunk | undefined>;
  /** The process's one cache of Trunk reads, for every surface. */
  readonly readCache: TrunkReadCache;
  /**
   * Trunk for background work (the client's default 30 s deadline): `caller` says whose, for the budget
   * (background callers wait behind commands) and the metrics.
   */
  backgroundTrunkFor(
    workspaceId: string,
    caller: Exclude<TrunkCaller, 'interactive'>,
  ): Promise<WorkspaceTrunk | undefined>;
  /**
   * A client for verifying a token before it is stored (connect modal: pass a deadline that fits before the
   * ack); `orgSlug`, the organization the token is said to belong to, names the budget it counts against.
   */
  trunkWithToken(token: string, orgSlug?: string): TrunkApi;
  /**
   * The workspace's Trunk v2 access (its v2 key: stored with `connect`, else TRUNK_API_KEY in single-workspace
   * mode), for `caller`; undefined when it has no v2 key or no Trunk connection. Its PR reads wait on the
   * key's own bucket of 5 a second, shared by replicas like the organization's.
   */
  v2For(workspaceId: string, caller: TrunkCaller): Promise<V2Workspace | undefined>;
  /** A v2 client for a key that is not stored yet (the connect form checks it before saving). */
  v2WithKey(key: string): TrunkV2Api;
  /** A Slack WebClient with the workspace's bot token, pointed at SLACK_API_URL. */
  slackFor(workspaceId: string): Promise<WebClient>;
  /** Forget cached credentials of a workspace (after connect or uninstall in this process). */
  invalidate(workspaceId: string): void;
  /** Slack client options every WebClient of the app uses. */
  readonly slackClientOptions: ConstructorParameters<typeof WebClient>[1];
}

export const INTERACTIVE_DEADLINE_MS = 30_000;
/**
 * Decrypted credentials are kept this long per workspace, so a burst of commands does not read and
 * decrypt the same row each time. Another replica sees a replaced token within this time.
 */
export const CREDENTIALS_TTL_MS = 2_000;

export function createWorkspaces(opts: WorkspacesOptions): Workspaces {
  const { settings, store, metrics } = opts;
  const ledger = opts.budgetLedger;
  const dispatcher = opts.dispatcher ?? sharedTrunkAgent();
  const interactiveDeadline = opts.interactiveDeadlineMs ?? INTERACTIVE_DEADLINE_MS;
  const budget =
    opts.budget ??
    createTrunkBudget({
      maxPerSecond: settings.trunk.maxRps,
      ...recordTrunkBudget(metrics),
      ...(ledger ? { ledger } : {}),
      onLedgerError: (err) => opts.logger?.warn({ err }, 'Trunk budget: could not claim from the database'),
    });
  const v2 = createV2Access({
    store,
    apiUrl: settings.trunk.apiUrl,
    // TRUNK_API_KEY is single-workspace mode's; with OAuth each workspace brings its own through connect.
    environmentKey: settings.mode === 'oauth' ? undefined : settings.trunk.v2Key,
    budget,
    pullRequestReads: createTrunkBudget({
      maxPerSecond: V2_PULL_REQUEST_READS_PER_SECOND,
      readMaxWaitMs: 8_000,
      guardMs: 150,
      ...recordTrunkBudget(metrics),
      ...(ledger ? { ledger } : {}),
    }),
    dispatcher,
    interactiveDeadlineMs: interactiveDeadline,
    onAttempt: (event, caller) => recordTrunkAttempt(metrics, opts.logger, caller)(event),
  });
  const readCache = opts.readCache ?? createTrunkReadCache();
  // The watcher polls a followed queue once an interval; what it read stands for the queue for two, the
  // delay DESIGN allows a change to reach anyone ("Timing"), so a poll running late leaves no gap.
  const watchKeepMs = 2 * settings.watchIntervalSeconds * 1_000;
  const trunkClients = new Map<string, TrunkApi>();
  const slackClients = new Map<string, WebClient>();

  const slackClientOptions: ConstructorParameters<typeof WebClient>[1] = {
    slackApiUrl: settings.slackApiUrl,
    logger: opts.slackLogger,
    // A person is waiting: a couple of quick retries, never the library's half-hour schedule.
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2_000 },
    timeout: 10_000,
    // Counts Slack API errors and 429 waits (digests and other background posts).
    fetch: instrumentedSlackFetch(metrics),
  };

  const client = (
    token: string,
    deadline: number,
    orgSlug: string,
    caller: TrunkCaller,
    prefer = false,
  ): TrunkApi => {
    const key = `${caller}:${deadline}:${orgSlug}:${prefer}:${token}`;
    let c = trunkClients.get(key);
    if (!c) {
      const raw = createTrunkClient({
        baseUrl: settings.trunk.apiUrl,
        auth: apiTokenAuth(token),
        dispatcher,
        defaultDeadlineMs: deadline,
        onAttempt: recordTrunkAttempt(metrics, opts.logger, caller),
        budget: budget.gate(orgSlug, caller),
      });
      // One connection's reads answer only its own: the scope is the organization and the token's digest.
      const scope = `${orgSlug}:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
      c = readCache.wrap(raw, scope, { prefer, ...(caller === 'watch' ? { keepMs: watchKeepMs } : {}) });
      // Bounded: a token replaced many times must not grow the cache without end.
      if (trunkClients.size > 1_000) trunkClients.clear();
      trunkClients.set(key, c);
    }
    return c;
  };

  const cache = new Map<string, { value: Promise<Credentials | undefined>; expires: number }>();
  const load = async (workspaceId: string): Promise<Credentials | undefined> => {
    const stored = await store.getTrunkCredentials(workspaceId);
    if (stored) return stored;
    if (settings.mode !== 'oauth' && settings.trunk.token)
      return { token: settings.trunk.token, orgSlug: settings.trunk.orgSlug ?? '' };
    return undefined;
  };
  const credentials = (workspaceId: string): Promise<Credentials | undefined> => {
    const now = Date.now();
    const hit = cache.get(workspaceId);
    if (hit && hit.expires > now) return hit.value;
    const value = load(workspaceId);
    if (cache.size > 10_000) cache.clear();
    cache.set(workspaceId, { value, expires: now + CREDENTIALS_TTL_MS });
    value.catch(() => cache.delete(workspaceId));
    return value;
  };

  const trunkAt = async (workspaceId: string, deadline: number, caller: TrunkCaller, prefer = false) => {
    const creds = await credentials(workspaceId);
    if (!creds) return undefined;
    return { api: client(creds.token, deadline, creds.orgSlug, caller, prefer), orgSlug: creds.orgSlug };
  };

  return {
    slackClientOptions,
    readCache,
    readsFor: (workspaceId) => trunkAt(workspaceId, interactiveDeadline, 'view', true),
    invalidate: (workspaceId) => {
      cache.delete(workspaceId);
      v2.invalidate(workspaceId);
    },
    v2WithKey: (key) =>
      createTrunkV2Client({
        baseUrl: settings.trunk.apiUrl,
        auth: apiKeyAuth(key),
        dispatcher,
        defaultDeadlineMs: interactiveDeadline,
      }),
    async v2For(workspaceId, caller) {
      const creds = await credentials(workspaceId);
      if (!creds) return undefined;
      return v2.forWorkspace(workspaceId, creds.orgSlug, caller);
    },
    trunkFor: (workspaceId) => trunkAt(workspaceId, interactiveDeadline, 'interactive'),
    backgroundTrunkFor: (workspaceId, caller) => trunkAt(workspaceId, 30_000, caller),
    trunkWithToken: (token, orgSlug = '') => client(token, interactiveDeadline, orgSlug, 'interactive'),
    async slackFor(workspaceId) {
      const token = await opts.botToken(workspaceId);
      if (!token) throw new Error(`no Slack installation for workspace ${workspaceId}`);
      let c = slackClients.get(token);
      if (!c) {
        c = new WebClient(token, slackClientOptions);
        if (slackClients.size > 1_000) slackClients.clear();
        slackClients.set(token, c);
      }
      return c;
    },
  };
}
