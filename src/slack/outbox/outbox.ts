/**
 * The Slack outbox: the only code that posts, edits or publishes on the app's own initiative — queue-event
 * feeds and health alerts, live status redraws, notes to authors, digests, freeze announcements, notices
 * to creators. Callers hand it a write and get a promise of what became of it (never a throw).
 *
 * - One lane per channel (per workspace and channel or person), drained on its own: writes to one channel go
 *   out in order, one per pacer turn (pacer.ts, about one a second, whatever their kind); lanes do not wait
 *   for each other, so one channel's backlog never delays another channel, queue or workspace.
 * - A write that replaces an older one still waiting (a live message's next redraw, `coalesce`) takes its
 *   place: a busy channel redraws each live message once with the latest state, not once per change.
 * - 429s wait Slack's Retry-After before that channel's next write (retry-policy.ts); final errors
 *   (final-errors.ts) are answered as final with what is closed, and counted by code
 *   (`mergequeue_outbox_final_errors_total{code}`).
 *
 * Shutdown and restart. The outbox holds writes in memory only; what must survive is durable upstream of
 * it: a queue event's delivery row (watch_deliveries) stays claimed until its write is answered, and a
 * digest occurrence's claim records each message posted. `stop(waitMs)` refuses new writes, lets the
 * lanes drain for up to waitMs, then drops what is left, with one log line and
 * `mergequeue_outbox_dropped_total{kind}`: a dropped queue event is delivered after its claim's lease
 * expires (by this replica after a restart, or by another), a dropped digest message by the occurrence's
 * next attempt; a dropped freeze announcement or notice is lost (logged). After a restart the outbox starts
 * empty and is refilled by the watcher and the digest scheduler from the store.
 */
import type { WebClient } from '@slack/web-api';
import { settleBy } from '../../core/deadline.ts';
import type {
  MessageKind,
  Notifier,
  NotifyResult,
  OutgoingMessage,
  PostTarget,
} from '../../core/notifier.ts';
import type { Logger } from '../../observability/log.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { refusalOf } from './final-errors.ts';
import { ChannelPacer } from './pacer.ts';
import { classify, retryDelay } from './retry-policy.ts';

/** One write: `run` calls Slack with the workspace's client and answers the message's ts when it has one. */
interface OutboxJob {
  workspaceId: string;
  /** The channel (or user id, for a direct message) the write goes to: its lane. */
  channel: string;
  kind: MessageKind;
  /** Writes with the same key are one: a newer one replaces an older one still waiting. */
  coalesce?: string;
  run(client: WebClient): Promise<{ ts?: string | undefined; channel?: string }>;
}

export interface SlackOutboxOptions {
  slackFor(workspaceId: string): Promise<WebClient> | WebClient;
  /** A client for a token that is not the bot's: a workflow step's own execution token. */
  clientWithToken?(token: string): WebClient;
  logger: Logger;
  metrics: Pick<Metrics, 'outboxFinalErrors' | 'outboxDropped' | 'observeOutbox'>;
  /** Least time between two writes to one channel; default 1000 ms. */
  paceMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** A workflow step to complete (SlackOutbox.completeStep). */
export interface StepCompletionWrite {
  workspaceId: string;
  executionId: string;
  /** The execution's own token (stored encrypted with the wait). */
  token: string;
  outcome: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: string };
}

interface Item {
  job: OutboxJob;
  /** performance.now() when first queued (a replacement keeps the age of what it replaced). */
  queuedAt: number;
  settle: Array<(r: NotifyResult) => void>;
  /** Slack is being called for it now (it can no longer be dropped). */
  sending?: boolean;
  /** Dropped at shutdown while waiting for its channel's turn: it is not sent. */
  dropped?: boolean;
}

interface Lane {
  waiting: Item[];
  current?: Item;
}

const STOPPED: NotifyResult = { ok: false, code: 'outbox_stopped', final: false };

export class SlackOutbox implements Notifier {
  readonly #o: SlackOutboxOptions;
  readonly #pacer: ChannelPacer;
  readonly #lanes = new Map<string, Lane>();
  #stopping = false;
  #abandoned = false;
  #idle: Array<() => void> = [];

  constructor(o: SlackOutboxOptions) {
    this.#o = o;
    this.#pacer = new ChannelPacer(o.paceMs ?? 1000, o.sleep);
    o.metrics.observeOutbox(() => ({ depth: this.depth, oldestAgeMs: this.oldestAgeMs }));
  }

