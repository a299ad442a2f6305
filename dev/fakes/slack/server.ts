/**
 * A fake Slack Web API: a real HTTP server on 127.0.0.1 that answers the methods this app calls, the way
 * @slack/web-api expects (POST /api/<method>, form or JSON body, `Authorization: Bearer`, `{ok: …}` bodies,
 * 429 with Retry-After), plus response_url endpoints. It records every call so tests can assert on the wire.
 * Used by the end-to-end tests, the benchmarks and the sandbox.
 *
 * This file is the HTTP server and the handle tests hold; the rest is split the way the Trunk fake is:
 * state.ts (what the fake knows and records), one module per group of Web API methods (auth.ts, users.ts,
 * chat.ts, conversations.ts, views.ts, oauth.ts, unfurl.ts, functions.ts for Workflow Builder steps),
 * response-urls.ts, socket-mode.ts, and wire.ts (bodies, answers, injected faults).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authMethods } from './auth.ts';
import { canvasMethods } from './canvases.ts';
import { chatMethods } from './chat.ts';
import { conversationMethods } from './conversations.ts';
import { createFunctionFake } from './functions.ts';
import { oauthMethods } from './oauth.ts';
import { handleResponseUrl, newResponseUrl } from './response-urls.ts';
import { createSocketModeServer } from './socket-mode.ts';
import { type Answer, createState, err, identityOf, type Method, takeFault } from './state.ts';
import type { SlackFake, SlackFakeOptions } from './types.ts';
import { unfurlMethods } from './unfurl.ts';
import { userMethods } from './users.ts';
import { viewMethods } from './views.ts';
import { applyFault, parseArgs, readBody, send, sleep } from './wire.ts';

export type * from './types.ts';

/** Methods that need no bot token (OAuth exchanges use client credentials; Socket Mode an app token). */
const NO_AUTH = new Set(['api.test', 'oauth.v2.access', 'apps.connections.open']);
const APP_TOKEN_ONLY = new Set(['apps.connections.open']);

