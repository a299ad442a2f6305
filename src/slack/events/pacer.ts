/**
 * Slack accepts about one message a second per channel (chat.postMessage); bursts beyond it are throttled
 * or refused. Writes to one channel wait their turn here; writes to different channels do not wait.
 */
export class ChannelPacer {
  readonly #gapMs: number;
  readonly #next = new Map<string, number>();

  constructor(gapMs = 1000) {
    this.#gapMs = gapMs;
  }

  /** Resolves when `channelKey` may be written to; the next writer waits one gap after this one. */
  async turn(channelKey: string): Promise<void> {
    // Real time, not the app's (possibly injected) clock: this is about Slack's rate, not the queue's.
    const now = Date.now();
    const at = Math.max(now, this.#next.get(channelKey) ?? 0);
    this.#next.set(channelKey, at + this.#gapMs);
    if (this.#next.size > 10_000) for (const [k, t] of this.#next) if (t < now) this.#next.delete(k);
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}
