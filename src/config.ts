/**
 * Configuration from the environment, parsed once at start-up into one typed object.
 * Every problem is collected and reported together, by variable name; values are never echoed,
 * because several of them are secrets.
 */
import { z } from 'zod';
import { parseTarget, type TargetSpec } from './core/target.ts';
import { splitWebhookSecrets, webhookSecretsProblem } from './core/webhook-secrets.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface DatabaseTimeouts {
  /** PostgreSQL: opening a connection (DATABASE_CONNECT_TIMEOUT_MS). */
  connectMs: number;
  /** One statement, PostgreSQL (client and server side) and SQLite's busy timeout (DATABASE_QUERY_TIMEOUT_MS). */
  queryMs: number;
}

export interface SlackConfig {
  /** single: one workspace from SLACK_BOT_TOKEN; oauth: many workspaces installed through /slack/install;
   *  sandbox: no Slack credentials at all, the local try-it-out mode. */
  mode: 'single' | 'oauth' | 'sandbox';
  /** socket when SLACK_APP_TOKEN is set, otherwise HTTP at POST /slack/events. */
  transport: 'http' | 'socket';
  signingSecret?: string;
  botToken?: string;
  appToken?: string;
  clientId?: string;
  clientSecret?: string;
  stateSecret?: string;
  /** Always ends with "/". */
  apiUrl: string;
}

export interface Config {
  port: number;
  logLevel: LogLevel;
  slack: SlackConfig;
  trunk: {
    /** No trailing slash. */
    apiUrl: string;
    /** Web app base for "Open in Trunk" links. No trailing slash. */
    appUrl: string;
    token?: string;
    /** Single-workspace mode: a v2 API key (TRUNK_API_KEY); one stored with `connect` wins over it. */
    v2Key?: string;
    orgSlug?: string;
    /**
     * Single-workspace mode: the signing secrets (`whsec_…`) of the workspace's Trunk webhook endpoints
     * (TRUNK_WEBHOOK_SECRET, comma-separated); those stored with `connect` count too.
     */
    webhookSecrets?: string[];
    /** Requests per second per Trunk organization this process allows itself (src/trunk/budget.ts). */
    maxRps: number;
  };
  defaultTarget?: TargetSpec;
  database: DatabaseConfig;
  /** How long the app waits for the database before telling the person it is not answering. */
  databaseTimeouts: DatabaseTimeouts;
  /** Decoded ENCRYPTION_KEY entries; [0] encrypts new secrets, the rest stay readable (rotation). Empty when unset. */
  encryptionKeys: Buffer[];
  digest: { graceHours: number; schedulerEnabled: boolean };
  /** Queue watching (watch/): poll interval and the thresholds of live messages and health alerts. */
  watch: {
    intervalSeconds: number;
    liveStatusHours: number;
    stuckMinutes: number;
    pausedReminderHours: number;
  };
  shutdownTimeoutMs: number;
  /** Audit rows older than this many days are pruned (AUDIT_RETENTION_DAYS, default 90). */
  auditRetentionDays: number;
  /** The queue history behind `stats` is kept this many days, then pruned (HISTORY_DAYS, default 90). */
  historyDays: number;
}

/** How to leave the sandbox: printed when it starts, and when production settings forbid it. */
export const SLACK_VARIABLES = `Set the Slack variables to connect a real workspace:
  one workspace:   SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (plus TRUNK_API_TOKEN and TRUNK_ORG_SLUG)
  many workspaces: SLACK_SIGNING_SECRET, SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET and ENCRYPTION_KEY
  Socket Mode:     SLACK_APP_TOKEN instead of SLACK_SIGNING_SECRET (no public URL needed)`;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const optionalText = z
  .string()
  .transform((s) => s.trim())
  .optional()
  .transform((s) => (s === '' ? undefined : s));

const httpUrl = (what: string) =>
  z.string().refine(
    (s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: `must be an http(s) URL (${what})` },
  );

