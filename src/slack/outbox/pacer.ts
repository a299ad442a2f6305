/**
 * Slack accepts about one message a second per channel; bursts beyond it are throttled or refused. Every
 * write the app makes on its own initiative to one channel (feed, alert, live redraw, digest, freeze
 * announcement, note) waits its turn here, whatever kind it is; writes to different channels do not wait.
 * A 429 moves that channel's next turn to when Slack said.
 */
export class ChannelPacer {
  readonly #gapMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #next = new Map<string, number>();

  constructor(
    gapMs = 1000,
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.#gapMs = gapMs;
    this.#sleep = sleep;
  }

  /** Resolves when `channelKey` may be written to; the next writer waits one gap after this one. */
  async turn(channelKey: string): Promise<void> {
    // Real time, not the app's (possibly injected) clock: this is about Slack's rate, not the queue's.
    const now = performance.now();
    const at = Math.max(now, this.#next.get(channelKey) ?? 0);
    this.#next.set(channelKey, at + this.#gapMs);
    if (this.#next.size > 10_000) for (const [k, t] of this.#next) if (t < now) this.#next.delete(k);
    if (at > now) await this.#sleep(at - now);
  }

  /** Slack said wait: nothing more goes to this channel before then. */
  backOff(channelKey: string, ms: number): void {
    const until = performance.now() + ms;
    this.#next.set(channelKey, Math.max(this.#next.get(channelKey) ?? 0, until));
  }
}
