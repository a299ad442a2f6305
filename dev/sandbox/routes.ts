/**
 * The sandbox page server, served on the app's own port beside /slack/events:
 *   GET  /sandbox                the page;  GET /sandbox/static/<file>  its script and styles;
 *   GET  /sandbox/api/events     Server-Sent Events: a snapshot, then every message, update and modal;
 *   GET  /sandbox/api/canvases   the channel's canvases (dashboards), as the fake Slack holds them;
 *   POST /sandbox/api/command | action | submit | close | digest | hello | home   what the person did
 *   (home: they opened the app's Home tab, which Slack tells the app with an app_home_opened event);
 *   POST /sandbox/api/step       the story moves one step (story.ts), as Trunk's side would;
 *   POST /sandbox/api/say        a plain message: links on the app's unfurl domains reach the app as link_shared.
 *   POST /sandbox/api/workflow   the "Release freeze" workflow runs its next step (workflow.ts).
 * Each POST becomes the request Slack itself would send (a slash command form, block_actions, a
 * view_submission, an app_home_opened event), signed with the sandbox's signing secret and posted to the
 * app's /slack/events. The
 * app has no sandbox shortcut: it cannot tell this page from Slack.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import {
  eventCallbackBody,
  interactiveBody,
  newTriggerId,
  signedHeaders,
  slashCommandBody,
} from '../fakes/slack/signing.ts';
import { linkSharedEvent } from '../fakes/slack/unfurl.ts';
import type { Conversation, PageEvent } from './conversation.ts';
import {
  type ActorInfo,
  actionFor,
  clientSideErrors,
  messageActionPayload,
  type PageValues,
  submissionPayload,
  UnknownElementError,
  withBlockIds,
} from './payloads.ts';
import {
  APP_ID,
  BOT_ID,
  BOT_NAME,
  BOT_USER_ID,
  CHANNEL_ID,
  CHANNEL_NAME,
  roleOf,
  type SandboxUser,
  TEAM_DOMAIN,
  TEAM_ID,
  USERS,
} from './people.ts';

export interface SandboxRouteDeps {
  conversation: Conversation;
  signingSecret: string;
  /** The app's POST /slack/events URL; known once the app listens. */
  eventsUrl: () => string | undefined;
  /** The id of this channel's newest digest, for "Run digest now". */
  newestDigestId: () => Promise<string | undefined>;
  /** The viewer's time zone, given to both pretend users (digest times default to it). */
  setTimeZone: (tz: string) => void;
  /** One step of the story: what happened, in words. */
  step: () => string[];
  /** The hosts the app unfurls links of (the manifest's unfurl_domains: TRUNK_APP_URL's host, github.com). */
  unfurlDomains: readonly string[];
  /** The "Release freeze" workflow's next step (workflow.ts), run as `user`. */
  workflow?: (user: SandboxUser) => Promise<string[]>;
  /** The channel's canvases (a `/mergequeue dashboard`), as the fake Slack holds them. */
  canvases?: () => Array<{ id: string; title?: string; markdown: string; channelCanvas: boolean }>;
}

/** The app's DM with a person, as the page names it in payloads (the fake keys DMs by the user's id). */
const DM_NAME = 'directmessage';

const STATIC: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'blockkit.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The page's files, read once: they are small and the page must load fast. */
function loadAssets(): Map<string, Buffer> {
  const dir = new URL('./public/', import.meta.url);
  const files = new Map<string, Buffer>();
  for (const name of ['index.html', ...Object.keys(STATIC)])
    files.set(name, readFileSync(new URL(name, dir)));
  return files;
}

const MAX_BODY = 256 * 1024;

