/**
 * The app against the project's fake Slack Web API and fake Trunk API (dev/fakes), all on 127.0.0.1:
 * in-process (createApp) for most tests, as a child process (test/helpers/app-process.ts, through
 * processes.ts) for process-level tests and benchmarks. Requests go out through slack-requests.ts, signed
 * as Slack signs them; replies are read back from the fake Slack with block-kit-reading.ts. The acceptance
 * suite (test/acceptance) uses the same three modules against its own, independently written fakes.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FakeMessage,
  type FakeView,
  type SlackFake,
  type SlackFakeOptions,
  startSlackFake,
} from '../../dev/fakes/slack/server.ts';
import { homeActionsPayload, interactiveBody, type ViewStateValue } from '../../dev/fakes/slack/signing.ts';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { type AppOverrides, createApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { PeopleRepository } from '../../src/watch/index.ts';
import { type AppProcessSeams, appProcessArgs } from './app-process.ts';
import { findActions } from './block-kit-reading.ts';
import { type Child, ROOT, startChild } from './processes.ts';
import {
  type AppEndpoint,
  actionOn,
  clickOn,
  postSigned,
  type SendOptions,
  type Sent as SignedSent,
  sendClick,
  sendCommand,
  sendEvent,
  sendSubmission,
} from './slack-requests.ts';

/** People in the default fake workspace. */
export const USERS = {
  admin: 'UADMIN0001',
  owner: 'UOWNER0001',
  member: 'UMEMBER001',
  operator: 'UOPER00001',
} as const;
export const TEAM = 'T0DEFAULT';
export const CHANNEL = 'C0GENERAL1';
export const TRUNK_TOKEN = 'test-token';
export const BOT_TOKEN = 'xoxb-test-single-workspace';

export interface HarnessOptions {
  /** Extra or replacing environment variables (values undefined delete a default). */
  env?: Record<string, string | undefined>;
  /** 'single' (default): SLACK_BOT_TOKEN; 'oauth': client id/secret/state secret. */
  mode?: 'single' | 'oauth';
  slack?: SlackFake;
  slackOptions?: SlackFakeOptions;
  trunk?: TrunkFake;
  /** Start the app as `node src/main.ts` in a child process instead of in this process. */
  process?: boolean;
  /** Child process only: seams handed to createApp through the test entry test/helpers/app-process.ts. */
  seams?: AppProcessSeams;
  /** In-process only: extra createApp overrides (e.g. a shorter Trunk deadline). */
  app?: AppOverrides;
}

export interface Sent extends SignedSent {
  /** The response_url handed to the app (empty where Slack gives none). */
  responseUrl: string;
}

export interface CommandOptions extends Omit<SendOptions, 'contentType'> {
  user?: string;
  channel?: string;
  team?: string;
  enterprise?: string;
  /** The user's own team in interactive payloads (`user.team_id`), when not the workspace's. */
  userTeam?: string;
  triggerId?: string;
}

export interface ClickOptions extends CommandOptions {
  /** The message the button is on; its blocks are searched for the action. */
  message: FakeMessage | { channel: string; ts: string; blocks?: unknown[]; text?: string };
  actionId: string;
  /** Overrides the button's own value (tampering tests). */
  value?: string;
}

export interface HomeClickOptions extends CommandOptions {
  /** The published Home (views.publish) the button is on. */
  home: FakeView;
  actionId: string;
  /** Which of several buttons with this action id (the Home has one per queue); default the first. */
  index?: number;
  value?: string;
}

export interface SubmitOptions extends CommandOptions {
  /** The opened view (callback_id and private_metadata are taken from it) or explicit fields. */
  view?: FakeView;
  callbackId?: string;
  privateMetadata?: string;
  values: Record<string, Record<string, ViewStateValue>>;
}

