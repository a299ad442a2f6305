/**
 * The sandbox page's event stream (/sandbox/api/events) followed over HTTP, as the page keeps it: the
 * channel's and DMs' messages, open modals and each person's Home tab, with a wait for a condition.
 */
import { expect } from 'vitest';

export interface PageMessage {
  ts: string;
  /** Who the page shows as the message's author (the app, a person, or Workflow Builder). */
  author?: { kind: string; id: string; name: string };
  text: string;
  blocks?: Array<Record<string, unknown>>;
  ephemeralTo?: string;
  command?: string;
  edited?: boolean;
  threadTs?: string;
  dmWith?: string;
  /** Link previews the app attached (chat.unfurl). */
  unfurls?: Array<{ url: string; blocks: unknown[] }>;
}
export interface PageView {
  id: string;
  userId: string;
  view: Record<string, unknown>;
  errors?: Record<string, string>;
}

/** Follows /sandbox/api/events and keeps the page's view of the channel. */
export async function follow(base: string) {
  const ac = new AbortController();
  const res = await fetch(`${base}/sandbox/api/events`, { signal: ac.signal });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const messages = new Map<string, PageMessage>();
  const views = new Map<string, PageView>();
  /** user id → their Home tab as last published */
  const homes = new Map<string, PageView>();
  const events: Array<{ type: string; data: unknown }> = [];
  let wake = () => {};
  const apply = (type: string, data: unknown) => {
    events.push({ type, data });
    if (type === 'snapshot') {
      const s = data as { messages: PageMessage[]; views: PageView[]; homes?: PageView[] };
      for (const m of s.messages) messages.set(m.ts, m);
      for (const v of s.views) views.set(v.id, v);
      for (const h of s.homes ?? []) homes.set(h.userId, h);
    } else if (type === 'msg') messages.set((data as PageMessage).ts, data as PageMessage);
    else if (type === 'msg-deleted') messages.delete((data as { ts: string }).ts);
    else if (type === 'view') views.set((data as PageView).id, data as PageView);
    else if (type === 'view-closed') views.delete((data as { id: string }).id);
    else if (type === 'home') homes.set((data as PageView).userId, data as PageView);
    wake();
  };
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let end = buf.indexOf('\n\n');
      while (end !== -1) {
        const frame = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const type = /^event: (.+)$/m.exec(frame)?.[1];
        const data = /^data: (.+)$/m.exec(frame)?.[1];
        if (type && data) apply(type, JSON.parse(data));
        end = buf.indexOf('\n\n');
      }
    }
  })().catch(() => undefined);
  const until = <T>(fn: () => T | undefined, what: string, ms = 10_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      const check = () => {
        const v = fn();
        if (v !== undefined && v !== false) {
          clearTimeout(timer);
          resolve(v);
        } else wake = check;
      };
      check();
    });
  return { messages, views, homes, events, until, close: () => ac.abort() };
}

/** POSTs to the page's API (/sandbox/api/<path>) as the page does, answering its JSON. */
export function pageApi(base: string) {
  return async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}/sandbox/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
}
