// Black-box harness: runs the app as documented (`npm start` with environment variables) and talks to
// it over HTTP exactly as Slack would (signed form-encoded requests to POST /slack/events).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { FakeSlack, Json, SlackCall } from './fakes.ts';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface AppProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  exitCode(): number | null | undefined;
  stop(): Promise<void>;
}

/** Environment a newcomer would have: PATH/HOME and only the variables given. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

export function startProcess(env: Record<string, string>, port: number): AppProcess {
  // detached: the app gets its own process group, so stop() ends npm and node together by group id.
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (c, signal) => {
      code = c ?? (signal ? -1 : null);
      resolve(code);
    });
  });
  const killGroup = (sig: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  return {
    child,
    port,
    output: () => out + err,
    stdout: () => out,
    stderr: () => err,
    exited,
    exitCode: () => code,
    stop: async () => {
      const pgid = child.pid;
      if (!pgid) return;
      // npm may exit before node has finished its graceful shutdown: wait for the whole group to be gone.
      if (groupMembers(pgid).length > 0) killGroup('SIGTERM');
      const deadline = Date.now() + 8000;
      while (groupMembers(pgid).length > 0 && Date.now() < deadline) await sleep(50);
      if (groupMembers(pgid).length > 0) killGroup('SIGKILL');
      if (code === undefined) await exited;
    },
  };
}

/** Process ids in a process group (Linux /proc). */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      // process gone
    }
  }
  return out;
}

/** The app's node process under `npm start` (same process group, runs main.ts). */
export function nodePidInGroup(pgid: number): number | undefined {
  for (const pid of groupMembers(pgid)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (/(^|\/)node$/.test(cmd[0] ?? '') && cmd.some((a) => /main\.[tj]s$/.test(a))) return pid;
    } catch {
      // process gone
    }
  }
  return undefined;
}