/** A whole number from min to max, said in the message with an example. */
const wholeNumber = (what: string, min: number, max: number) =>
  optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,7}$/, `must be ${what}`)
      .transform(Number)
      .refine((n) => n >= min && n <= max, `must be from ${min} to ${max}`)
      .optional(),
  );

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const envSchema = z.object({
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_BOT_TOKEN: optionalText.refine((s) => s === undefined || s.startsWith('xox'), {
    message: 'must be a Slack bot token starting with "xoxb-"',
  }),
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText.refine((s) => s === undefined || s.startsWith('xapp-'), {
    message: 'must be an app-level token starting with "xapp-"',
  }),
  SLACK_API_URL: optionalText.pipe(httpUrl('for example https://slack.com/api/').optional()),
  TRUNK_API_URL: optionalText.pipe(httpUrl('for example https://api.trunk.io').optional()),
  TRUNK_APP_URL: optionalText.pipe(httpUrl('for example https://app.trunk.io').optional()),
  TRUNK_API_TOKEN: optionalText,
  // A v2 API key is its own secret (the v1 token does not work on v2), shaped trunk_v2_…
  TRUNK_API_KEY: optionalText.refine((s) => s === undefined || /^trunk_v2_\S+$/.test(s), {
    message: 'must be a Trunk v2 API key starting with "trunk_v2_" (Trunk → Settings → Developer → API Keys)',
  }),
  // The signing secrets of Trunk's webhook endpoints (Svix), comma-separated; checked in loadConfig.
  TRUNK_WEBHOOK_SECRET: optionalText,
  TRUNK_ORG_SLUG: optionalText.refine((s) => s === undefined || /^[A-Za-z0-9_.-]{1,200}$/.test(s), {
    message: 'must be the organization slug from Trunk settings (letters, digits, "-", "_", ".")',
  }),
  // Trunk allows 100 per second per organization in all, its CI included; the app keeps well under that.
  TRUNK_MAX_RPS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number of requests per second from 1 to 100, for example 10')
      .transform(Number)
      .refine(
        (n) => n >= 1 && n <= 100,
        'must be from 1 to 100 (Trunk allows 100 requests per second per organization, shared with its CI)',
      )
      .optional(),
  ),
  DEFAULT_REPO: optionalText,
  DATABASE_URL: optionalText,
  ENCRYPTION_KEY: optionalText,
  PORT: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535')
      .transform(Number)
      .refine((n) => n <= 65535, 'must be a port number from 0 to 65535')
      .optional(),
  ),
  LOG_LEVEL: optionalText.pipe(
    z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }))
      .optional(),
  ),
  DIGEST_GRACE_HOURS: optionalText.pipe(
    z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'must be a number of hours, for example 6')
      .transform(Number)
      .refine((n) => n <= 168, 'must be at most 168 hours')
      .optional(),
  ),
  SCHEDULER_ENABLED: optionalText.pipe(
    z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).optional(),
  ),
  DATABASE_CONNECT_TIMEOUT_MS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,6}$/, 'must be a number of milliseconds, for example 5000')
      .transform(Number)
      .refine((n) => n >= 100, 'must be at least 100 milliseconds')
      .optional(),
  ),
  DATABASE_QUERY_TIMEOUT_MS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,6}$/, 'must be a number of milliseconds, for example 5000')
      .transform(Number)
      .refine((n) => n >= 100, 'must be at least 100 milliseconds')
      .optional(),
  ),
  WATCH_INTERVAL_SECONDS: wholeNumber('a number of seconds, for example 20', 5, 3600),
  LIVE_STATUS_HOURS: wholeNumber('a number of hours, for example 12', 1, 168),
  STUCK_MINUTES: wholeNumber('a number of minutes, for example 45', 1, 10080),
  PAUSED_REMINDER_HOURS: wholeNumber('a number of hours, for example 4', 1, 168),
  SHUTDOWN_TIMEOUT_MS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,7}$/, 'must be a number of milliseconds')
      .transform(Number)
      .optional(),
  ),
  AUDIT_RETENTION_DAYS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a whole number of days, for example 90')
      .transform(Number)
      .refine((n) => n >= 1, 'must be at least 1 day')
      .optional(),
  ),
  HISTORY_DAYS: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a whole number of days, for example 90')
      .transform(Number)
      .refine((n) => n >= 1, 'must be at least 1 day')
      .optional(),
  ),
  NODE_ENV: optionalText,
});

