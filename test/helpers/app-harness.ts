/**
 * Starts the real app against the fake Slack Web API and the fake Trunk API, all on 127.0.0.1, and
 * talks to it the way Slack does: signed x-www-form-urlencoded slash commands, block_actions clicks and
 * view submissions, and JSON Events API callbacks. In-process (createApp) for most tests; as a child
 * process (`node src/main.ts`) for process-level tests and benchmarks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type FakeMessage,
  type FakeView,
  type SlackFake,
  type SlackFakeOptions,
  startSlackFake,
} from '../../dev/fakes/slack/server.ts';
import {
  blockActionsPayload,
  eventCallbackBody,
  homeActionsPayload,
  interactiveBody,
  signedHeaders,
  slashCommandBody,
  type ViewStateValue,
  viewSubmissionPayload,
} from '../../dev/fakes/slack/signing.ts';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { type AppOverrides, createApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { type AppProcessSeams, appProcessArgs } from './app-process.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

export interface Sent {
  status: number;
  /** The raw ack body (empty for a plain ack). */
  text: string;
  /** Milliseconds from sending to the complete ack. */
  ackMs: number;
  responseUrl: string;
}

export interface CommandOptions {
  user?: string;
  channel?: string;
  team?: string;
  enterprise?: string;
  /** The user's own team in interactive payloads (`user.team_id`), when not the workspace's. */
  userTeam?: string;
  triggerId?: string;
  /** Override signing (bad/stale signature tests). */
  signingSecret?: string;
  timestampSeconds?: number;
  omitSignature?: boolean;
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
  /** Set for a child process; its output so far. */
  readonly child: ChildProcess | undefined;
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
  postSigned(body: string, opts?: CommandOptions & { contentType?: string }): Promise<Sent>;
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
  let child: ChildProcess | undefined;
  let out = '';
  let url: string;
  if (opts.process) {
    const started = await startChild(env, opts.seams ? appProcess(opts.seams) : {});
    child = started.child;
    url = started.url;
    out = started.output();
    const more = (c: Buffer) => {
      out += c.toString();
    };
    child.stdout?.on('data', more);
    child.stderr?.on('data', more);
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

  const post = async (body: string, o: CommandOptions & { contentType?: string } = {}): Promise<Sent> => {
    const headers: Record<string, string> = o.omitSignature
      ? { 'content-type': o.contentType ?? 'application/x-www-form-urlencoded' }
      : {
          ...signedHeaders(o.signingSecret ?? signingSecret, body, {
            ...(o.timestampSeconds !== undefined ? { timestampSeconds: o.timestampSeconds } : {}),
            ...(o.contentType ? { contentType: o.contentType } : {}),
          }),
        };
    const t0 = performance.now();
    const res = await fetch(`${url}/slack/events`, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, text, ackMs: performance.now() - t0, responseUrl: '' };
  };

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
    output: () => out,
    async sendCommand(text, o = {}) {
      const channel = o.channel ?? CHANNEL;
      const responseUrl = slack.responseUrl({ channel, user: o.user ?? USERS.member });
      const body = slashCommandBody({
        ...actor(o),
        text,
        channelId: channel,
        responseUrl,
        ...(o.triggerId ? { triggerId: o.triggerId } : {}),
      });
      return { ...(await post(body, o)), responseUrl };
    },
    async clickButton(o) {
      const { message } = o;
      const button = findAction(message.blocks ?? [], o.actionId);
      if (!button && o.value === undefined)
        throw new Error(`no button with action_id ${o.actionId} on message ${message.ts}`);
      const responseUrl = slack.responseUrl({
        channel: message.channel,
        user: o.user ?? USERS.member,
        messageTs: message.ts,
      });
      const value = o.value ?? (typeof button?.['value'] === 'string' ? button['value'] : undefined);
      const payload = blockActionsPayload({
        ...actor(o),
        channelId: message.channel,
        messageTs: message.ts,
        message: { ...(message.text ? { text: message.text } : {}), blocks: message.blocks ?? [] },
        actionId: o.actionId,
        ...(typeof button?.['block_id'] === 'string' ? { blockId: button['block_id'] } : {}),
        ...(value !== undefined ? { value } : {}),
        responseUrl,
        ...(o.triggerId ? { triggerId: o.triggerId } : {}),
      });
      return { ...(await post(interactiveBody(payload), o)), responseUrl };
    },
    async submitView(o) {
      const view = o.view?.view;
      const callbackId =
        o.callbackId ?? (typeof view?.['callback_id'] === 'string' ? view['callback_id'] : '');
      const privateMetadata =
        o.privateMetadata ?? (typeof view?.['private_metadata'] === 'string' ? view['private_metadata'] : '');
      const payload = viewSubmissionPayload({
        ...actor(o),
        callbackId,
        privateMetadata,
        values: o.values,
        ...(o.view ? { viewId: o.view.id } : {}),
        ...(Array.isArray(view?.['blocks']) ? { blocks: view['blocks'] as unknown[] } : {}),
      });
      const sent = await post(interactiveBody(payload), o);
      let json: Record<string, unknown> | undefined;
      if (sent.text) {
        try {
          json = JSON.parse(sent.text) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
      }
      return { ...sent, json };
    },
    async sendEvent(event, o = {}) {
      const body = eventCallbackBody({
        teamId: o.team ?? TEAM,
        ...(o.enterprise ? { enterpriseId: o.enterprise } : {}),
        event,
      });
      return post(body, { ...o, contentType: 'application/json' });
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
      return { ...(await post(interactiveBody(payload), o)), responseUrl: '' };
    },
    postSigned: post,
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
      if (child) await stopChild(child);
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

/** Depth-first search for an interactive element by action_id in Block Kit blocks. */
/** Posts a fresh status message for `target` in CHANNEL and returns it as the fake Slack holds it. */
export async function postStatusMessage(h: Harness, target = 'acme/web:main'): Promise<FakeMessage> {
  const before = h.slack.channelMessages(CHANNEL).length;
  await h.sendCommand(`status ${target}`);
  const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[before]);
  h.trunk.clearRequests();
  return msg;
}

/** Every interactive element with this action_id, in the order the blocks show them. */
export function findActions(blocks: unknown[], actionId: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) walk(n);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o['action_id'] === actionId) found.push(o);
      for (const v of Object.values(o)) if (v && typeof v === 'object') walk(v);
    }
  };
  walk(blocks);
  return found;
}