export interface Harness {
  readonly url: string;
  readonly slack: SlackFake;
  readonly trunk: TrunkFake;
  readonly signingSecret: string;
  readonly env: Record<string, string>;
  /** Set in-process. */
  readonly app: RunningApp | undefined;
  /** Set for a child process. */
  readonly child: Child | undefined;
  /** The child's output so far ('' in-process). */
  output(): string;
  sendCommand(text: string, opts?: CommandOptions): Promise<Sent>;
  clickButton(opts: ClickOptions): Promise<Sent>;
  submitView(opts: SubmitOptions): Promise<Sent & { json: Record<string, unknown> | undefined }>;
  sendEvent(event: Record<string, unknown>, opts?: CommandOptions): Promise<Sent>;
  /** Opens the app's Home tab as `user` (app_home_opened) and waits for the Home the app publishes. */
  openHome(user: string, opts?: CommandOptions): Promise<FakeView>;
  /** The Home views published for a user so far, oldest first. */
  homes(user: string): FakeView[];
  /** Clicks a button on a published Home tab (no channel, message or response_url). */
  clickHome(opts: HomeClickOptions): Promise<Sent>;
  /** Raw signed POST to /slack/events. */
  postSigned(body: string, opts?: SendOptions): Promise<Sent>;
  /** First reply posted to a response_url (waits). */
  reply(responseUrl: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Every reply posted to a response_url so far. */
  replies(responseUrl: string): Array<Record<string, unknown>>;
  /** Resolves when the in-process app has no listener work in flight (between tests). */
  idle(timeoutMs?: number): Promise<void>;
  /** Between tests: wait until idle, then forget recorded Slack calls, Trunk faults and Trunk requests. */
  reset(): Promise<void>;
  /** Trunk requests recorded so far of an operation. */
  trunkCalls(operation?: string): TrunkFake['requests'];
  close(): Promise<void>;
}

export function defaultUsers(): NonNullable<SlackFakeOptions['users']> {
  return [
    { id: USERS.admin, name: 'ada', isAdmin: true, tz: 'Europe/London' },
    { id: USERS.owner, name: 'olive', isOwner: true, tz: 'America/New_York' },
    { id: USERS.member, name: 'mel', tz: 'Asia/Tokyo' },
    { id: USERS.operator, name: 'otto', tz: 'UTC' },
  ];
}

/**
 * Links `person` to their GitHub login in the in-process app's store, as an operator's `config people` does
 * (verified: they may act on their own PRs); answers what the store said.
 */
export function linkVerified(
  h: Harness,
  person: { id: string; login: string },
  linkedBy: string = USERS.admin,
) {
  return new PeopleRepository(h.app!.store.db).link({
    workspaceId: TEAM,
    userId: person.id,
    githubLogin: person.login,
    linkedBy,
    verified: true,
    now: Date.now(),
  });
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const ownSlack = !opts.slack;
  const ownTrunk = !opts.trunk;
  const slack = opts.slack ?? (await startSlackFake({ users: defaultUsers(), ...opts.slackOptions }));
  const trunk = opts.trunk ?? (await startTrunkFake({ tokens: [TRUNK_TOKEN] }));
  const dir = mkdtempSync(join(tmpdir(), 'mq-harness-'));
  const signingSecret = randomBytes(16).toString('hex');

  const base: Record<string, string | undefined> = {
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: slack.url,
    TRUNK_API_URL: trunk.url,
    TRUNK_APP_URL: 'https://app.trunk.example',
    DATABASE_URL: `sqlite:${join(dir, 'mq.db')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    LOG_LEVEL: process.env['HARNESS_LOG_LEVEL'] ?? (opts.process ? 'info' : 'silent'),
    SCHEDULER_ENABLED: 'false',
    DEFAULT_REPO: 'acme/web:main',
  };
  if ((opts.mode ?? 'single') === 'single') {
    base['SLACK_BOT_TOKEN'] = BOT_TOKEN;
    base['TRUNK_API_TOKEN'] = TRUNK_TOKEN;
    base['TRUNK_ORG_SLUG'] = 'acme';
  } else {
    base['SLACK_CLIENT_ID'] = 'client-id-1';
    base['SLACK_CLIENT_SECRET'] = 'client-secret-1';
    base['SLACK_STATE_SECRET'] = randomBytes(16).toString('hex');
  }
  const merged = { ...base, ...opts.env };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) env[k] = v;

  let app: RunningApp | undefined;
  let child: Child | undefined;
  let url: string;
  if (opts.process) {
    const started = await startChild(env, opts.seams ? appProcess(opts.seams) : {});
    child = started;
    url = started.url;
  } else {
    const config = loadConfig(env);
    const logger = silentOr(env['LOG_LEVEL']);
    app = await createApp(config, {
      http: { host: '127.0.0.1' },
      ...(logger ? { logger } : {}),
      ...opts.app,
    });
    await app.start();
    url = app.url;
  }

  const endpoint: AppEndpoint = { url, signingSecret };
  const actor = (o: CommandOptions) => ({
    teamId: o.team ?? TEAM,
    userId: o.user ?? USERS.member,
    ...(o.enterprise ? { enterpriseId: o.enterprise } : {}),
    ...(o.userTeam ? { userTeamId: o.userTeam } : {}),
  });

  const harness: Harness = {
    url,
    slack,
    trunk,
    signingSecret,
    env,
    app,
    child,
    output: () => child?.output() ?? '',
    async sendCommand(text, o = {}) {
      const channel = o.channel ?? CHANNEL;
      const responseUrl = slack.responseUrl({ channel, user: o.user ?? USERS.member });
      const input = {
        ...actor(o),
        text,
        channelId: channel,
        responseUrl,
        ...(o.triggerId ? { triggerId: o.triggerId } : {}),
      };
      return { ...(await sendCommand(endpoint, input, o)), responseUrl };
    },
    async clickButton(o) {
      const { message } = o;
      const button = actionOn(message, o.actionId);
      if (!button && o.value === undefined)
        throw new Error(`no button with action_id ${o.actionId} on message ${message.ts}`);
      const responseUrl = slack.responseUrl({
        channel: message.channel,
        user: o.user ?? USERS.member,
        messageTs: message.ts,
      });
      const input = clickOn(actor(o), message, button ?? { action_id: o.actionId }, {
        responseUrl,
        ...(o.triggerId ? { triggerId: o.triggerId } : {}),
        ...(o.value !== undefined ? { value: o.value } : {}),
      });
      return { ...(await sendClick(endpoint, input, o)), responseUrl };
    },
    async submitView(o) {
      const view = o.view?.view;
      const callbackId =
        o.callbackId ?? (typeof view?.['callback_id'] === 'string' ? view['callback_id'] : '');
      const privateMetadata =
        o.privateMetadata ?? (typeof view?.['private_metadata'] === 'string' ? view['private_metadata'] : '');
      const input = {
        ...actor(o),
        callbackId,
        privateMetadata,
        values: o.values,
        ...(o.view ? { viewId: o.view.id } : {}),
        ...(Array.isArray(view?.['blocks']) ? { blocks: view['blocks'] as unknown[] } : {}),
      };
      return { ...(await sendSubmission(endpoint, input, o)), responseUrl: '' };
    },
    async sendEvent(event, o = {}) {
      const input = {
        teamId: o.team ?? TEAM,
        ...(o.enterprise ? { enterpriseId: o.enterprise } : {}),
        event,
      };
      return { ...(await sendEvent(endpoint, input, o)), responseUrl: '' };
    },
    async openHome(user, o = {}) {
      const before = this.homes(user).length;
      const sent = await this.sendEvent(
        { type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' },
        { ...o, user },
      );
      if (sent.status !== 200) throw new Error(`app_home_opened answered ${sent.status}`);
      return slack.waitFor(() => this.homes(user)[before]);
    },
    homes: (user) =>
      slack.views.filter((v) => v.user === user && (v.view as { type?: unknown })['type'] === 'home'),
    async clickHome(o) {
      const buttons = findActions((o.home.view['blocks'] as unknown[] | undefined) ?? [], o.actionId);
      const button = buttons[o.index ?? 0];
      if (!button && o.value === undefined)
        throw new Error(`no button ${o.actionId} on the Home ${o.home.id}`);
      const value = o.value ?? (typeof button?.['value'] === 'string' ? button['value'] : undefined);
      const payload = homeActionsPayload({
        ...actor(o),
        viewId: o.home.id,
        view: o.home.view,
        actionId: o.actionId,
        ...(value !== undefined ? { value } : {}),
        ...(o.triggerId ? { triggerId: o.triggerId } : {}),
      });
      return { ...(await postSigned(endpoint, interactiveBody(payload), o)), responseUrl: '' };
    },
    postSigned: async (body, o) => ({ ...(await postSigned(endpoint, body, o)), responseUrl: '' }),
    async reply(responseUrl, timeoutMs = 5_000) {
      const p = await slack.waitFor(() => slack.postsTo(responseUrl)[0], timeoutMs);
      return p.body;
    },
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (app && app.lifecycle.inFlight() > 0) {
        if (Date.now() > deadline) throw new Error('app still busy');
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async reset() {
      await this.idle();
      slack.clear();
      trunk.resetFaults();
      trunk.clearRequests();
    },
    replies: (responseUrl) => slack.postsTo(responseUrl).map((p) => p.body),
    trunkCalls: (operation) =>
      operation ? trunk.requests.filter((r) => r.operation === operation) : [...trunk.requests],
    async close() {
      if (app) await app.stop();
      if (child) await child.stop();
      if (ownSlack) await slack.close();
      if (ownTrunk) await trunk.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

function silentOr(level: string | undefined) {
  return level === 'silent' || level === undefined ? silentLogger() : undefined;
}

/** Posts a fresh status message for `target` in CHANNEL and returns it as the fake Slack holds it. */
export async function postStatusMessage(h: Harness, target = 'acme/web:main'): Promise<FakeMessage> {
  const before = h.slack.channelMessages(CHANNEL).length;
  await h.sendCommand(`status ${target}`);
  const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[before]);
  h.trunk.clearRequests();
  return msg;
}

/** startChild options that run the test entry (the app with `seams` as createApp overrides). */
export function appProcess(seams: AppProcessSeams): { script: string; scriptArgs: string[] } {
  return { script: join(ROOT, 'test/helpers/app-process.ts'), scriptArgs: appProcessArgs(seams) };
}