/** Decodes ENCRYPTION_KEY: one base64 key of 32 bytes, or several separated by commas (newest first). */
export function decodeEncryptionKeys(raw: string): { keys: Buffer[]; problem?: string } {
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const keys: Buffer[] = [];
  for (const [i, part] of parts.entries()) {
    const which = parts.length > 1 ? `entry ${i + 1} ` : '';
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(part) && !/^[A-Za-z0-9_-]+={0,2}$/.test(part))
      return {
        keys: [],
        problem: `ENCRYPTION_KEY: ${which}is not base64. Generate one with: openssl rand -base64 32`,
      };
    const buf = Buffer.from(part, part.includes('-') || part.includes('_') ? 'base64url' : 'base64');
    if (buf.length !== 32)
      return {
        keys: [],
        problem: `ENCRYPTION_KEY: ${which}decodes to ${buf.length} bytes, but 32 are needed. Generate one with: openssl rand -base64 32`,
      };
    keys.push(buf);
  }
  if (keys.length === 0) return { keys: [], problem: 'ENCRYPTION_KEY: is empty' };
  return { keys };
}

function parseDatabaseUrl(raw: string | undefined): { db?: DatabaseConfig; problem?: string } {
  if (raw === undefined) return { db: { kind: 'sqlite', path: 'data/mergequeue.db' } };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return { db: { kind: 'postgres', url: raw } };
    } catch {
      return { problem: 'DATABASE_URL: is not a valid postgres:// URL' };
    }
  }
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path)
      return { problem: 'DATABASE_URL: sqlite: needs a file path, for example sqlite:data/mergequeue.db' };
    return { db: { kind: 'sqlite', path } };
  }
  return {
    problem:
      'DATABASE_URL: must start with postgres:// (PostgreSQL) or sqlite: (a file), or be unset for the embedded SQLite file under ./data',
  };
}