export async function waitForHealthy(app: AppProcess, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.exitCode() !== undefined) {
      throw new Error(`app exited with ${app.exitCode()} before /healthz answered:\n${app.output()}`);
    }
    try {
      const r = await fetch(`http://127.0.0.1:${app.port}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  throw new Error(`app did not answer /healthz within ${timeoutMs} ms:\n${app.output()}`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function sign(secret: string, ts: number, body: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex');
}

export interface PostResult {
  status: number;
  text: string;
  ms: number;
}

export async function postSlack(
  port: number,
  body: string,
  opts: { secret: string; ts?: number; signature?: string },
): Promise<PostResult> {
  const ts = opts.ts ?? Math.floor(Date.now() / 1000);
  const started = performance.now();
  const r = await fetch(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': opts.signature ?? sign(opts.secret, ts, body),
    },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await r.text();
  return { status: r.status, text, ms: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------------
// Correlating answers: each command gets its own channel id, response_url and trigger_id.

export interface Corr {
  id: string;
  channel: string;
  trigger: string;
  user: string;
}

let seq = 0;
export function newCorr(user: string): Corr {
  seq += 1;
  const n = `${Date.now().toString(36)}${seq}`.toUpperCase();
  return { id: `r${n}`, channel: `C${n}`, trigger: `${seq}.${Date.now()}.trig${n}`, user };
}

export function slashBody(
  text: string,
  corr: Corr,
  fake: FakeSlack,
  teamId: string,
  userName: string,
): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: teamId,
    team_domain: 'acme',
    channel_id: corr.channel,
    channel_name: `chan-${corr.channel.toLowerCase()}`,
    user_id: corr.user,
    user_name: userName,
    command: '/mergequeue',
    text,
    api_app_id: 'A0ACCEPT',
    is_enterprise_install: 'false',
    response_url: fake.responseUrl(corr.id),
    trigger_id: corr.trigger,
  }).toString();
}

export interface Answer {
  via: string; // 'ack' | 'response_url' | Slack method name
  body: Json;
  text: string;
  ts?: string;
}

/** Every string value in a payload (text, blocks, attachments, views), so wording checks see all of it. */
export function allStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) allStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) allStrings(x, out);
  return out;
}

/** Human-visible strings only: text fields of messages/blocks (not ids, urls, values). */
export function visibleText(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) visibleText(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string') {
        if (k === 'text' || k === 'fallback' || k === 'pretext' || k === 'title' || k === 'alt_text')
          out.push(x);
      } else visibleText(x, out);
    }
  }
  return out;
}

export function answerFromAck(ack: PostResult): Answer | undefined {
  if (!ack.text.trim()) return undefined;
  try {
    const body = JSON.parse(ack.text) as Json;
    const text = visibleText(body).join('\n');
    return text.trim() ? { via: 'ack', body, text } : undefined;
  } catch {
    return { via: 'ack', body: { text: ack.text }, text: ack.text };
  }
}

export function answersFor(fake: FakeSlack, corr: Corr, ack?: PostResult): Answer[] {
  const out: Answer[] = [];
  if (ack) {
    const a = answerFromAck(ack);
    if (a) out.push(a);
  }
  for (const r of fake.responses) {
    if (r.id === corr.id)
      out.push({ via: 'response_url', body: r.body, text: visibleText(r.body).join('\n') });
  }
  for (const c of fake.calls) {
    if (isForCorr(c, corr)) {
      const a: Answer = { via: c.method, body: c.body, text: visibleText(c.body).join('\n') };
      if (c.ts) a.ts = c.ts;
      out.push(a);
    }
  }
  return out;
}

function isForCorr(c: SlackCall, corr: Corr): boolean {
  if (c.method.startsWith('chat.')) return c.body['channel'] === corr.channel;
  if (c.method === 'views.open' || c.method === 'views.push') return c.body['trigger_id'] === corr.trigger;
  return false;
}

export async function waitForAnswer(
  fake: FakeSlack,
  corr: Corr,
  ack: PostResult | undefined,
  pred: (text: string, answers: Answer[]) => boolean,
  timeoutMs = 10_000,
): Promise<Answer[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answers = answersFor(fake, corr, ack);
    const text = answers.map((a) => a.text).join('\n');
    if (answers.length > 0 && pred(text, answers)) return answers;
    if (Date.now() > deadline) {
      throw new Error(
        `no matching answer within ${timeoutMs} ms; ack=${ack ? `${ack.status} ${ack.text.slice(0, 500)}` : '-'}; answers so far:\n` +
          JSON.stringify(answers, null, 1).slice(0, 4000),
      );
    }
    await sleep(60);
  }
}

export interface Button {
  action_id: string;
  block_id: string | undefined;
  value: string | undefined;
  text: string;
  url: string | undefined;
  /** The button carries a Block Kit confirm dialog (Slack asks before the click reaches the app). */
  hasConfirm: boolean;
}

export function buttonsIn(body: unknown): Button[] {
  const out: Button[] = [];
  const walk = (v: unknown, blockId: string | undefined): void => {
    if (Array.isArray(v)) for (const x of v) walk(x, blockId);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      const bid = typeof o['block_id'] === 'string' ? (o['block_id'] as string) : blockId;
      if (o['type'] === 'button' && typeof o['action_id'] === 'string') {
        out.push({
          action_id: o['action_id'] as string,
          block_id: bid,
          value: typeof o['value'] === 'string' ? (o['value'] as string) : undefined,
          text: visibleText(o['text']).join(' ') || String((o['text'] as Json | undefined)?.['text'] ?? ''),
          url: typeof o['url'] === 'string' ? (o['url'] as string) : undefined,
          hasConfirm: Boolean(o['confirm'] && typeof o['confirm'] === 'object'),
        });
      }
      for (const x of Object.values(o)) walk(x, bid);
    }
  };
  walk(body, undefined);
  return out;
}

let clickSeq = 0;

/** A block_actions payload as Slack sends it when a user clicks a button on a message. */
export function clickBody(
  button: Button,
  answer: Answer,
  corr: Corr,
  fake: FakeSlack,
  teamId: string,
  userName: string,
): string {
  const ts = answer.ts ?? `${Math.floor(Date.now() / 1000)}.000100`;
  const payload = {
    type: 'block_actions',
    team: { id: teamId, domain: 'acme' },
    user: { id: corr.user, username: userName, name: userName, team_id: teamId },
    api_app_id: 'A0ACCEPT',
    token: 'legacy-verification-token',
    container: {
      type: 'message',
      message_ts: ts,
      channel_id: corr.channel,
      is_ephemeral: answer.via !== 'chat.postMessage' && answer.via !== 'chat.update',
    },
    // Slack gives every click its own trigger_id.
    trigger_id: `${corr.trigger}.click${++clickSeq}`,
    channel: { id: corr.channel, name: `chan-${corr.channel.toLowerCase()}` },
    message: {
      type: 'message',
      ts,
      text: answer.body['text'] ?? '',
      blocks: answer.body['blocks'] ?? [],
      bot_id: 'B0BOT',
    },
    response_url: fake.responseUrl(`${corr.id}-click`),
    actions: [
      {
        type: 'button',
        action_id: button.action_id,
        block_id: button.block_id,
        value: button.value,
        text: { type: 'plain_text', text: button.text },
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

// Things that must never reach a Slack user.
export const STACK_FRAME = /^\s*at .+(\(|:\d+:\d+)/m;
export const ERROR_DUMP =
  /\b(TypeError|ReferenceError|SyntaxError|RangeError|ZodError|AbortError|Error): .*\n\s*at /;
export const RAW_ERROR_NAME =
  /\b(TypeError|ReferenceError|SyntaxError|RangeError|ZodError|undefined is not|Cannot read propert)/;

/** state.values for a modal as Slack would send it with the initial values left alone, plus `changes`. */
export function viewStateValues(view: Json, changes: Record<string, unknown> = {}): Json {
  const values: Json = {};
  for (const block of (view['blocks'] as Json[] | undefined) ?? []) {
    if (block['type'] !== 'input') continue;
    const el = block['element'] as Json;
    const bid = String(block['block_id']);
    const aid = String(el['action_id']);
    let v: Json;
    switch (el['type']) {
      case 'static_select':
      case 'radio_buttons':
      case 'external_select':
        v = { type: el['type'], selected_option: el['initial_option'] ?? null };
        break;
      case 'checkboxes':
      case 'multi_static_select':
        v = { type: el['type'], selected_options: el['initial_options'] ?? [] };
        break;
      case 'users_select':
        v = { type: el['type'], selected_user: el['initial_user'] ?? null };
        break;
      case 'conversations_select':
      case 'channels_select':
        v = { type: el['type'], selected_conversation: el['initial_conversation'] ?? null };
        break;
      default:
        v = { type: el['type'], value: el['initial_value'] ?? null };
    }
    if (bid in changes) v = { ...v, value: changes[bid] };
    values[bid] = { [aid]: v };
  }
  return values;
}

export function viewSubmissionBody(
  view: Json,
  viewId: string,
  user: string,
  teamId: string,
  changes: Record<string, unknown>,
): string {
  const payload = {
    type: 'view_submission',
    team: { id: teamId, domain: 'acme' },
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: teamId },
    api_app_id: 'A0ACCEPT',
    token: 'legacy-verification-token',
    trigger_id: `${Date.now()}.submit${++clickSeq}`,
    view: {
      id: viewId,
      team_id: teamId,
      type: 'modal',
      callback_id: view['callback_id'],
      private_metadata: view['private_metadata'] ?? '',
      title: view['title'],
      blocks: view['blocks'],
      state: { values: viewStateValues(view, changes) },
      hash: 'h1',
      root_view_id: viewId,
      previous_view_id: null,
      app_id: 'A0ACCEPT',
      bot_id: 'B0BOT',
    },
    response_urls: [],
    is_enterprise_install: false,
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
