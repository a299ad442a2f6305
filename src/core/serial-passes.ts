/**
 * One pass at a time: a pass requested while one runs starts once more right after it, never beside it,
 * however many requests came meanwhile. The digest scheduler and the freezer tick this way, so a slow
 * pass (a stalled database, a slow Trunk) never piles up passes that would claim the same work twice.
 */
export interface SerialPassesOptions {
  pass: () => Promise<void>;
  /** A pass that threw: logged by the owner; the next pass still runs. */
  onError: (err: unknown) => void;
  /** False once the owner stops: no new pass starts, the one in progress finishes. */
  active: () => boolean;
}

export class SerialPasses {
  readonly #options: SerialPassesOptions;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(options: SerialPassesOptions) {
    this.#options = options;
  }

  /** Runs a pass now, or once more after the one in progress. */
  request(): void {
    if (!this.#options.active()) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#options
      .pass()
      .catch(this.#options.onError)
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.request();
        }
      });
  }

  /** From inside a pass: run one more after it (work was left for lack of room). */
  requestAgain(): void {
    this.#again = true;
  }

  /** The pass in progress, if any (shutdown and tests wait for it). */
  get running(): Promise<void> | undefined {
    return this.#running;
  }
}
