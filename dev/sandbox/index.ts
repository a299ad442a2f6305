/**
 * Sandbox mode: what `npm start` runs when no Slack credentials are set. The real app, unchanged, with
 * everything it talks to started in this process on loopback: the fake Slack Web API (with a pretend
 * workspace, channel and two people), the fake Trunk API seeded with believable data, and an SQLite file
 * of its own. Credentials (signing secret, bot token, Trunk token, encryption key) are generated in memory
 * for this run, so nothing needs configuring and nothing is reused. The page at /sandbox drives the app
 * through the same signed POST /slack/events that Slack uses.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, EVENTS_PATH, type RunningApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { parseTarget } from '../../src/core/target.ts';
import type { SandboxModule } from '../../src/main.ts';
import { createLogger, type Logger } from '../../src/observability/log.ts';
import { type SlackFake, startSlackFake } from '../fakes/slack/server.ts';
import { signedHeaders } from '../fakes/slack/signing.ts';
import { newWebhookSecret, startTrunkFake, type TrunkFake } from '../fakes/trunk/index.ts';
import { Conversation } from './conversation.ts';
import {
  BOT_ID,
  BOT_USER_ID,
  CHANNEL_ID,
  CHANNEL_NAME,
  fakeUser,
  TEAM_DOMAIN,
  TEAM_ID,
  USERS,
} from './people.ts';
import { createSandboxRoutes } from './routes.ts';
import { SANDBOX_DEFAULT_REPO, SANDBOX_ORG, seedTrunk, seedTrunkHistory, seedTrunkV2 } from './seed.ts';
import { ACTIVITY_AUTHORS, ACTIVITY_SEED, createStory, kickTwo, seedApp } from './story.ts';
import { createReleaseFreeze } from './workflow.ts';

/** WATCH_INTERVAL_SECONDS' minimum (src/config.ts). */
const MIN_WATCH_SECONDS = 5;

export interface SandboxOptions {
  logger?: Logger;
  /** Listen address; default 127.0.0.1 (the sandbox has no accounts, so it is not offered to the network). */
  host?: string;
  /** SQLite file; default a fresh file in a temporary directory, removed on stop. */
  databasePath?: string;
  /**
   * How often the story moves on by itself (story.ts: the operator's PR fails, then the queues move on
   * their own); 0: only when someone asks (the page's "Move the queues", or `step()`). Default
   * SANDBOX_ACTIVITY_SECONDS, else 15 s.
   */
  activityIntervalMs?: number;
  /** The app's clock (tests move it past the watch interval); default Date.now. */
  clock?: () => number;
}

export interface Sandbox {
  /** The page, e.g. http://127.0.0.1:3000/sandbox */
  readonly url: string;
  readonly app: RunningApp;
  readonly slack: SlackFake;
  readonly trunk: TrunkFake;
  /** One step of the story (what the page's "Move the queues" does); says what happened. */
  step(): string[];
  stop(): Promise<void>;
}

/** Seconds from SANDBOX_ACTIVITY_SECONDS (0 stops the queues), else 15. */
function activityIntervalFromEnv(): number {
  const raw = process.env['SANDBOX_ACTIVITY_SECONDS'];
  const n = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : 15_000;
}