export function findAction(blocks: unknown[], actionId: string): Record<string, unknown> | undefined {
  const stack: unknown[] = [...blocks];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
    } else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o['action_id'] === actionId) return o;
      for (const v of Object.values(o)) if (v && typeof v === 'object') stack.push(v);
    }
  }
  return undefined;
}

/** All visible text of Block Kit blocks plus the fallback text, for assertions. */
export function textOf(message: { text?: unknown; blocks?: unknown } | undefined): string {
  if (!message) return '';
  const parts: string[] = [];
  if (typeof message.text === 'string') parts.push(message.text);
  const stack: unknown[] = [message.blocks];
  while (stack.length) {
    const node = stack.shift();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (typeof o['text'] === 'string') parts.push(o['text']);
      for (const v of Object.values(o)) if (v && typeof v === 'object') stack.push(v);
    }
  }
  return parts.join('\n');
}

/** startChild options that run the test entry (the app with `seams` as createApp overrides). */
export function appProcess(seams: AppProcessSeams): { script: string; scriptArgs: string[] } {
  return { script: join(ROOT, 'test/helpers/app-process.ts'), scriptArgs: appProcessArgs(seams) };
}

/** `node src/main.ts` (or another script) with env; resolves once it logs the URL it listens on. */
export async function startChild(
  env: Record<string, string>,
  opts: { timeoutMs?: number; args?: string[]; script?: string; scriptArgs?: string[] } = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const script = opts.script ?? join(ROOT, 'src/main.ts');
  const child = spawn(process.execPath, [...(opts.args ?? []), script, ...(opts.scriptArgs ?? [])], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`app did not start within ${opts.timeoutMs ?? 15_000} ms:\n${out}`));
    }, opts.timeoutMs ?? 15_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
}

/**
 * view.state.values as Slack reports them for an untouched modal: every input block with its initial
 * value. Tests then change the fields a person would edit.
 */
export function stateFromView(view: Record<string, unknown>): Record<string, Record<string, ViewStateValue>> {
  const out: Record<string, Record<string, ViewStateValue>> = {};
  for (const block of (view['blocks'] as Array<Record<string, unknown>>) ?? []) {
    if (block['type'] !== 'input') continue;
    const el = block['element'] as Record<string, unknown>;
    const blockId = String(block['block_id']);
    const actionId = String(el['action_id']);
    let value: ViewStateValue;
    switch (el['type']) {
      case 'static_select':
      case 'radio_buttons':
        value = {
          type: String(el['type']),
          selected_option: (el['initial_option'] as { value: string }) ?? null,
        };
        break;
      case 'checkboxes':
        value = {
          type: 'checkboxes',
          selected_options: (el['initial_options'] as Array<{ value: string }>) ?? [],
        };
        break;
      default:
        value = { type: String(el['type']), value: (el['initial_value'] as string | undefined) ?? null };
    }
    out[blockId] = { [actionId]: value };
  }
  return out;
}
