/** The HTTP side of the fake Slack: bodies in (form or JSON, size-capped), answers and injected faults out. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SlackFault } from './types.ts';

const MAX_BODY = 1_000_000;

export const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export const parseArgs = (req: IncomingMessage, raw: string): Record<string, unknown> => {
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('application/json')) {
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : {};
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) out[k] = v;
  return out;
};

export const send = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json; charset=utf-8',
    ...headers,
  });
  res.end(text);
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies a queued fault; returns true when it answered the request. */
export const applyFault = async (
  res: ServerResponse,
  fault: SlackFault | undefined,
): Promise<{ answered: boolean; status?: number; body?: Record<string, unknown> }> => {
  if (!fault) return { answered: false };
  if ('delayMs' in fault) {
    await sleep(fault.delayMs);
    return { answered: false };
  }
  if ('error' in fault) {
    const body = { ok: false, error: fault.error, ...(fault.extra ?? {}) };
    send(res, 200, body);
    return { answered: true, status: 200, body };
  }
  if (fault.status === 429) {
    const retryAfter = 'retryAfter' in fault && fault.retryAfter !== undefined ? fault.retryAfter : 1;
    const body = { ok: false, error: 'ratelimited' };
    send(res, 429, body, { 'retry-after': String(retryAfter) });
    return { answered: true, status: 429, body };
  }
  const text = 'body' in fault && fault.body !== undefined ? fault.body : 'fault injected';
  send(res, fault.status, text);
  return { answered: true, status: fault.status, body: { ok: false, error: text } };
};
