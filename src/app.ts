/**
 * Builds the running app: Bolt with the HTTP receiver (POST /slack/events, the OAuth install routes and
 * the operational routes) or Socket Mode, the store, the per-workspace clients, the listeners and the
 * digest service. Every Slack call goes to SLACK_API_URL, which is how tests and the sandbox use a fake.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type CustomRoute, HTTPReceiver, type Receiver, SocketModeReceiver } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { buildSlackSide } from './app-services.ts';
import type { Config } from './config.ts';
import { answerWithin } from './core/deadline.ts';
import type { DigestEngine } from './digest/index.ts';
import { createHttpRoutes } from './http/routes.ts';
import { createTrunkWebhookRoutes } from './http/trunk-webhooks.ts';
import {
  createLifecycle,
  guardHttpReceiver,
  type Lifecycle,
  type ShutdownResult,
  trackBoltRequests,
} from './lifecycle.ts';
import { countUnanswered } from './observability/answers-first.ts';
import { boltLogger } from './observability/bolt-logger.ts';
import { requestContextMiddleware } from './observability/bolt-middleware.ts';
import { createLogger, type Logger } from './observability/log.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { configuredSecrets } from './observability/secret-values.ts';
import { instrumentedSlackFetch } from './observability/slack-metrics.ts';
import type { DigestCommands, SlackDeps } from './slack/deps.ts';
import { createDirectoryCache } from './slack/directory.ts';
import { installerRightsStore } from './slack/installer-rights.ts';
import { registerListeners } from './slack/listeners/index.ts';
import { SlackOutbox } from './slack/outbox/outbox.ts';
import { guardPayloadShapes, rejectNonObjectBodies } from './slack/payload-shape.ts';
import { handleEventsOnce, rejectReplays } from './slack/replay-guard.ts';
import { guardRequestWorkspace, ownWorkspaceOf } from './slack/request-workspace.ts';
import { rejectFutureTimestamps } from './slack/timestamp-guard.ts';
import { acknowledgeUnhandled, noteListenerFailure } from './slack/unhandled-interactions.ts';
import { createWorkspaces, type Workspaces } from './slack/workspace.ts';
import { appendAuditRetrying } from './store/audit-retrying.ts';
import { openStore } from './store/open.ts';
import { trunkBudgetClaims } from './store/trunk-budget.ts';
import type { Store } from './store/types.ts';
import { InboxRepository } from './webhooks/inbox.ts';
import {
  createWorkers,
  type DashboardsWorker,
  type QueueEvents,
  type SlowQueuesWorker,
  type StepWaitsWorker,
  type TestCaseSink,
} from './workers/index.ts';
import type { WebhookInboxWorker } from './workers/webhook-inbox.ts';

/**
 * Bot scopes the app asks for at install; keep in step with manifest.yml. channels:read and groups:read let
 * digests check who is in a channel (conversations.members/info) before listing or running its digests.
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'chat:write.public',
  'users:read',
  'usergroups:read',
  'channels:read',
  'groups:read',
  // Link unfurls (link_shared, chat.unfurl).
  'links:read',
  'links:write',
  // Dashboards: conversations.canvases.create, canvases.create/edit/access.set/delete.
  'canvases:write',
];

export const EVENTS_PATH = '/slack/events';

/**
 * A request's headers and body must arrive within this (408 and the connection closed otherwise), not
 * Node's default 300 s: a stranger trickling a body holds a connection for seconds, not minutes. Slack
 * wants its answer within 3 s and Svix within 15 s, so no real sender needs longer.
 */
export const REQUEST_DEADLINE_MS = 10_000;
const BODY_DEADLINES = {
  requestTimeout: REQUEST_DEADLINE_MS,
  headersTimeout: REQUEST_DEADLINE_MS,
  // Node looks for requests past their deadline this often (default 30 s).
  connectionsCheckingInterval: 1_000,
};
export const INSTALL_PATH = '/slack/install';
export const REDIRECT_PATH = '/slack/oauth_redirect';

