/**
 * What the sandbox page shows, rebuilt from what the app did through the fake Slack Web API: channel
 * messages (posted, updated in place, deleted, threaded), ephemeral messages (chat.postEphemeral and
 * response_url answers, replaced in place when the app says replace_original), modals (views.open,
 * views.push, views.update) and each person's Home tab (views.publish). The page never sees anything the
 * app did not send to "Slack".
 */
import type { SlackFake } from '../fakes/slack/server.ts';
import { withBlockIds } from './payloads.ts';
import { BOT_NAME, BOT_USER_ID, CHANNEL_ID, type SandboxUser } from './people.ts';

type Json = Record<string, unknown>;

export interface PageMessage {
  ts: string;
  threadTs?: string;
  author: { kind: 'bot' | 'user'; id: string; name: string };
  text: string;
  blocks?: Json[];
  /** Set on ephemeral messages: the only user who sees it. */
  ephemeralTo?: string;
  /** The command a person typed (shown to them as Slack does, not posted to the channel). */
  command?: string;
  edited?: boolean;
  /** Set on the app's direct messages: the person whose DM with the app this is. */
  dmWith?: string;
  /** Link previews the app attached with chat.unfurl, in the order of the links. */
  unfurls?: Array<{ url: string; blocks: Json[] }>;
}

export interface PageView {
  id: string;
  userId: string;
  view: Json;
  hash: string;
  rootId: string;
  previousId: string | null;
  errors?: Record<string, string>;
}

export type PageEvent =
  | { type: 'msg'; data: PageMessage }
  | { type: 'msg-deleted'; data: { ts: string } }
  | { type: 'view'; data: PageView }
  | { type: 'view-closed'; data: { id: string } }
  | { type: 'home'; data: PageView }
  | { type: 'notice'; data: { text: string } };

/** What a response_url was handed out for. */
export interface ResponseContext {
  userId: string;
  /** The conversation the response_url belongs to; default #merge-queue. */
  channel?: string;
  /** Set when a button on an ephemeral message made it: replace_original/delete_original act on that one. */
  ephemeralTs?: string;
}

const parse = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const blocksOf = (v: unknown): Json[] | undefined => {
  const parsed = parse(v);
  return Array.isArray(parsed) ? withBlockIds(parsed) : undefined;
};
const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Methods whose failures the page reports (the app would see the same error from real Slack). */
const REPORTED = /^(chat\.|views\.)/;

export class Conversation {
  readonly messages = new Map<string, PageMessage>();
  readonly views = new Map<string, PageView>();
  /** Each person's Home tab as the app last published it (user id → view). */
  readonly homes = new Map<string, PageView>();
  private readonly listeners = new Set<(e: PageEvent) => void>();
  private readonly triggers = new Map<string, string>();
  private readonly responseContexts = new Map<string, ResponseContext>();
  private readonly fingerprints = new Map<string, string>();
  private callsSeen = 0;
  private postsSeen = 0;
  private lastLocalTs = 0;
  private stopped = false;

  private readonly slack: SlackFake;
  private readonly users: readonly SandboxUser[];

  constructor(slack: SlackFake, users: readonly SandboxUser[]) {
    this.slack = slack;
    this.users = users;
  }

