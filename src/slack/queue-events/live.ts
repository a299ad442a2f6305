/**
 * Live status messages: a `/mergequeue status` post in a channel is registered to keep itself current for
 * LIVE_STATUS_HOURS; the watcher's events redraw it in place (deliver.ts), through the outbox. At most
 * three per queue and channel are live: registering a fourth retires the oldest, which is redrawn at once
 * saying it is no longer live. When its time is up a message is redrawn once more the same way, with its
 * Refresh button kept. One that Slack says is gone is forgotten (deliver.ts).
 *
 * With a v2 key, a redraw lists the PRs in Trunk's dispatch order (one order read per queue and pass, joined
 * like the queue read); an order that cannot be read leaves v1's list (logged).
 */
import type { NotifyResult } from '../../core/notifier.ts';
import type { QueueRef } from '../../core/target.ts';
import type { Logger } from '../../observability/log.ts';
import type { Queue } from '../../trunk/types.ts';
import type { MergeQueueOrder } from '../../trunk/v2/schemas.ts';
import { type LiveMessage, type LiveMessageRepository, queueKeyOf } from '../../watch/index.ts';
import { renderLiveEndedUnread } from '../blocks/events.ts';
import { renderStatus } from '../blocks/status.ts';
import type { SlackOutbox } from '../outbox/outbox.ts';
import type { SlackReply } from '../reply.ts';
import type { Workspaces } from '../workspace.ts';

/** Live status messages one queue may have in one channel; a newer one retires the oldest. */
export const MAX_LIVE_PER_QUEUE_AND_CHANNEL = 3;

/** What the status command and the buttons need of live messages. */
export interface LiveStatus {
  /**
   * Registers a status message just posted in a channel (and retires the oldest beyond three). `queue` is what
   * the command just read: the retired messages are drawn from it, so a retirement costs Trunk nothing.
   */
  register(m: {
    workspaceId: string;
    channelId: string;
    ts: string;
    target: QueueRef;
    queue?: Queue;
  }): Promise<void>;
  isLive(workspaceId: string, channelId: string, ts: string): Promise<boolean>;
}

export interface LiveDeps {
  repo: LiveMessageRepository;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor' | 'v2For'>;
  outbox: SlackOutbox;
  logger: Logger;
  now: () => number;
  appUrl: string | undefined;
  liveHours: number;
}

export function liveStatus(d: LiveDeps): LiveStatus {
  return {
    async register({ queue, ...m }) {
      const now = d.now();
      await d.repo.upsert({ ...m, liveUntil: now + d.liveHours * 3_600_000 }, now);
      const mine = (await d.repo.listQueue(m.workspaceId, queueKeyOf(m.target), now))
        .filter((x) => x.channelId === m.channelId)
        .sort((a, b) => Number(b.ts) - Number(a.ts));
      const retired = mine.slice(MAX_LIVE_PER_QUEUE_AND_CHANNEL);
      if (retired.length === 0) return;
      // Their live period ends now; the expiry redraws each once (whoever deletes the row), not awaited:
      // the person's status reply does not wait for Slack's pace in a busy channel.
      for (const r of retired) await d.repo.upsert({ ...r, liveUntil: now }, now);
      const reads: QueueReads = new Map();
      if (queue) reads.set(readKey(m.workspaceId, m.target), Promise.resolve(queue));
      void expireLive(d, reads).catch((err: unknown) =>
        d.logger.warn({ err, channel: m.channelId }, 'could not retire the oldest live status message'),
      );
    },
    async isLive(workspaceId, channelId, ts) {
      const m = await d.repo.get(workspaceId, channelId, ts);
      return m !== undefined && m.liveUntil > d.now();
    },
  };
}

/** One Trunk read per queue, however many of its live messages are drawn in one pass. */
export type QueueReads = Map<string, Promise<Queue>>;

/** One dispatch-order read per queue (v2), however many of its live messages are drawn in one pass. */
export type OrderReads = Map<string, Promise<MergeQueueOrder | undefined>>;

/**
 * The queue's dispatch order when the workspace has a v2 key (caller `watch`, so it waits behind people's
 * commands in the budget); undefined without a key, and when it cannot be read (logged: v1's list is shown).
 */