export async function startSlackFake(opts: SlackFakeOptions = {}): Promise<SlackFake> {
  const st = createState(opts);
  const functions = createFunctionFake(st);
  const methods: Record<string, Method> = {
    ...authMethods(st),
    ...chatMethods(st),
    ...canvasMethods(st),
    ...viewMethods(st),
    ...userMethods(st),
    ...conversationMethods(st),
    ...oauthMethods(st),
    ...unfurlMethods(st),
    ...functions.methods,
  };
  const socketMode = createSocketModeServer(() => st.events.emit('change'));

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const raw = req.method === 'POST' ? await readBody(req) : '';

      const responseMatch = /^\/response\/([\w-]+)$/.exec(url.pathname);
      if (responseMatch && req.method === 'POST') {
        await handleResponseUrl(st, responseMatch[1]!, req, raw, res);
        return;
      }

      const apiMatch = /^\/api\/([\w.]+)$/.exec(url.pathname);
      if (!apiMatch || (req.method !== 'POST' && req.method !== 'GET')) {
        send(res, 404, 'not found');
        return;
      }
      const method = apiMatch[1]!;
      const args = parseArgs(req, raw);
      for (const [k, v] of url.searchParams) if (!(k in args)) args[k] = v;
      const auth = String(req.headers.authorization ?? '');
      let token = auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
      if (!token && typeof args['token'] === 'string') token = args['token'];
      // Basic auth carries client credentials for oauth.v2.access.
      if (auth.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
        if (id && args['client_id'] === undefined) args['client_id'] = id;
        if (secret && args['client_secret'] === undefined) args['client_secret'] = secret;
      }
      const delay = st.latency.get(method) ?? st.latency.get('*');
      if (delay) await sleep(delay);

      const record = (status: number, response: Record<string, unknown>) => {
        // Secrets in args (client_secret) are kept: this is a test double on loopback.
        st.calls.push({ method, args, token, status, response, at: st.now() });
        st.events.emit('change');
      };

      const fault = await applyFault(res, takeFault(st, method));
      if (fault.answered) {
        record(fault.status ?? 200, fault.body ?? {});
        return;
      }
      const handler = methods[method];
      let answer: Answer;
      if (!handler) answer = err('unknown_method');
      else if (APP_TOKEN_ONLY.has(method) && !token?.startsWith('xapp-'))
        answer = err(token ? 'invalid_auth' : 'not_authed');
      else if (!NO_AUTH.has(method) && typeof identityOf(st, token) === 'string')
        answer = err(identityOf(st, token) as string);
      else answer = handler(args, token);
      send(res, answer.status ?? 200, answer.body, answer.headers);
      record(answer.status ?? 200, answer.body);
    } catch (e) {
      if (!res.headersSent) send(res, 500, String(e));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket) => {
    if ((req.url ?? '').startsWith('/socket-mode')) socketMode.handleUpgrade(req, socket);
    else socket.destroy();
  });
  const port = (server.address() as AddressInfo).port;
  st.port = port;
  const origin = `http://127.0.0.1:${port}`;

  const fake: SlackFake = {
    url: `${origin}/api/`,
    origin,
    port,
    calls: st.calls,
    callsTo: (method) => st.calls.filter((c) => c.method === method),
    messages: st.messages,
    channelMessages: (channel) => st.messages.filter((m) => m.channel === channel),
    message: (channel, ts) => st.messages.find((m) => m.channel === channel && m.ts === ts),
    ephemerals: st.ephemerals,
    responsePosts: st.responsePosts,
    views: st.views,
    unfurls: st.unfurls,
    canvases: st.canvases,
    responseUrl: (context) => newResponseUrl(st, origin, context),
    postsTo(responseUrl) {
      const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
      return st.responsePosts.filter((p) => p.id === id);
    },
    addUser: (u) => void st.users.set(u.id, u),
    setUsergroup: (id, members) => void st.usergroups.set(id, [...members]),
    setChannel: (c) => void st.channels.set(c.id, { ...c }),
    addToken: (t, identity) => void st.tokens.set(t, identity),
    revokeToken: (t) => void st.revoked.add(t),
    setInstallation(inst) {
      st.installation = inst;
    },
    issuedTokens: st.issuedTokens,
    socketMode,
    startFunction: (input) => functions.start(input),
    cancelFunction: (executionId) => functions.cancel(executionId),
    functionCompletions: (id) =>
      functions.completions.filter((c) => id === undefined || c.executionId === id),
    failNext(method, fault, times = 1) {
      const list = st.faults.get(method) ?? [];
      for (let i = 0; i < times; i++) list.push(fault);
      st.faults.set(method, list);
    },
    refuseBlocks(type, times = Number.POSITIVE_INFINITY) {
      st.refusedBlocks.set(type, times);
    },
    setLatency(ms, method = '*') {
      st.latency.set(method, ms);
    },
    waitFor<T>(predicate: () => T | undefined | false | null, timeoutMs = 5_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = (): boolean => {
          const v = predicate();
          if (v) {
            cleanup();
            resolve(v);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `slack fake: condition not met within ${timeoutMs} ms; calls so far: ${st.calls.map((c) => c.method).join(', ') || 'none'}; response posts: ${st.responsePosts.length}`,
            ),
          );
        }, timeoutMs);
        const onChange = () => void check();
        const cleanup = () => {
          clearTimeout(timer);
          st.events.off('change', onChange);
        };
        st.events.on('change', onChange);
        check();
      });
    },
    clear() {
      st.calls.length = 0;
      st.messages.length = 0;
      st.ephemerals.length = 0;
      st.responsePosts.length = 0;
      st.views.length = 0;
      st.unfurls.length = 0;
      st.canvases.length = 0;
      st.faults.clear();
      st.refusedBlocks.clear();
      functions.completions.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        socketMode.closeAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