  subscribe(fn: (e: PageEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(e: PageEvent): void {
    for (const fn of this.listeners) fn(e);
  }

  notice(text: string): void {
    this.emit({ type: 'notice', data: { text } });
  }

  /** A trigger_id handed to the app on behalf of a user: views it opens with it belong to them. */
  trigger(userId: string, triggerId: string): void {
    this.triggers.set(triggerId, userId);
  }

  /** A response_url handed to the app; its answers are shown to this user. */
  responseUrl(context: ResponseContext & { messageTs?: string }): string {
    const url = this.slack.responseUrl({
      channel: context.channel ?? CHANNEL_ID,
      user: context.userId,
      ...(context.messageTs ? { messageTs: context.messageTs } : {}),
    });
    this.responseContexts.set(url.slice(url.lastIndexOf('/') + 1), context);
    return url;
  }

  /** A unique ts for messages only the page knows (ephemerals), ordered with Slack's own. */
  localTs(): string {
    let micros = Math.max(Date.now() * 1000, this.lastLocalTs + 1);
    while (this.messages.has(tsOf(micros))) micros += 1;
    this.lastLocalTs = micros;
    return tsOf(micros);
  }

  addEphemeral(
    userId: string,
    body: { text?: unknown; blocks?: unknown },
    extra: Partial<PageMessage> = {},
  ): void {
    const m: PageMessage = {
      ts: this.localTs(),
      author: { kind: 'bot', id: BOT_USER_ID, name: BOT_NAME },
      text: textOf(body.text),
      ephemeralTo: userId,
      ...extra,
    };
    const blocks = blocksOf(body.blocks);
    if (blocks) m.blocks = blocks;
    this.put(m);
  }

  /** What Slack shows in the channel as a workflow runs (the sandbox's Workflow Builder, workflow.ts). */
  addWorkflowNote(text: string): void {
    this.put({
      ts: this.localTs(),
      author: { kind: 'bot', id: 'USLACKBOT', name: 'Workflow Builder' },
      text,
    });
  }

  /** The person's own command, shown back to them. */
  addCommandEcho(user: SandboxUser, text: string): void {
    this.put({
      ts: this.localTs(),
      author: { kind: 'user', id: user.id, name: user.name },
      text: '',
      command: `/mergequeue ${text}`,
      ephemeralTo: user.id,
    });
  }

  /** A message a person posted in the channel (pasting a link: Slack then tells the app with link_shared). */
  addUserMessage(user: SandboxUser, text: string): string {
    const ts = this.localTs();
    this.put({ ts, author: { kind: 'user', id: user.id, name: user.name }, text });
    return ts;
  }

  /** The app answered a view_submission with response_action (errors, update, push, clear). */
  applyViewResponse(viewId: string, userId: string, body: Json): 'errors' | 'open' | 'closed' {
    const view = this.views.get(viewId);
    switch (body['response_action']) {
      case 'errors':
        if (view) this.putView({ ...view, errors: (body['errors'] as Record<string, string>) ?? {} });
        return 'errors';
      case 'update':
        if (view) this.putView({ ...view, view: body['view'] as Json, hash: `${view.hash}+`, errors: {} });
        return 'open';
      case 'push': {
        const id = `${viewId}-p${Date.now().toString(36)}`;
        this.putView({
          id,
          userId,
          view: body['view'] as Json,
          hash: 'h0',
          rootId: view?.rootId ?? viewId,
          previousId: viewId,
        });
        return 'open';
      }
      case 'clear':
        for (const v of [...this.views.values()]) if (v.userId === userId) this.closeView(v.id);
        return 'closed';
      default:
        this.closeView(viewId);
        return 'closed';
    }
  }

  /** A modal, or a Home tab, by its view id. */
  viewById(viewId: string): PageView | undefined {
    return this.views.get(viewId) ?? [...this.homes.values()].find((h) => h.id === viewId);
  }

  setViewErrors(viewId: string, errors: Record<string, string>): void {
    const view = this.views.get(viewId);
    if (view) this.putView({ ...view, errors });
  }

  closeView(id: string): void {
    if (this.views.delete(id)) this.emit({ type: 'view-closed', data: { id } });
  }

  private put(m: PageMessage): void {
    this.messages.set(m.ts, m);
    this.emit({ type: 'msg', data: m });
  }

  private putView(v: PageView): void {
    // Re-inserting moves it last: the newest view is the one on top.
    this.views.delete(v.id);
    this.views.set(v.id, v);
    this.emit({ type: 'view', data: v });
  }

  /** Follows the fake until stop(): every recorded request triggers one sync. */
  async follow(): Promise<void> {
    while (!this.stopped) {
      const calls = this.callsSeen;
      const posts = this.postsSeen;
      try {
        await this.slack.waitFor(
          () =>
            this.stopped || this.slack.calls.length !== calls || this.slack.responsePosts.length !== posts,
          60_000,
        );
      } catch {
        // No traffic for a minute: wait again.
      }
      if (!this.stopped) this.sync();
    }
  }

  /** Ends follow(): one harmless request wakes its wait (the fake re-checks waiters on every request). */
  async stop(): Promise<void> {
    this.stopped = true;
    await fetch(`${this.slack.url}api.test`, { method: 'POST' }).then(
      (r) => r.body?.cancel(),
      () => undefined,
    );
  }

  /** Brings the page model up to date with the fake's records. Safe to call any time. */
  sync(): void {
    const calls = this.slack.calls;
    if (calls.length < this.callsSeen) this.callsSeen = 0;
    for (; this.callsSeen < calls.length; this.callsSeen++) this.onCall(calls[this.callsSeen]!);

    // Channel messages and the app's DMs: new ones, edits (chat.update, replace_original) and deletions.
    const seen = new Set<string>();
    for (const m of this.slack.messages) {
      // chat.postMessage to a user id is the app's DM with them (the fake keeps the user id as the channel).
      const dmWith = this.users.find((u) => u.id === m.channel)?.id;
      if (m.channel !== CHANNEL_ID && !dmWith) continue;
      seen.add(m.ts);
      const fp = JSON.stringify([m.text, m.blocks, m.threadTs]);
      if (this.fingerprints.get(m.ts) === fp) continue;
      this.fingerprints.set(m.ts, fp);
      const pm: PageMessage = {
        ts: m.ts,
        author: { kind: 'bot', id: m.user ?? BOT_USER_ID, name: BOT_NAME },
        text: m.text ?? '',
        edited: m.history.length > 0,
      };
      if (m.threadTs) pm.threadTs = m.threadTs;
      if (dmWith) pm.dmWith = dmWith;
      const blocks = blocksOf(m.blocks);
      if (blocks) pm.blocks = blocks;
      this.put(pm);
    }
    for (const ts of [...this.fingerprints.keys()]) {
      if (seen.has(ts)) continue;
      this.fingerprints.delete(ts);
      this.messages.delete(ts);
      this.emit({ type: 'msg-deleted', data: { ts } });
    }

    const posts = this.slack.responsePosts;
    if (posts.length < this.postsSeen) this.postsSeen = 0;
    for (; this.postsSeen < posts.length; this.postsSeen++) {
      const p = posts[this.postsSeen]!;
      if (p.status === 200) this.onResponsePost(p.id, p.body);
    }
  }

  private onCall(call: SlackFake['calls'][number]): void {
    const ok = call.status === 200 && call.response['ok'] === true;
    if (!ok) {
      if (REPORTED.test(call.method))
        this.notice(
          `The app called ${call.method} and Slack answered: ${String(call.response['error'] ?? call.status)}`,
        );
      return;
    }
    const args = call.args;
    switch (call.method) {
      case 'chat.postEphemeral':
        if (args['channel'] !== CHANNEL_ID) return;
        this.put({
          ts: String(call.response['message_ts'] ?? this.localTs()),
          author: { kind: 'bot', id: BOT_USER_ID, name: BOT_NAME },
          text: textOf(args['text']),
          ephemeralTo: String(args['user']),
          ...(blocksOf(args['blocks']) ? { blocks: blocksOf(args['blocks'])! } : {}),
          ...(typeof args['thread_ts'] === 'string' ? { threadTs: args['thread_ts'] } : {}),
        });
        return;
      case 'chat.unfurl': {
        // A posted message's previews (a composer preview has no message yet: the page has no composer one).
        const m = this.messages.get(String(args['ts']));
        const unfurls = parse(args['unfurls']);
        if (!m || args['channel'] !== CHANNEL_ID || !unfurls || typeof unfurls !== 'object') return;
        const previews = Object.entries(unfurls as Record<string, { blocks?: unknown }>).flatMap(
          ([url, body]) => {
            const blocks = blocksOf(body.blocks);
            return blocks ? [{ url, blocks }] : [];
          },
        );
        this.put({ ...m, unfurls: previews });
        return;
      }
      case 'views.open':
      case 'views.push': {
        const view = call.response['view'] as Json;
        const id = String(view['id']);
        const userId = this.triggers.get(String(args['trigger_id'])) ?? this.users[0]!.id;
        const top = [...this.views.values()].filter((v) => v.userId === userId).at(-1);
        this.putView({
          id,
          userId,
          view: parse(args['view']) as Json,
          hash: String(view['hash'] ?? 'h0'),
          rootId: call.method === 'views.push' && top ? top.rootId : id,
          previousId: call.method === 'views.push' && top ? top.id : null,
        });
        return;
      }
      case 'views.publish': {
        const userId = String(args['user_id']);
        const id = String((call.response['view'] as Json)['id']);
        const home: PageView = {
          id,
          userId,
          view: parse(args['view']) as Json,
          hash: 'h0',
          rootId: id,
          previousId: null,
        };
        this.homes.set(userId, home);
        this.emit({ type: 'home', data: home });
        return;
      }
      case 'views.update': {
        const home = [...this.homes.values()].find((h) => h.id === String(args['view_id']));
        if (home) {
          const updated = { ...home, view: parse(args['view']) as Json, hash: `${home.hash}+` };
          this.homes.set(home.userId, updated);
          this.emit({ type: 'home', data: updated });
          return;
        }
        const view = this.views.get(String(args['view_id']));
        if (!view) return;
        this.putView({ ...view, view: parse(args['view']) as Json, hash: `${view.hash}+`, errors: {} });
        return;
      }
    }
  }

  private onResponsePost(id: string, body: Json): void {
    const ctx = this.responseContexts.get(id);
    if (!ctx) return;
    const replace = body['replace_original'] === true || body['replace_original'] === 'true';
    const del = body['delete_original'] === true || body['delete_original'] === 'true';
    const own = ctx.ephemeralTs ? this.messages.get(ctx.ephemeralTs) : undefined;
    if (del) {
      if (own && this.messages.delete(own.ts)) this.emit({ type: 'msg-deleted', data: { ts: own.ts } });
      return; // a channel message is removed by the fake; sync() sees it go
    }
    if (replace && ctx.ephemeralTs) {
      if (own) {
        const updated: PageMessage = { ...own, text: textOf(body['text']), edited: true };
        const blocks = blocksOf(body['blocks']);
        if (blocks) updated.blocks = blocks;
        else delete updated.blocks;
        this.put(updated);
      }
      return;
    }
    if (replace) return; // a channel message replaced by the fake; sync() shows the new version
    if (body['response_type'] === 'in_channel') return; // posted to the channel by the fake
    // An answer to a click in the app's DM is shown there.
    this.addEphemeral(ctx.userId, body, ctx.channel === ctx.userId ? { dmWith: ctx.userId } : {});
  }
}

function tsOf(micros: number): string {
  return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}