/**
 * Parses the environment. Throws ConfigError listing every problem. `tool: true` is for command-line
 * tools (key rotation) that never serve Slack, so the missing-Slack-variables guard does not apply.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: { tool?: boolean } = {}): Config {
  const problems: string[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${String(issue.path[0] ?? 'environment')}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;

  const anySlack = Boolean(
    e.SLACK_SIGNING_SECRET ||
      e.SLACK_BOT_TOKEN ||
      e.SLACK_CLIENT_ID ||
      e.SLACK_CLIENT_SECRET ||
      e.SLACK_APP_TOKEN,
  );
  const oauthVars = [e.SLACK_CLIENT_ID, e.SLACK_CLIENT_SECRET, e.SLACK_STATE_SECRET];
  const anyOauth = oauthVars.some(Boolean);
  let mode: SlackConfig['mode'] = 'sandbox';
  if (anySlack) {
    if (e.SLACK_BOT_TOKEN && anyOauth) {
      problems.push(
        'SLACK_BOT_TOKEN: set either SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (OAuth install), not both',
      );
    } else if (e.SLACK_BOT_TOKEN) {
      mode = 'single';
    } else if (anyOauth) {
      mode = 'oauth';
      if (!e.SLACK_CLIENT_ID)
        problems.push('SLACK_CLIENT_ID: is required for OAuth install (or set SLACK_BOT_TOKEN)');
      if (!e.SLACK_CLIENT_SECRET)
        problems.push('SLACK_CLIENT_SECRET: is required for OAuth install (or set SLACK_BOT_TOKEN)');
      if (!e.SLACK_STATE_SECRET)
        problems.push('SLACK_STATE_SECRET: is required for OAuth install: any long random string');
    } else {
      problems.push(
        'SLACK_BOT_TOKEN: is required (one workspace), or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (OAuth install); unset every SLACK_ variable to try the local sandbox',
      );
    }
    if (!e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET)
      problems.push(
        "SLACK_SIGNING_SECRET: is required in HTTP mode (from the app's Basic Information page), or set SLACK_APP_TOKEN for Socket Mode",
      );
  }

  let defaultTarget: TargetSpec | undefined;
  if (e.DEFAULT_REPO) {
    const t = parseTarget(e.DEFAULT_REPO);
    if (!t.ok || !t.value.repo)
      problems.push('DEFAULT_REPO: must be [host/]owner/name[:branch], for example acme/web:main');
    else defaultTarget = t.value;
  }

  const { db, problem: dbProblem } = parseDatabaseUrl(e.DATABASE_URL);
  if (dbProblem) problems.push(dbProblem);

  let encryptionKeys: Buffer[] = [];
  if (e.ENCRYPTION_KEY) {
    const decoded = decodeEncryptionKeys(e.ENCRYPTION_KEY);
    if (decoded.problem) problems.push(decoded.problem);
    encryptionKeys = decoded.keys;
  } else if (mode === 'oauth') {
    problems.push(
      'ENCRYPTION_KEY: is required in OAuth mode, because workspace tokens are stored encrypted. Generate one with: openssl rand -base64 32',
    );
  }

  let webhookSecrets: string[] | undefined;
  if (e.TRUNK_WEBHOOK_SECRET) {
    const list = splitWebhookSecrets(e.TRUNK_WEBHOOK_SECRET);
    const problem = webhookSecretsProblem(list);
    if (problem) problems.push(`TRUNK_WEBHOOK_SECRET: ${problem}`);
    else if (mode === 'oauth')
      problems.push(
        'TRUNK_WEBHOOK_SECRET: is for single-workspace mode; with OAuth install each workspace enters its secrets in /mergequeue connect',
      );
    else webhookSecrets = list;
  }

  // A deployment that lost its Slack variables must not quietly serve the sandbox in their place.
  const productionSettings = [
    e.NODE_ENV === 'production' ? 'NODE_ENV=production' : undefined,
    e.DATABASE_URL ? 'DATABASE_URL' : undefined,
    e.TRUNK_API_TOKEN ? 'TRUNK_API_TOKEN' : undefined,
    e.ENCRYPTION_KEY ? 'ENCRYPTION_KEY' : undefined,
  ].filter((s): s is string => s !== undefined);
  if (!anySlack && productionSettings.length > 0 && !opts.tool)
    problems.push(
      `Slack variables: none is set, but production settings are (${productionSettings.join(', ')}), so the local sandbox will not start in place of the real app.\n${SLACK_VARIABLES}\n  (To try the sandbox, unset ${productionSettings.map((p) => p.split('=')[0]).join(', ')}.)`,
    );
  if (problems.length > 0) throw new ConfigError(problems);

  const slack: SlackConfig = {
    mode,
    transport: e.SLACK_APP_TOKEN ? 'socket' : 'http',
    apiUrl: withTrailingSlash(e.SLACK_API_URL ?? 'https://slack.com/api/'),
  };
  if (e.SLACK_SIGNING_SECRET) slack.signingSecret = e.SLACK_SIGNING_SECRET;
  if (e.SLACK_BOT_TOKEN) slack.botToken = e.SLACK_BOT_TOKEN;
  if (e.SLACK_APP_TOKEN) slack.appToken = e.SLACK_APP_TOKEN;
  if (e.SLACK_CLIENT_ID) slack.clientId = e.SLACK_CLIENT_ID;
  if (e.SLACK_CLIENT_SECRET) slack.clientSecret = e.SLACK_CLIENT_SECRET;
  if (e.SLACK_STATE_SECRET) slack.stateSecret = e.SLACK_STATE_SECRET;

  const trunk: Config['trunk'] = {
    apiUrl: withoutTrailingSlash(e.TRUNK_API_URL ?? 'https://api.trunk.io'),
    appUrl: withoutTrailingSlash(e.TRUNK_APP_URL ?? 'https://app.trunk.io'),
    maxRps: e.TRUNK_MAX_RPS ?? 10,
  };
  if (e.TRUNK_API_TOKEN) trunk.token = e.TRUNK_API_TOKEN;
  if (e.TRUNK_API_KEY) trunk.v2Key = e.TRUNK_API_KEY;
  if (e.TRUNK_ORG_SLUG) trunk.orgSlug = e.TRUNK_ORG_SLUG;
  if (webhookSecrets) trunk.webhookSecrets = webhookSecrets;

  const config: Config = {
    port: e.PORT ?? 3000,
    logLevel: e.LOG_LEVEL ?? 'info',
    slack,
    trunk,
    database: db!,
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS ?? 5_000,
      queryMs: e.DATABASE_QUERY_TIMEOUT_MS ?? 5_000,
    },
    encryptionKeys,
    digest: {
      graceHours: e.DIGEST_GRACE_HOURS ?? 6,
      schedulerEnabled:
        e.SCHEDULER_ENABLED === undefined ? true : ['true', '1'].includes(e.SCHEDULER_ENABLED),
    },
    watch: {
      intervalSeconds: e.WATCH_INTERVAL_SECONDS ?? 20,
      liveStatusHours: e.LIVE_STATUS_HOURS ?? 12,
      stuckMinutes: e.STUCK_MINUTES ?? 45,
      pausedReminderHours: e.PAUSED_REMINDER_HOURS ?? 4,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS ?? 10_000,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS ?? 90,
    historyDays: e.HISTORY_DAYS ?? 90,
  };
  if (defaultTarget) config.defaultTarget = defaultTarget;
  return config;
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
