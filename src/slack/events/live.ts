/**
 * Live status messages: a `/mergequeue status` post in a channel is registered to keep itself current for
 * LIVE_STATUS_HOURS; the watcher's events redraw it in place (deliver.ts). When its time is up it is
 * redrawn once more, saying it is no longer live, with its Refresh button kept.
 */
import type { WebClient } from '@slack/web-api';
import type { QueueRef } from '../../core/target.ts';
import type { Logger } from '../../observability/log.ts';
import type { Queue } from '../../trunk/types.ts';
import { type LiveMessage, type LiveMessageRepository, queueKeyOf } from '../../watch/index.ts';
import { renderLiveEndedUnread } from '../blocks/events.ts';
import { renderStatus } from '../blocks/status.ts';
import type { Workspaces } from '../workspace.ts';
import type { ChannelPacer } from './pacer.ts';

/** What the status command and the buttons need of live messages. */
export interface LiveStatus {
  /** Registers a status message just posted in a channel. */
  register(m: { workspaceId: string; channelId: string; ts: string; target: QueueRef }): Promise<void>;
  isLive(workspaceId: string, channelId: string, ts: string): Promise<boolean>;
}

export interface LiveDeps {
  repo: LiveMessageRepository;
  workspaces: Workspaces;
  pacer: ChannelPacer;
  logger: Logger;
  now: () => number;
  appUrl: string | undefined;
  liveHours: number;
}

export function liveStatus(d: Pick<LiveDeps, 'repo' | 'now' | 'liveHours'>): LiveStatus {
  return {
    async register(m) {
      const now = d.now();
      await d.repo.upsert({ ...m, liveUntil: now + d.liveHours * 3_600_000 }, now);
    },
    async isLive(workspaceId, channelId, ts) {
      const m = await d.repo.get(workspaceId, channelId, ts);
      return m !== undefined && m.liveUntil > d.now();
    },
  };
}

/** One Trunk read per queue, however many of its live messages are drawn in one pass. */
export type QueueReads = Map<string, Promise<Queue>>;

/** The key of a queue's read in QueueReads. */
export function readKey(workspaceId: string, target: QueueRef): string {
  return `${workspaceId}|${queueKeyOf(target)}`;
}

export async function drawLive(
  d: LiveDeps,
  client: WebClient,
  m: Pick<LiveMessage, 'workspaceId' | 'channelId' | 'ts' | 'target'>,
  live: 'live' | 'ended',
  reads: QueueReads,
): Promise<void> {
  const trunk = await d.workspaces.backgroundTrunkFor(m.workspaceId, 'watch');
  const links = {
    ...(d.appUrl ? { appUrl: d.appUrl } : {}),
    ...(trunk?.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
  };
  const key = readKey(m.workspaceId, m.target);
  let queue: Queue | undefined;
  try {
    if (!trunk) throw new Error('the workspace is not connected to Trunk');
    let read = reads.get(key);
    if (!read) {
      read = trunk.api.getQueue({ repo: m.target.repo, targetBranch: m.target.branch });
      reads.set(key, read);
    }
    queue = await read;
  } catch (err) {
    // A live update must show the queue; the final redraw can do without it (Refresh reads it later).
    if (live === 'live') throw err;
    d.logger.warn({ err, channel: m.channelId }, 'could not read the queue for a live message that ended');
  }
  const reply = queue
    ? renderStatus({ ref: m.target, queue, renderedAt: d.now(), live, ...links })
    : renderLiveEndedUnread(m.target, d.now(), links);
  await d.pacer.turn(`${m.workspaceId}|${m.channelId}`);
  await client.chat.update({
    channel: m.channelId,
    ts: m.ts,
    text: reply.text,
    ...(reply.blocks ? { blocks: reply.blocks } : {}),
  });
}

/** Redraws the messages whose live period ended as no longer live; each is taken by one replica only. */
export async function expireLive(d: LiveDeps): Promise<number> {
  const expired = await d.repo.takeExpired(d.now());
  const reads: QueueReads = new Map();
  for (const m of expired) {
    try {
      await drawLive(d, await d.workspaces.slackFor(m.workspaceId), m, 'ended', reads);
    } catch (err) {
      d.logger.warn({ err, channel: m.channelId }, 'could not mark a status message as no longer live');
    }
  }
  return expired.length;
}
