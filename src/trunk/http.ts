/**
 * One HTTP attempt: POST a JSON body, read the answer as text, within a time limit and a caller's
 * AbortSignal. It classifies what happened (an answer, a network failure, a timeout) and leaves meaning
 * and retries to the caller. A caller's abort rejects with the signal's reason, as fetch does.
 */
import { type Dispatcher, request } from 'undici';

export type HttpResult =
  | {
      kind: 'response';
      status: number;
      retryAfter: string | undefined;
      text: string;
      /** The body was larger than maxBodyBytes; `text` holds only its start. */
      truncated: boolean;
    }
  | { kind: 'network'; error: unknown }
  | { kind: 'timeout' };

export interface SendOptions {
  url: string | URL;
  headers: Record<string, string>;
  /** Default POST (v1 is all POST); v2 reads are GET, with no body. */
  method?: 'GET' | 'POST';
  body?: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  maxBodyBytes: number;
}

/** One attempt of any method; the name is v1's, where every operation is a POST. */
export async function postOnce(opts: SendOptions): Promise<HttpResult> {
  const { signal } = opts;
  signal?.throwIfAborted();
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      ac.abort(new Error('deadline reached'));
    },
    Math.max(1, opts.timeoutMs),
  );
  const onAbort = () => ac.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await request(opts.url, {
      method: opts.method ?? 'POST',
      headers: opts.headers,
      body: opts.body ?? null,
      dispatcher: opts.dispatcher,
      signal: ac.signal,
    });
    const { text, truncated } = await readText(res.body, opts.maxBodyBytes);
    const ra = res.headers['retry-after'];
    return {
      kind: 'response',
      status: res.statusCode,
      retryAfter: Array.isArray(ra) ? ra[0] : ra,
      text,
      truncated,
    };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) return { kind: 'timeout' };
    return { kind: 'network', error };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

async function readText(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > maxBytes) {
      chunks.push(buf.subarray(0, Math.max(0, buf.length - (size - maxBytes))));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(buf);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}