export function orderOf(
  d: Pick<LiveDeps, 'workspaces' | 'logger'>,
  workspaceId: string,
  target: QueueRef,
  orders: OrderReads,
): Promise<MergeQueueOrder | undefined> {
  const key = readKey(workspaceId, target);
  let read = orders.get(key);
  if (!read) {
    read = (async () => {
      const v2 = await d.workspaces.v2For(workspaceId, 'watch');
      return v2?.reader.order({ repo: target.repo, targetBranch: target.branch });
    })().catch((err: unknown) => {
      d.logger.warn(
        { err, workspace: workspaceId, queue: queueKeyOf(target) },
        "could not read the queue's dispatch order from Trunk v2; showing v1's list",
      );
      return undefined;
    });
    orders.set(key, read);
  }
  return read;
}

/** The key of a queue's read in QueueReads. */
export function readKey(workspaceId: string, target: QueueRef): string {
  return `${workspaceId}|${queueKeyOf(target)}`;
}

type LiveRef = Pick<LiveMessage, 'workspaceId' | 'channelId' | 'ts' | 'target'>;

/**
 * Queues a redraw of a live message in its channel's lane. A redraw still waiting is replaced by a newer
 * one (the latest state is drawn once); the queue is read (or taken from `reads`) when its turn comes.
 */
export function redrawLive(
  d: LiveDeps,
  m: LiveRef,
  live: 'live' | 'ended',
  reads: QueueReads,
  orders: OrderReads = new Map(),
): Promise<NotifyResult> {
  return d.outbox.update(
    { workspaceId: m.workspaceId, channel: m.channelId, ts: m.ts },
    () => drawLive(d, m, live, reads, orders),
    'live',
    // A live redraw never replaces a waiting final one (nor the other way round): both keep their turn.
    { coalesce: `${live}|${m.ts}` },
  );
}

/** The live message as it should read now; undefined when it is no longer live (ended or forgotten meanwhile). */
async function drawLive(
  d: LiveDeps,
  m: LiveRef,
  live: 'live' | 'ended',
  reads: QueueReads,
  orders: OrderReads,
): Promise<SlackReply | undefined> {
  if (live === 'live') {
    const still = await d.repo.get(m.workspaceId, m.channelId, m.ts);
    if (!still || still.liveUntil <= d.now()) return undefined;
  }
  const trunk = await d.workspaces.backgroundTrunkFor(m.workspaceId, 'watch');
  const links = {
    ...(d.appUrl ? { appUrl: d.appUrl } : {}),
    ...(trunk?.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
  };
  const key = readKey(m.workspaceId, m.target);
  // Read beside the queue, not after it: a redraw waits for the slower of the two, never their sum.
  const order = trunk ? orderOf(d, m.workspaceId, m.target, orders) : Promise.resolve(undefined);
  let queue: Queue | undefined;
  try {
    let read = reads.get(key);
    if (!read) {
      if (!trunk) throw new Error('the workspace is not connected to Trunk');
      read = trunk.api.getQueue({ repo: m.target.repo, targetBranch: m.target.branch });
      reads.set(key, read);
    }
    queue = await read;
  } catch (err) {
    // A live update must show the queue; the final redraw can do without it (Refresh reads it later).
    if (live === 'live') throw err;
    d.logger.warn({ err, channel: m.channelId }, 'could not read the queue for a live message that ended');
  }
  if (!queue) return renderLiveEndedUnread(m.target, d.now(), links);
  const dispatch = await order;
  return renderStatus({
    ref: m.target,
    queue,
    renderedAt: d.now(),
    live,
    ...links,
    ...(dispatch ? { order: dispatch } : {}),
  });
}

/** Redraws the messages whose live period ended as no longer live; each is taken by one replica only. */
export async function expireLive(d: LiveDeps, reads: QueueReads = new Map()): Promise<number> {
  const expired = await d.repo.takeExpired(d.now());
  const orders: OrderReads = new Map();
  await Promise.all(
    expired.map(async (m) => {
      const r = await redrawLive(d, m, 'ended', reads, orders);
      if (!r.ok)
        d.logger.warn(
          { slackError: r.code, channel: m.channelId },
          'could not mark a status message as no longer live',
        );
    }),
  );
  return expired.length;
}
