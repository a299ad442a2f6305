/**
 * The Slack side of queue events (the watcher's deliverBatch): every claimed event of one queue arrives
 * at once, so a channel gets one message for a burst (health alerts on their own, as they carry buttons),
 * each live status message is redrawn once from one Trunk read, and each linked author gets a note per
 * PR event. Writes to a channel are paced (pacer.ts). The watcher holds the claims meanwhile and records
 * the outcome: Slack errors that retrying cannot fix are final, the rest are retried next tick.
 */
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../observability/log.ts';
import type {
  DeliveryContext,
  DeliveryItem,
  DeliveryResult,
  Destination,
  WatchEvent,
} from '../../watch/index.ts';
import { type EventLinks, renderAuthorNote, renderFeed, renderHealth } from '../blocks/events.ts';
import { errorCode } from '../interaction.ts';
import type { SlackReply } from '../reply.ts';
import { drawLive, type LiveDeps, type QueueReads, readKey } from './live.ts';

/** Slack answers after which the destination is gone or closed to us: retrying cannot help. */
const FINAL = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'message_not_found',
  'cant_update_message',
  'user_not_found',
  'user_disabled',
  'account_inactive',
  'cannot_dm_bot',
  'restricted_action',
]);

type HealthEvent = Extract<WatchEvent, { kind: 'health' }>;
type FeedEvent = Exclude<WatchEvent, HealthEvent>;
type AuthorEvent = Extract<WatchEvent, { kind: 'testing' | 'merged' | 'failed' | 'cancelled' }>;

/** One Slack write and the (item, destination) pairs its outcome settles. */
interface Job {
  channelKey: string;
  settles: Array<{ item: number; key: string }>;
  run(client: WebClient): Promise<void>;
}

export function createSlackDeliver(d: LiveDeps & { logger: Logger }) {
  const post = async (client: WebClient, channel: string, reply: SlackReply) => {
    await client.chat.postMessage({
      channel,
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
  };

  return async function deliverBatch(
    items: DeliveryItem[],
    context: DeliveryContext = {},
  ): Promise<DeliveryResult[][]> {
    const results: DeliveryResult[][] = items.map(() => []);
    const first = items[0];
    if (!first) return results;
    // The watcher hands over one queue of one workspace at a time.
    const workspaceId = first.event.workspaceId;
    const trunk = await d.workspaces.backgroundTrunkFor(workspaceId, 'watch');
    const links: EventLinks = {
      ...(d.appUrl ? { appUrl: d.appUrl } : {}),
      ...(trunk?.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
    };
    const client = await d.workspaces.slackFor(workspaceId);
    const reads: QueueReads = new Map();
    // The poll of this tick already read the queue: live messages are drawn from that read, not another.
    if (context.queue) reads.set(readKey(workspaceId, first.event.target), Promise.resolve(context.queue));

    const feeds = new Map<string, { channelId: string; events: FeedEvent[]; settles: Job['settles'] }>();
    const lives = new Map<
      string,
      { dest: Extract<Destination, { kind: 'live' }>; settles: Job['settles'] }
    >();
    const jobs: Job[] = [];
    for (const [i, { event, destinations }] of items.entries()) {
      for (const dest of destinations) {
        const settle = { item: i, key: dest.key };
        if (dest.kind === 'channel') {
          const channelKey = `${workspaceId}|${dest.channelId}`;
          if (event.kind === 'health') {
            jobs.push({
              channelKey,
              settles: [settle],
              run: (c) => post(c, dest.channelId, renderHealth(event, links)),
            });
            continue;
          }
          const feed = feeds.get(dest.key) ?? { channelId: dest.channelId, events: [], settles: [] };
          feed.events.push(event);
          feed.settles.push(settle);
          feeds.set(dest.key, feed);
        } else if (dest.kind === 'live') {
          const live = lives.get(dest.key) ?? { dest, settles: [] };
          live.settles.push(settle);
          lives.set(dest.key, live);
        } else if (isAuthorEvent(event)) {
          jobs.push({
            channelKey: `${workspaceId}|${dest.userId}`,
            settles: [settle],
            // chat.postMessage to a user id opens the app's DM with them: chat:write is enough.
            run: (c) => post(c, dest.userId, renderAuthorNote(event, dest, links)),
          });
        } else {
          results[i]!.push({
            key: dest.key,
            ok: false,
            error: `no note for ${event.kind} events`,
            final: true,
          });
        }
      }
    }
    for (const feed of feeds.values())
      jobs.push({
        channelKey: `${workspaceId}|${feed.channelId}`,
        settles: feed.settles,
        run: (c) => post(c, feed.channelId, renderFeed(feed.events, links)),
      });
    for (const { dest, settles } of lives.values())
      jobs.push({
        channelKey: `${workspaceId}|${dest.channelId}`,
        settles,
        run: (c) =>
          drawLive(
            d,
            c,
            { workspaceId, channelId: dest.channelId, ts: dest.ts, target: first.event.target },
            'live',
            reads,
          ),
      });

    // One channel's writes in order, paced; channels side by side.
    const byChannel = new Map<string, Job[]>();
    for (const j of jobs) byChannel.set(j.channelKey, [...(byChannel.get(j.channelKey) ?? []), j]);
    await Promise.all(
      [...byChannel.values()].map(async (list) => {
        for (const job of list) {
          let r: { ok: true } | { ok: false; error: string; final?: boolean };
          try {
            await d.pacer.turn(job.channelKey);
            await job.run(client);
            r = { ok: true };
          } catch (err) {
            const code = errorCode(err);
            r = {
              ok: false,
              error: code === 'unknown' ? String((err as Error)?.message ?? err).slice(0, 200) : code,
              final: FINAL.has(code),
            };
            d.logger.warn({ err, channel: job.channelKey }, 'could not deliver a queue event to Slack');
          }
          for (const s of job.settles) results[s.item]!.push({ key: s.key, ...r });
        }
      }),
    );
    return results;
  };
}

function isAuthorEvent(e: WatchEvent): e is AuthorEvent {
  return e.kind === 'testing' || e.kind === 'merged' || e.kind === 'failed' || e.kind === 'cancelled';
}