export async function startSandbox(config: Config, opts: SandboxOptions = {}): Promise<Sandbox> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const signingSecret = randomBytes(32).toString('hex');
  const botToken = `xoxb-sandbox-${randomBytes(16).toString('hex')}`;
  const trunkToken = randomBytes(24).toString('base64url');
  // Trunk v2 needs its own key (`why`, `eta`): generated here like the v1 token, never a real one.
  const trunkV2Key = `trunk_v2_sandbox_${randomBytes(16).toString('hex')}`;
  const viewerTz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => undefined);
    cleanups.length = 0;
  };

  try {
    const slack = await startSlackFake({
      tokens: {
        [botToken]: { teamId: TEAM_ID, teamName: TEAM_DOMAIN, userId: BOT_USER_ID, botId: BOT_ID },
      },
      acceptAnyBotToken: false,
      defaultTeamId: TEAM_ID,
      users: Object.values(USERS).map((u) => fakeUser(u, viewerTz)),
      channels: [{ id: CHANNEL_ID, name: CHANNEL_NAME }],
    });
    cleanups.push(() => slack.close());

    // The queues move only when the story steps them (story.ts), never on the fake's own timer.
    const trunk = await startTrunkFake({
      tokens: [trunkToken],
      orgSlug: SANDBOX_ORG,
      maxRecorded: 2_000,
      activity: { seed: ACTIVITY_SEED, authors: ACTIVITY_AUTHORS },
    });
    cleanups.push(() => trunk.close());
    seedTrunk(trunk);
    seedTrunkV2(trunk, trunkV2Key);
    seedTrunkHistory(trunk);
    const story = createStory(trunk);

    let databasePath = opts.databasePath;
    if (!databasePath) {
      const dir = mkdtempSync(join(tmpdir(), 'mergequeue-sandbox-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      databasePath = join(dir, 'sandbox.db');
    }

    // The fake Trunk's webhooks reach the app as Svix would deliver them: the feed moves within a second.
    const webhookSecret = newWebhookSecret();
    const sandboxConfig: Config = {
      ...config,
      trunk: {
        ...config.trunk,
        apiUrl: trunk.url,
        token: trunkToken,
        v2Key: trunkV2Key,
        orgSlug: SANDBOX_ORG,
        webhookSecrets: [webhookSecret],
      },
      database: { kind: 'sqlite', path: databasePath },
      // Single-workspace mode stores no secret, but a key keeps `connect` working in the sandbox too.
      encryptionKeys: [randomBytes(32)],
      // The shortest poll the app allows, so what the story does shows within seconds.
      watch: { ...config.watch, intervalSeconds: MIN_WATCH_SECONDS },
    };
    // `/mergequeue status` works straight away: DEFAULT_REPO if set, else the busiest seeded queue.
    const seeded = parseTarget(SANDBOX_DEFAULT_REPO);
    if (!config.defaultTarget && seeded.ok) sandboxConfig.defaultTarget = seeded.value;

    const conversation = new Conversation(slack, Object.values(USERS));
    void conversation.follow();
    cleanups.push(() => conversation.stop());

    let eventsUrl: string | undefined;
    let app: RunningApp | undefined;
    // The "Release freeze" workflow (workflow.ts): its steps reach the app as Slack sends them, signed.
    const releaseFreeze = createReleaseFreeze({
      slack,
      trunk,
      conversation,
      sendEvent: async (body) => {
        if (!eventsUrl) throw new Error('The app is still starting. Try again in a moment.');
        const res = await fetch(eventsUrl, {
          method: 'POST',
          headers: signedHeaders(signingSecret, body, { contentType: 'application/json' }),
          body,
        });
        await res.text();
        return res.status;
      },
    });
    const routes = createSandboxRoutes({
      conversation,
      signingSecret,
      eventsUrl: () => eventsUrl,
      step: () => story.step(),
      workflow: (user) => releaseFreeze.next(user),
      newestDigestId: async () => {
        if (!app) return undefined;
        const rows = await app.store.db.query<{ id: string }>(
          'SELECT id FROM digest_subscriptions WHERE workspace_id = $1 AND channel_id = $2 ORDER BY created_at DESC LIMIT 1',
          [TEAM_ID, CHANNEL_ID],
        );
        return rows[0]?.id;
      },
      unfurlDomains: [new URL(sandboxConfig.trunk.appUrl).host.toLowerCase(), 'github.com'],
      canvases: () =>
        slack.canvases.filter(
          (c) =>
            !c.deleted && (c.channelId === CHANNEL_ID || c.access.some((a) => a.channelId === CHANNEL_ID)),
        ),
      setTimeZone: (tz) => {
        for (const u of Object.values(USERS)) slack.addUser(fakeUser(u, tz));
      },
    });

    const running = await createApp(sandboxConfig, {
      logger,
      // Slow queues are looked at every 30 s rather than 10 min, and dashboards every 10 s, so both show soon.
      slow: { everyMs: 30_000 },
      dashboards: { everyMs: 10_000 },
      ...(opts.clock ? { clock: opts.clock } : {}),
      http: { host: opts.host ?? '127.0.0.1', customRoutes: routes },
      slack: { signingSecret, botToken, apiUrl: slack.url },
    });
    app = running;
    cleanups.push(() => running.stop());
    await seedApp(running.store.db, { now: (opts.clock ?? Date.now)(), tz: viewerTz });
    // Pasted GitHub PR links unfurl in the sandbox's workspace (as after `/mergequeue config unfurl github on`).
    await running.store.setUnfurlGithub(TEAM_ID, true, BOT_USER_ID);
    await running.start();
    eventsUrl = `http://127.0.0.1:${running.port}${EVENTS_PATH}`;
    trunk.webhooks.subscribe(`http://127.0.0.1:${running.port}/trunk/webhooks/${TEAM_ID}`, webhookSecret, {
      types: ['pull_request.', 'pull_request_batch.', 'v2.test_case.'],
    });
    // Issue 29: two kicks, one by a check that is flaky here (the autopilot re-submits it), one real.
    kickTwo(trunk);
    const every = opts.activityIntervalMs ?? activityIntervalFromEnv();
    if (every > 0) {
      const timer = setInterval(() => story.step(), every);
      timer.unref();
      cleanups.push(() => clearInterval(timer));
    }

    return {
      url: `${running.url}/sandbox`,
      app: running,
      slack,
      trunk,
      step: () => story.step(),
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

// src/main.ts loads this module by path, so the compiler cannot link the two: this line checks the match.
startSandbox satisfies SandboxModule['startSandbox'];