class BadRequest extends Error {}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  // JSON only: a cross-site form cannot send it without a CORS preflight, which this server never allows.
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
    return Promise.reject(new BadRequest('Send JSON (content-type: application/json).'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new BadRequest('Request too large.'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          throw new BadRequest('Send a JSON object.');
        resolve(parsed as Record<string, unknown>);
      } catch (e) {
        reject(e instanceof BadRequest ? e : new BadRequest('The request is not valid JSON.'));
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

function actor(user: SandboxUser): ActorInfo {
  return {
    teamId: TEAM_ID,
    teamDomain: TEAM_DOMAIN,
    userId: user.id,
    userName: user.handle,
    apiAppId: APP_ID,
  };
}

export function createSandboxRoutes(deps: SandboxRouteDeps): CustomRoute[] {
  const assets = loadAssets();
  const { conversation } = deps;

  /** Signs and posts a body to the app's /slack/events, as Slack does (events as JSON). */
  async function toApp(body: string, contentType?: string): Promise<{ status: number; text: string }> {
    const url = deps.eventsUrl();
    if (!url) throw new Error('The app is still starting. Try again in a moment.');
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...signedHeaders(deps.signingSecret, body, contentType ? { contentType } : {}) },
      body,
    });
    return { status: res.status, text: await res.text() };
  }

  function appRefused(status: number): string {
    return `The app answered HTTP ${status} instead of acknowledging. Its log says why.`;
  }

  async function command(user: SandboxUser, text: string): Promise<Record<string, unknown>> {
    conversation.addCommandEcho(user, text);
    const triggerId = newTriggerId();
    conversation.trigger(user.id, triggerId);
    const responseUrl = conversation.responseUrl({ userId: user.id });
    const res = await toApp(
      slashCommandBody({
        ...actor(user),
        text,
        channelId: CHANNEL_ID,
        channelName: CHANNEL_NAME,
        responseUrl,
        triggerId,
      }),
    );
    if (res.status !== 200) return { ok: false, error: appRefused(res.status) };
    // An ack may carry the answer itself (plain text or a message); Slack shows it to the sender.
    const body = res.text.trim();
    if (body) {
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        parsed = { text: body };
      }
      if (parsed['text'] !== undefined || parsed['blocks'] !== undefined)
        conversation.addEphemeral(user.id, parsed);
    }
    conversation.sync();
    return { ok: true };
  }

  /** A person posts a message; its links on the unfurl domains reach the app as Slack's link_shared event. */
  async function say(user: SandboxUser, text: string): Promise<Record<string, unknown>> {
    const ts = conversation.addUserMessage(user, text);
    const urls = [...text.matchAll(/https?:\/\/[^\s<>|]+/g)]
      .map((m) => m[0])
      .filter((url) => deps.unfurlDomains.includes(hostOf(url)));
    if (urls.length === 0) return { ok: true };
    const res = await toApp(
      eventCallbackBody({
        teamId: TEAM_ID,
        apiAppId: APP_ID,
        event: linkSharedEvent({ user: user.id, channel: CHANNEL_ID, messageTs: ts, urls }),
      }),
      'application/json',
    );
    if (res.status !== 200) return { ok: false, error: appRefused(res.status) };
    return { ok: true };
  }

  async function action(user: SandboxUser, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const path = String(body['path'] ?? '');
    const selected = Array.isArray(body['selected']) ? body['selected'].map(String) : [];
    const triggerId = newTriggerId();
    conversation.trigger(user.id, triggerId);
    let payload: Record<string, unknown>;
    if (typeof body['viewId'] === 'string') {
      // A modal or the person's Home tab: either way the click comes from a view, with no channel.
      const view = conversation.viewById(body['viewId']);
      if (!view || view.userId !== user.id) return { ok: false, error: 'That dialog is closed.' };
      const blocks = withBlockIds(view.view['blocks'] as unknown[]);
      payload = {
        type: 'block_actions',
        user: { id: user.id, username: user.handle, name: user.handle, team_id: TEAM_ID },
        api_app_id: APP_ID,
        token: 'deprecated-verification-token',
        container: { type: 'view', view_id: view.id },
        trigger_id: triggerId,
        team: { id: TEAM_ID, domain: TEAM_DOMAIN },
        enterprise: null,
        is_enterprise_install: false,
        view: { ...view.view, id: view.id, hash: view.hash, blocks, state: { values: {} } },
        actions: [actionFor(blocks, path, selected)],
      };
    } else {
      const ts = String(body['ts'] ?? '');
      const m = conversation.messages.get(ts);
      if (!m || (m.ephemeralTo && m.ephemeralTo !== user.id) || (m.dmWith && m.dmWith !== user.id))
        return { ok: false, error: 'That message is no longer there.' };
      const blocks = m.blocks ?? [];
      const ephemeral = m.ephemeralTo !== undefined;
      // A click in the app's DM comes from that conversation, and its response_url answers there.
      const channelId = m.dmWith ?? CHANNEL_ID;
      payload = messageActionPayload({
        ...actor(user),
        channelId,
        channelName: m.dmWith ? DM_NAME : CHANNEL_NAME,
        message: { ts, text: m.text, blocks, botUserId: BOT_USER_ID, botId: BOT_ID, ephemeral },
        action: actionFor(blocks, path, selected),
        responseUrl: conversation.responseUrl(
          ephemeral
            ? { userId: user.id, channel: channelId, ephemeralTs: ts }
            : { userId: user.id, channel: channelId, messageTs: ts },
        ),
        triggerId,
      });
    }
    const res = await toApp(interactiveBody(payload));
    if (res.status !== 200) return { ok: false, error: appRefused(res.status) };
    conversation.sync();
    return { ok: true };
  }

  async function submit(user: SandboxUser, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const viewId = String(body['viewId'] ?? '');
    const view = conversation.views.get(viewId);
    if (!view || view.userId !== user.id) return { ok: false, error: 'That dialog is closed.' };
    const values = (body['values'] && typeof body['values'] === 'object' ? body['values'] : {}) as PageValues;
    const blocks = withBlockIds(view.view['blocks'] as unknown[]);
    // Slack's client refuses these itself; the app never sees them.
    const local = clientSideErrors(blocks, values);
    if (Object.keys(local).length > 0) {
      conversation.setViewErrors(viewId, local);
      return { ok: true, outcome: 'errors', errors: local };
    }
    const res = await toApp(
      interactiveBody(
        submissionPayload({
          ...actor(user),
          view: { ...view, view: { ...view.view, blocks } },
          values,
          botId: BOT_ID,
        }),
      ),
    );
    if (res.status !== 200)
      return { ok: false, error: `We had some trouble connecting. ${appRefused(res.status)}` };
    let answer: Record<string, unknown> = {};
    if (res.text.trim()) {
      try {
        answer = JSON.parse(res.text) as Record<string, unknown>;
      } catch {
        return { ok: false, error: 'The app answered the submission with something that is not JSON.' };
      }
    }
    const outcome = conversation.applyViewResponse(viewId, user.id, answer);
    conversation.sync();
    return { ok: true, outcome, ...(outcome === 'errors' ? { errors: answer['errors'] } : {}) };
  }

  async function runDigest(user: SandboxUser): Promise<Record<string, unknown>> {
    const id = await deps.newestDigestId();
    if (!id)
      return {
        ok: false,
        error: `#${CHANNEL_NAME} has no digest yet. Add one first, for example: /mergequeue digest add failing acme/web 09:00`,
      };
    return command(user, `digest run ${id}`);
  }

  function events(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = (e: PageEvent | { type: 'snapshot'; data: unknown }) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    conversation.sync();
    write({
      type: 'snapshot',
      data: {
        users: USERS,
        botName: BOT_NAME,
        messages: [...conversation.messages.values()].sort((a, b) => Number(a.ts) - Number(b.ts)),
        views: [...conversation.views.values()],
        homes: [...conversation.homes.values()],
      },
    });
    const unsubscribe = conversation.subscribe(write);
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    heartbeat.unref();
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    req.on('close', end);
    res.on('error', end);
  }

  /** Wraps a POST handler: JSON in, JSON out, and every failure a readable message. */
  const post =
    (fn: (user: SandboxUser, body: Record<string, unknown>) => Promise<Record<string, unknown>>) =>
    (req: IncomingMessage, res: ServerResponse) => {
      readJson(req)
        .then((body) => fn(USERS[roleOf(body['as'])], body))
        .then(
          (out) => json(res, 200, out),
          (err: unknown) => {
            if (err instanceof BadRequest || err instanceof UnknownElementError)
              return json(res, 400, { ok: false, error: err.message });
            const message = err instanceof Error ? err.message : String(err);
            return json(res, 502, { ok: false, error: `Could not reach the app: ${message}` });
          },
        );
    };

  return [
    {
      path: '/sandbox',
      method: ['GET', 'HEAD'],
      handler: (_req, res) => send(res, 200, 'text/html; charset=utf-8', assets.get('index.html')!),
    },
    {
      path: '/sandbox/static/:file',
      method: ['GET', 'HEAD'],
      handler: (req, res) => {
        const name = String(req.params?.['file'] ?? '');
        const type = STATIC[name];
        if (!type) return send(res, 404, 'text/plain; charset=utf-8', 'not found');
        send(res, 200, type, assets.get(name)!);
      },
    },
    { path: '/sandbox/api/events', method: 'GET', handler: events },
    {
      path: '/sandbox/api/canvases',
      method: 'GET',
      handler: (_req, res) =>
        json(
          res,
          200,
          (deps.canvases?.() ?? []).map((c) => ({
            id: c.id,
            title: c.title ?? 'Canvas',
            markdown: c.markdown,
            channelCanvas: c.channelCanvas,
          })),
        ),
    },
    {
      path: '/sandbox/api/command',
      method: 'POST',
      handler: post(async (user, body) => {
        const text = String(body['text'] ?? '')
          .replace(/^\s*\/mergequeue\b/, '')
          .trim();
        if (text.length > 4000) throw new BadRequest('That command is too long.');
        return command(user, text);
      }),
    },
    {
      path: '/sandbox/api/say',
      method: 'POST',
      handler: post(async (user, body) => {
        const text = String(body['text'] ?? '').trim();
        if (!text || text.length > 4000) throw new BadRequest('Write a message of at most 4000 characters.');
        return say(user, text);
      }),
    },
    { path: '/sandbox/api/action', method: 'POST', handler: post(action) },
    { path: '/sandbox/api/submit', method: 'POST', handler: post(submit) },
    {
      path: '/sandbox/api/close',
      method: 'POST',
      handler: post(async (user, body) => {
        const view = conversation.views.get(String(body['viewId'] ?? ''));
        if (view && view.userId === user.id) conversation.closeView(view.id);
        return { ok: true };
      }),
    },
    { path: '/sandbox/api/digest', method: 'POST', handler: post(runDigest) },
    {
      path: '/sandbox/api/step',
      method: 'POST',
      handler: post(async () => {
        const happened = deps.step();
        return { ok: true, happened };
      }),
    },
    {
      path: '/sandbox/api/workflow',
      method: 'POST',
      handler: post(async (user) => {
        if (!deps.workflow) return { ok: false, error: 'The app is still starting. Try again in a moment.' };
        return { ok: true, happened: await deps.workflow(user) };
      }),
    },
    {
      path: '/sandbox/api/home',
      method: 'POST',
      handler: post(async (user) => {
        const res = await toApp(
          eventCallbackBody({
            teamId: TEAM_ID,
            apiAppId: APP_ID,
            event: { type: 'app_home_opened', user: user.id, channel: `D${user.id.slice(1)}`, tab: 'home' },
          }),
          'application/json',
        );
        if (res.status !== 200) return { ok: false, error: appRefused(res.status) };
        return { ok: true };
      }),
    },
    {
      path: '/sandbox/api/hello',
      method: 'POST',
      handler: post(async (_user, body) => {
        const tz = String(body['tz'] ?? '');
        if (tz && isTimeZone(tz)) deps.setTimeZone(tz);
        return { ok: true };
      }),
    },
  ];
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz);
  } catch {
    return false;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}