/** What a caller of the library may supply instead of what createApp would make from the configuration. */
export interface AppOverrides {
  logger?: Logger;
  metrics?: Metrics;
  /** An open store to use instead of opening config.database (the caller closes it). */
  store?: Store;
  /** The app's clock in epoch ms (replies, audit retention, the digest schedule); default Date.now. */
  clock?: () => number;
  /** Shutdown coordination (src/lifecycle.ts); default: one made from config.shutdownTimeoutMs. */
  lifecycle?: Lifecycle;
  /** Names this replica in the claims it takes; default the process id. */
  replicaId?: string;
  http?: {
    /** Listen address; default all interfaces. */
    host?: string;
    /** More routes served beside /slack/events (the sandbox's pages). */
    customRoutes?: CustomRoute[];
  };
  /**
   * Credentials generated at run time (the sandbox runs a local fake Slack). Any field given replaces the
   * configuration's and turns sandbox mode into single-workspace mode.
   */
  slack?: { signingSecret?: string; botToken?: string; apiUrl?: string };
  trunk?: {
    /**
     * Deadline of Trunk calls made for commands and clicks; default 30 s (INTERACTIVE_DEADLINE_MS in
     * slack/workspace.ts).
     */
    interactiveDeadlineMs?: number;
  };
  /** false: no digest service (commands answer that digests are unavailable). */
  digest?:
    | false
    | {
        /** How often the scheduler looks for due digests (node-cron syntax); default every minute. */
        tickCron?: string;
        /** How long a claimed occurrence stays this replica's; default 60 s. */
        leaseMs?: number;
        /** The Slack outbox's pause between two posts to one channel (every kind, not only digests); default 1 s. */
        paceMs?: number;
      };
  /** false: no queue watcher (no feeds, live status messages or notes to authors). */
  watch?:
    | false
    | {
        /** How long a queue lease lasts without renewal; default 3 watch intervals (at least 15 s). */
        leaseMs?: number;
      };
  freeze?: {
    /** How often the freezer looks for windows to start or end; default 5 s. */
    tickMs?: number;
    /** How long a claimed start or end stays this replica's without renewal; default 30 s. */
    leaseMs?: number;
  };
  /** Waiting Workflow Builder steps: how often their time limits are checked; default 5 s. */
  steps?: { tickMs?: number };
  /** Slow-queue alerts: how often every followed queue is checked; default 10 minutes. */
  slow?: { everyMs?: number };
  /** Dashboards: how often their canvases are looked at; default 20 s. */
  dashboards?: { everyMs?: number };
}

export interface RunningApp {
  readonly config: Config;
  /** http://host:port once started. */
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly bolt: App;
  readonly workspaces: Workspaces;
  /** Queue events (feeds, live status messages, notes to authors); undefined when turned off. */
  readonly events: QueueEvents | undefined;
  /** The worker draining Trunk's webhook inbox (POST /trunk/webhooks/<workspace>). */
  readonly webhooks: WebhookInboxWorker;
  /** Workflow Builder steps waiting for a PR (time limits, retried completions). */
  readonly steps: StepWaitsWorker;
  /** The flaky-test sink of Trunk's webhooks (src/workers/test-case-sink.ts), for the inbox worker. */
  readonly testCases: TestCaseSink;
  /** Slow-queue alerts (src/workers/slow-queues.ts). */
  readonly slow: SlowQueuesWorker;
  /** The digest scheduler (tests tick it on their clock); undefined when turned off. */
  readonly digests: DigestEngine | undefined;
  /** Dashboard canvases kept current (src/workers/dashboards.ts). */
  readonly dashboards: DashboardsWorker;
  start(): Promise<void>;
  /** Stops accepting requests, stops the digest service and closes the store (if this app opened it). */
  stop(): Promise<ShutdownResult>;
  /** Shutdown state and in-flight work (src/lifecycle.ts). */
  readonly lifecycle: Lifecycle;
}

export class SandboxModeError extends Error {
  constructor() {
    super('sandbox mode has no Slack credentials: start it with startSandbox, or set the Slack variables');
    this.name = 'SandboxModeError';
  }
}

