/**
 * Posting at Slack's pace: about one message per second per channel, and when Slack answers 429 we wait
 * its Retry-After before that channel's next message. Whether the WebClient waits on 429 itself or
 * rejects rate-limited calls, both end up here as one retry after the advertised delay.
 */
import type { PostFailure } from './surface.ts';
import type { DigestMessage, SlackPoster } from './types.ts';

export class ChannelPacer {
  readonly #next = new Map<string, number>();
  readonly #paceMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  constructor(paceMs: number, sleep: (ms: number) => Promise<void>) {
    this.#paceMs = paceMs;
    this.#sleep = sleep;
  }

  /** Waits for this channel's next slot and reserves it (callers in one process queue up fairly). */
  async turn(channel: string): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#next.get(channel) ?? 0);
    this.#next.set(channel, at + this.#paceMs);
    if (this.#next.size > 10_000) this.#prune(now);
    if (at > now) await this.#sleep(at - now);
  }

  /** Slack said wait: nothing more goes to this channel before then. */
  backOff(channel: string, ms: number): void {
    const until = performance.now() + ms;
    this.#next.set(channel, Math.max(this.#next.get(channel) ?? 0, until));
  }

  #prune(now: number) {
    for (const [k, t] of this.#next) if (t < now) this.#next.delete(k);
  }
}

/** A Slack failure that a retry will not fix (revoked token, channel gone, bot not in channel…). */
export class SlackPostError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(`Slack refused the message: ${code}`);
    this.name = 'SlackPostError';
    this.code = code;
  }
}

const MAX_RATE_LIMIT_RETRIES = 5;

/**
 * Posts one message and returns its ts. Errors and 429 waits are counted by the WebClient's instrumented
 * fetch. What the client threw is read by `postFailure`, from the Slack side, which knows its errors.
 */
export async function postPaced(
  slack: SlackPoster,
  pacer: ChannelPacer,
  target: { workspaceId: string; channel: string; threadTs?: string },
  message: DigestMessage,
  postFailure: (err: unknown) => PostFailure,
): Promise<string> {
  const key = `${target.workspaceId}:${target.channel}`;
  for (let attempt = 0; ; attempt++) {
    await pacer.turn(key);
    let res: Awaited<ReturnType<SlackPoster['chat']['postMessage']>>;
    try {
      res = await slack.chat.postMessage({
        channel: target.channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      });
    } catch (err) {
      const failure = postFailure(err);
      if (failure.retryAfterSeconds !== undefined && attempt < MAX_RATE_LIMIT_RETRIES) {
        pacer.backOff(key, Math.max(1, failure.retryAfterSeconds) * 1000);
        continue;
      }
      throw new SlackPostError(failure.code);
    }
    if (!res.ts) throw new SlackPostError(res.error ?? 'no_ts_in_response');
    return res.ts;
  }
}