  /** chat.postMessage, without unfurls (a PR or Trunk link in a feed must not grow a preview). */
  post(to: PostTarget, message: OutgoingMessage, kind: MessageKind): Promise<NotifyResult> {
    return this.#enqueue({
      workspaceId: to.workspaceId,
      channel: to.channel,
      kind,
      run: async (client) => {
        const res = await client.chat.postMessage({
          channel: to.channel,
          text: message.text,
          ...(message.blocks ? { blocks: message.blocks as never } : {}),
          unfurl_links: false,
          unfurl_media: false,
          ...(to.threadTs ? { thread_ts: to.threadTs } : {}),
        });
        return { ts: res.ts, ...(res.channel ? { channel: res.channel } : {}) };
      },
    });
  }

  /**
   * Completes a Workflow Builder step (functions.completeSuccess, or completeError with a sentence) with the
   * execution's own token (the bot token cannot complete a function). Not paced: it posts in no channel. A
   * final error (final-errors.ts: the execution is gone, or the workspace's token is) is answered as final.
   */
  async completeStep(step: StepCompletionWrite): Promise<NotifyResult> {
    const job: OutboxJob = {
      workspaceId: step.workspaceId,
      channel: step.executionId,
      kind: 'step',
      run: async () => ({}),
    };
    if (this.#stopping) return STOPPED;
    if (!this.#o.clientWithToken) return { ok: false, code: 'no_step_client', final: true };
    const client = this.#o.clientWithToken(step.token);
    try {
      if (step.outcome.ok)
        await client.functions.completeSuccess({
          function_execution_id: step.executionId,
          outputs: step.outcome.outputs,
        });
      else
        await client.functions.completeError({
          function_execution_id: step.executionId,
          error: step.outcome.error,
        });
      return { ok: true };
    } catch (err) {
      const { code } = classify(err);
      if (refusalOf(code)) return this.#final(code, job);
      this.#o.logger.warn(
        { err, workspace: step.workspaceId, execution: step.executionId },
        'Slack did not take a workflow step completion; it is retried',
      );
      return { ok: false, code, final: false };
    }
  }

  /**
   * chat.update of a message the app posted. `message` may be a function, called when the write's turn
   * comes (a live redraw reads the queue then); it answers undefined when there is nothing to write any
   * more. With `coalesce`, a newer update replaces a waiting one of the same key.
   */
  update(
    to: { workspaceId: string; channel: string; ts: string },
    message: OutgoingMessage | (() => Promise<OutgoingMessage | undefined>),
    kind: MessageKind,
    opts: { coalesce?: string } = {},
  ): Promise<NotifyResult> {
    return this.#enqueue({
      workspaceId: to.workspaceId,
      channel: to.channel,
      kind,
      ...(opts.coalesce ? { coalesce: opts.coalesce } : {}),
      run: async (client) => {
        const m = typeof message === 'function' ? await message() : message;
        if (!m) return { ts: to.ts };
        await client.chat.update({
          channel: to.channel,
          ts: to.ts,
          text: m.text,
          ...(m.blocks ? { blocks: m.blocks as never } : {}),
        });
        return { ts: to.ts };
      },
    });
  }

  /**
   * canvases.edit replacing a canvas's whole document, in its channel's lane (a dashboard: paced with
   * everything else the app writes there). A newer edit of the same canvas replaces one still waiting.
   */
  editCanvas(
    to: { workspaceId: string; channel: string },
    canvasId: string,
    markdown: string,
  ): Promise<NotifyResult> {
    return this.#enqueue({
      workspaceId: to.workspaceId,
      channel: to.channel,
      kind: 'dashboard',
      coalesce: `canvas:${canvasId}`,
      run: async (client) => {
        await client.canvases.edit({
          canvas_id: canvasId,
          changes: [{ operation: 'replace', document_content: { type: 'markdown', markdown } }],
        });
        return {};
      },
    });
  }

  /** Queues a write in its channel's lane; resolves with what became of it. */
  #enqueue(job: OutboxJob): Promise<NotifyResult> {
    if (this.#stopping) return Promise.resolve(STOPPED);
    const key = laneKey(job.workspaceId, job.channel);
    let lane = this.#lanes.get(key);
    const fresh = !lane;
    if (!lane) {
      lane = { waiting: [] };
      this.#lanes.set(key, lane);
    }
    return new Promise<NotifyResult>((resolve) => {
      const same = job.coalesce ? lane.waiting.find((i) => i.job.coalesce === job.coalesce) : undefined;
      if (same) {
        same.job = job;
        same.settle.push(resolve);
      } else lane.waiting.push({ job, queuedAt: performance.now(), settle: [resolve] });
      if (fresh) void this.#drain(key, lane);
    });
  }

  /** Writes waiting or being sent. */
  get depth(): number {
    let n = 0;
    for (const l of this.#lanes.values()) n += l.waiting.length + (l.current && !l.current.dropped ? 1 : 0);
    return n;
  }

  /** Age of the oldest write not yet answered (0 when empty). */
  get oldestAgeMs(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const l of this.#lanes.values()) {
      if (l.current && !l.current.dropped) oldest = Math.min(oldest, l.current.queuedAt);
      for (const i of l.waiting) oldest = Math.min(oldest, i.queuedAt);
    }
    return Number.isFinite(oldest) ? performance.now() - oldest : 0;
  }

  /** Resolves when every lane is empty. */
  idle(): Promise<void> {
    if (this.#lanes.size === 0) return Promise.resolve();
    return new Promise((r) => this.#idle.push(r));
  }

  /**
   * Takes no new writes; waits up to `waitMs` (a duration, not an epoch deadline) for the lanes to drain,
   * then drops what is left (each answered as passing trouble, so durable callers retry it later), logged
   * and counted.
   */
  async stop(waitMs: number): Promise<void> {
    this.#stopping = true;
    await settleBy(this.idle(), Date.now() + waitMs);
    this.#abandoned = true;
    const dropped: Record<string, number> = {};
    const drop = (item: Item) => {
      item.dropped = true;
      dropped[item.job.kind] = (dropped[item.job.kind] ?? 0) + 1;
      this.#o.metrics.outboxDropped.inc({ kind: item.job.kind });
      for (const s of item.settle.splice(0)) s(STOPPED);
    };
    for (const lane of this.#lanes.values()) {
      // A write Slack is answering now is left to finish; one still waiting for its turn is dropped.
      if (lane.current && !lane.current.sending) drop(lane.current);
      for (const item of lane.waiting.splice(0)) drop(item);
    }
    if (Object.keys(dropped).length > 0)
      this.#o.logger.warn(
        { dropped },
        'Slack outbox stopped with writes still queued; dropped (queue events and digests are retried from the store)',
      );
  }

  async #drain(key: string, lane: Lane): Promise<void> {
    for (let item = lane.waiting.shift(); item; item = lane.waiting.shift()) {
      lane.current = item;
      const result = await this.#send(key, item).catch((err: unknown): NotifyResult => {
        // Not expected (#send answers every failure); the lane must go on whatever happens.
        this.#o.logger.error({ err, channel: item.job.channel }, 'Slack outbox write failed unexpectedly');
        return { ok: false, code: 'internal_error', final: false };
      });
      lane.current = undefined;
      for (const s of item.settle) s(result);
    }
    this.#lanes.delete(key);
    if (this.#lanes.size === 0) for (const r of this.#idle.splice(0)) r();
  }

  async #send(key: string, item: Item): Promise<NotifyResult> {
    const { job } = item;
    let client: WebClient;
    try {
      client = await this.#o.slackFor(job.workspaceId);
    } catch (err) {
      if (isNoInstallation(err)) return this.#final('no_installation', job);
      // The installation store did not answer (a database hiccup): passing trouble, retried by the caller.
      this.#o.logger.warn(
        { err, workspace: job.workspaceId },
        'could not get a Slack client for a workspace',
      );
      return { ok: false, code: 'slack_client_unavailable', final: false };
    }
    for (let attempt = 0; ; attempt++) {
      item.sending = false;
      await this.#pacer.turn(key);
      if (item.dropped || this.#abandoned) return STOPPED;
      item.sending = true;
      try {
        const { ts, channel } = await job.run(client);
        return ts ? { ok: true, ts, ...(channel ? { channel } : {}) } : { ok: true };
      } catch (err) {
        const failure = classify(err);
        const wait = retryDelay(failure, attempt);
        if (wait !== undefined) {
          this.#pacer.backOff(key, wait);
          continue;
        }
        if (refusalOf(failure.code)) return this.#final(failure.code, job);
        this.#o.logger.warn(
          { err, workspace: job.workspaceId, channel: job.channel, kind: job.kind },
          'Slack did not take a message; the caller retries it',
        );
        return { ok: false, code: failure.code, final: false };
      }
    }
  }

  #final(code: string, job: OutboxJob): NotifyResult {
    const refusal = refusalOf(code);
    this.#o.metrics.outboxFinalErrors.inc({ code });
    this.#o.logger[refusal === 'workspace' ? 'error' : 'warn'](
      { slackError: code, workspace: job.workspaceId, channel: job.channel, kind: job.kind },
      'Slack refused a message for good',
    );
    return refusal ? { ok: false, code, final: true, refusal } : { ok: false, code, final: false };
  }
}

/** The workspace has no installation (no bot token): slack/workspace.ts or Bolt's authorize() said so. */
function isNoInstallation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ('code' in err && err.code === 'slack_bolt_authorization_error') return true;
  return err instanceof Error && /no Slack installation/i.test(err.message);
}

/** The lane (and pacer) key of a channel or person in a workspace. */
export function laneKey(workspaceId: string, channel: string): string {
  return `${workspaceId}|${channel}`;
}