export async function createApp(baseConfig: Config, overrides: AppOverrides = {}): Promise<RunningApp> {
  const config = applySlackOverrides(baseConfig, overrides.slack);
  if (config.slack.mode === 'sandbox') throw new SandboxModeError();
  const logger =
    overrides.logger ?? createLogger(config.logLevel, undefined, {}, { secrets: configuredSecrets(config) });
  const metrics = overrides.metrics ?? createMetrics();
  const now = overrides.clock ?? Date.now;
  const ownStore = !overrides.store;
  const store = overrides.store ?? (await openStore({ ...storeOptions(config), logger }));
  const slackLogger = boltLogger(logger, 'bolt');
  // In-flight tracking and graceful shutdown; /readyz answers 503 once it starts.
  const lifecycle =
    overrides.lifecycle ?? createLifecycle({ logger, timeoutMs: config.shutdownTimeoutMs, metrics });

  const clientOptions: WebClientOptions = {
    slackApiUrl: config.slack.apiUrl,
    logger: slackLogger,
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2_000 },
    timeout: 10_000,
    // Counts Slack API errors and 429 waits of every client Bolt makes, and of respond().
    fetch: instrumentedSlackFetch(metrics),
  };

  // Trunk's webhooks: kept in the inbox by the route, drained by its worker (made below with the others).
  let webhookWorker: WebhookInboxWorker | undefined;
  const webhookRoutes = createTrunkWebhookRoutes({
    secretsFor: (id) => webhookSecretsFor(id),
    inbox: new InboxRepository(store.db),
    kept: () => webhookWorker?.kick(),
    metrics,
    logger: logger.child({ component: 'webhooks' }),
    now,
    lifecycle,
  });

  const customRoutes: CustomRoute[] = [
    ...createHttpRoutes({ metrics, store, lifecycle, logger }),
    ...webhookRoutes,
    ...(overrides.http?.customRoutes ?? []),
  ];

  const oauth = config.slack.mode === 'oauth';
  const directory = createDirectoryCache();
  const installationStore = oauth
    ? installerRightsStore({ store, logger, directory, clientOptions })
    : undefined;
  const oauthOptions = oauth
    ? {
        clientId: config.slack.clientId!,
        clientSecret: config.slack.clientSecret!,
        stateSecret: config.slack.stateSecret!,
        scopes: BOT_SCOPES,
        installationStore: installationStore!,
      }
    : {};
  const installerOptions = {
    installPath: INSTALL_PATH,
    redirectUriPath: REDIRECT_PATH,
    // /slack/install goes straight to Slack's consent page (no intermediate "Add to Slack" page).
    directInstall: true,
    clientOptions,
  };

  let receiver: Receiver;
  let httpReceiver: HTTPReceiver | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  if (config.slack.transport === 'socket') {
    socketReceiver = new SocketModeReceiver({
      appToken: config.slack.appToken!,
      logger: slackLogger,
      customRoutes,
      ...oauthOptions,
      // Socket Mode still serves the install and operational routes over HTTP on PORT.
      installerOptions: { ...installerOptions, port: config.port },
    });
    receiver = socketReceiver;
  } else {
    httpReceiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret!,
      endpoints: EVENTS_PATH,
      // Ack first, work after: the HTTP answer leaves as soon as a listener calls ack().
      processBeforeResponse: false,
      // rejectReplays (below) verifies every request's signature once, before Bolt; Bolt's check would repeat it.
      signatureVerification: false,
      customRoutes,
      logger: slackLogger,
      ...(oauth ? { ...oauthOptions, installerOptions } : {}),
    });
    receiver = httpReceiver;
    // A signed request seen before (within its five minutes) is refused before Bolt runs a listener.
    rejectReplays(httpReceiver, {
      signingSecret: config.slack.signingSecret!,
      store,
      registry: metrics.registry,
      logger,
      endpoints: [EVENTS_PATH],
    });
    // Reads the body before the replay check and Bolt (both reuse it); after shutdown's 503 and tracking.
    rejectNonObjectBodies(httpReceiver, [EVENTS_PATH], logger);
    // New Slack requests get 503 while shutting down; every request is tracked until answered.
    guardHttpReceiver(httpReceiver, lifecycle, [EVENTS_PATH]);
    rejectFutureTimestamps(httpReceiver, [EVENTS_PATH]);
    // Outermost, from arrival: work after an ack and the workers wait while requests await their answer; a
    // forged one leaves the count with its 401, a half-sent one after a moment (answers-first.ts).
    countUnanswered(httpReceiver, [EVENTS_PATH]);
  }

  const bolt = new App({
    receiver,
    logger: slackLogger,
    clientOptions,
    // No listener uses Bolt's conversation state; skipping its middleware saves work on every request.
    convoStore: false,
    ...(config.slack.mode === 'single' ? { token: config.slack.botToken! } : {}),
  });

  // Each Slack request is in-flight work (shutdown waits for it) with its own request id:
  // every log line written while handling it carries the id; context.reqId and context.logger too.
  // Wrapped first so that it runs inside the request context trackBoltRequests sets up.
  acknowledgeUnhandled(bolt, logger);
  // An Events API retry of an event already handled (any replica) is acknowledged and does nothing.
  handleEventsOnce(bolt, { store, logger, registry: metrics.registry });
  // A request naming a team or enterprise that is not ours (another organization in a shared channel, a
  // workspace with no installation) is refused before Bolt authorizes it: the workspace is never the
  // payload's word alone (src/slack/request-workspace.ts).
  const ownWorkspace =
    config.slack.mode === 'single'
      ? ownWorkspaceOf(() => new WebClient(config.slack.botToken, clientOptions), logger)
      : undefined;
  guardRequestWorkspace(bolt, {
    mode: config.slack.mode === 'oauth' ? 'oauth' : 'single',
    ...(ownWorkspace ? { own: ownWorkspace.get } : {}),
    installations: store.installations,
    audit: (entry) =>
      appendAuditRetrying(store, entry, (err) => logger.error({ err }, 'audit of a refused request lost')),
    logger,
    now,
    slackApiUrl: config.slack.apiUrl,
    registry: metrics.registry,
  });
  // Bodies Slack would never send (no actions, no user, JSON null…) get a quiet 200 before any listener.
  guardPayloadShapes(bolt, logger);
  trackBoltRequests(bolt, lifecycle);
  bolt.use(requestContextMiddleware(logger));
  bolt.error(async (err) => {
    noteListenerFailure();
    logger.error({ err }, 'unhandled error in a Slack listener');
  });

  const installer = httpReceiver?.installer ?? socketReceiver?.installer;
  const workspaces = createWorkspaces({
    settings: {
      slackApiUrl: config.slack.apiUrl,
      mode: config.slack.mode,
      trunk: config.trunk,
      watchIntervalSeconds: config.watch.intervalSeconds,
    },
    store,
    // Replicas on PostgreSQL share the Trunk budgets through the store's ledger.
    budgetLedger: store.db.dialect === 'postgres' ? trunkBudgetClaims(store.db) : undefined,
    metrics,
    slackLogger,
    logger,
    ...(overrides.trunk?.interactiveDeadlineMs
      ? { interactiveDeadlineMs: overrides.trunk.interactiveDeadlineMs }
      : {}),
    botToken: async (workspaceId) => {
      if (config.slack.mode === 'single') return config.slack.botToken;
      if (!installer) return undefined;
      // authorize() refreshes a rotating token that is about to expire.
      const isEnterprise = workspaceId.startsWith('E');
      const auth = await installer.authorize({
        teamId: isEnterprise ? undefined : workspaceId,
        enterpriseId: isEnterprise ? workspaceId : undefined,
        isEnterpriseInstall: isEnterprise,
      });
      return auth.botToken;
    },
  });

  // Everything the app says on its own initiative goes through this one outbox (src/slack/outbox/).
  const digestPace = overrides.digest === false ? undefined : overrides.digest?.paceMs;
  const outbox = new SlackOutbox({
    slackFor: (id) => workspaces.slackFor(id),
    clientWithToken: (token) => new WebClient(token, workspaces.slackClientOptions),
    logger: logger.child({ component: 'outbox' }),
    metrics,
    ...(digestPace !== undefined ? { paceMs: digestPace } : {}),
  });

  // Background work (digests, freeze windows, queue events, audit retention): workers on the lifecycle,
  // started once the app listens and stopped, in this order, after the requests in flight.
  const {
    digests: digestService,
    events,
    webhooks,
    steps,
    testCases,
    slow,
    dashboards,
  } = createWorkers(lifecycle, {
    config,
    store,
    workspaces,
    directory,
    outbox,
    logger,
    metrics,
    now,
    replicaId: overrides.replicaId ?? `${process.pid}`,
    overrides,
  });

  webhookWorker = webhooks;
  /** Stored secrets; in single-workspace mode TRUNK_WEBHOOK_SECRET's too, for the bot's own workspace only. */
  const webhookSecretsFor = async (workspaceId: string): Promise<string[]> => {
    const stored = await store.getTrunkWebhookSecrets(workspaceId);
    const configured = config.trunk.webhookSecrets;
    if (!configured || !ownWorkspace) return stored;
    // Not known yet (Slack did not answer auth.test in time): throwing answers 503, so Svix retries;
    // the wait is bounded so the answer stays well within Svix's 15 s.
    const own = await answerWithin(
      ownWorkspace.get(),
      3_000,
      () => new Error('auth.test did not answer in time'),
    );
    // The id commands and feeds are kept under: the enterprise only for an org-wide token.
    const ours = own.orgWide ? own.enterpriseId === workspaceId : own.teamId === workspaceId;
    return ours ? [...configured, ...stored] : stored;
  };

  // The services, built once here, and the ports the Slack side gets instead of the store and config.
  const deps: SlackDeps = {
    ...buildSlackSide({ config, store, trunk: workspaces, logger, metrics, now }),
    logger,
    metrics,
    workspaces,
    directory,
    digest: digestService as DigestCommands | undefined,
    now,
    outbox,
    ...(events ? { liveStatus: events.live } : {}),
    steps: steps.completer,
    dashboards,
  };
  registerListeners(bolt, deps);

  let port = 0;
  let started = false;
  const host = overrides.http?.host;

  // Shutdown order: Socket Mode disconnects first (no new events); after the work in flight
  // has finished (bounded by SHUTDOWN_TIMEOUT_MS): the workers stop (registered above), the HTTP
  // server closes (it kept answering /readyz with 503 meanwhile), then the store.
  const stopReceiver = async () => {
    if (!started) return;
    started = false;
    await bolt.stop();
  };
  if (socketReceiver) lifecycle.onStopIntake('slack-socket', stopReceiver);
  if (httpReceiver) lifecycle.onClose('http-server', stopReceiver);
  if (ownStore) lifecycle.onClose('store', () => store.close());
  const running: RunningApp = {
    config,
    get url() {
      return `http://${host && host !== '0.0.0.0' && host !== '::' ? host : '127.0.0.1'}:${port}`;
    },
    get port() {
      return port;
    },
    store,
    logger,
    metrics,
    bolt,
    workspaces,
    events,
    webhooks,
    steps,
    testCases,
    slow,
    dashboards,
    digests: digestService,
    async start() {
      if (started) return;
      // Whose the bot token is, asked once (single-workspace mode); requests wait for it briefly.
      ownWorkspace?.warm();
      if (httpReceiver) {
        const listen = host ? { port: config.port, host } : config.port;
        const server = (await bolt.start(listen, BODY_DEADLINES)) as Server;
        port = (server.address() as AddressInfo).port;
      } else {
        await bolt.start();
        const server = (socketReceiver as unknown as { httpServer?: Server }).httpServer;
        const addr = server?.address();
        port = addr && typeof addr === 'object' ? addr.port : config.port;
      }
      started = true;
      // SCHEDULER_ENABLED=false: only audit retention runs here; other replicas run the rest.
      await lifecycle.startWorkers();
    },
    lifecycle,
    stop() {
      // See the shutdown order above; failures are logged by the lifecycle.
      return lifecycle.shutdown('stop');
    },
  };
  return running;
}

function applySlackOverrides(config: Config, o: AppOverrides['slack']): Config {
  if (!o || (!o.signingSecret && !o.botToken && !o.apiUrl)) return config;
  const slack = { ...config.slack };
  if (o.signingSecret) slack.signingSecret = o.signingSecret;
  if (o.botToken) slack.botToken = o.botToken;
  if (o.apiUrl) slack.apiUrl = o.apiUrl.endsWith('/') ? o.apiUrl : `${o.apiUrl}/`;
  if (slack.mode === 'sandbox') {
    slack.mode = 'single';
    slack.transport = 'http';
  }
  return { ...config, slack };
}

function storeOptions(config: Config) {
  return {
    database: config.database,
    encryptionKeys: config.encryptionKeys,
    timeouts: config.databaseTimeouts,
  };
}
