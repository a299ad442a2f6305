/**
 * The Slack side of queue events (the watcher's deliverBatch): every claimed event of one queue arrives
 * at once, so a channel gets one message for a burst (health alerts on their own, as they carry buttons),
 * each live status message is redrawn once from one Trunk read, and each linked author gets a note per
 * PR event. Every write goes through the outbox (one lane per channel, paced; channels side by side);
 * the watcher does not wait for them, it settles each claim when its write is answered.
 *
 * What a final refusal means here (src/slack/outbox/final-errors.ts): a feed whose channel is closed to the
 * app is paused and its creator told once; a live message that is gone, or whose channel is closed, is
 * forgotten at once; a note to a person who cannot be written to is dropped. Other failures are retried
 * on the next tick.
 */
import type { NotifyResult } from '../../core/notifier.ts';
import { formatQueueRef } from '../../core/target.ts';
import type { Logger } from '../../observability/log.ts';
import type {
  DeliveryContext,
  DeliveryItem,
  DeliveryResult,
  Destination,
  WatchEvent,
  WatchRepository,
} from '../../watch/index.ts';
import { type EventLinks, renderAuthorNote, renderFeed, renderHealth } from '../blocks/events.ts';
import { renderFeedPaused } from '../blocks/feed-paused.ts';
import type { SlackReply } from '../reply.ts';
import { type LiveDeps, type QueueReads, readKey, redrawLive } from './live.ts';

type HealthEvent = Extract<WatchEvent, { kind: 'health' }>;
type FeedEvent = Exclude<WatchEvent, HealthEvent>;
type AuthorEvent = Extract<WatchEvent, { kind: 'testing' | 'merged' | 'failed' | 'cancelled' }>;
type ChannelDest = Extract<Destination, { kind: 'channel' }>;
type LiveDest = Extract<Destination, { kind: 'live' }>;

/** One Slack write and the (item, destination) pairs its outcome settles. */
interface Job {
  settles: Array<{ item: number; key: string }>;
  send(): Promise<NotifyResult>;
  /** What a final refusal of this write means for its destination. */
  refused?(r: Extract<NotifyResult, { ok: false }>): Promise<void>;
}

export interface DeliverDeps extends LiveDeps {
  watches: WatchRepository;
  logger: Logger;
}

export function createSlackDeliver(d: DeliverDeps) {
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
    const reads: QueueReads = new Map();
    // The poll of this tick already read the queue: live messages are drawn from that read, not another.
    if (context.queue) reads.set(readKey(workspaceId, first.event.target), Promise.resolve(context.queue));
    const post = (channel: string, reply: SlackReply, kind: 'feed' | 'alert' | 'note') =>
      d.outbox.post({ workspaceId, channel }, reply, kind);

    const feeds = new Map<string, { dest: ChannelDest; events: FeedEvent[]; settles: Job['settles'] }>();
    const lives = new Map<string, { dest: LiveDest; settles: Job['settles'] }>();
    const jobs: Job[] = [];
    for (const [i, { event, destinations }] of items.entries()) {
      for (const dest of destinations) {
        const settle = { item: i, key: dest.key };
        if (dest.kind === 'channel') {
          if (event.kind === 'health') {
            jobs.push({
              settles: [settle],
              send: () => post(dest.channelId, renderHealth(event, links), 'alert'),
              refused: (r) => pauseFeed(d, dest, r),
            });
            continue;
          }
          const feed = feeds.get(dest.key) ?? { dest, events: [], settles: [] };
          feed.events.push(event);
          feed.settles.push(settle);
          feeds.set(dest.key, feed);
        } else if (dest.kind === 'live') {
          const live = lives.get(dest.key) ?? { dest, settles: [] };
          live.settles.push(settle);
          lives.set(dest.key, live);
        } else if (isAuthorEvent(event)) {
          jobs.push({
            settles: [settle],
            // chat.postMessage to a user id opens the app's DM with them: chat:write is enough.
            send: () => post(dest.userId, renderAuthorNote(event, dest, links), 'note'),
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
    for (const { dest, events, settles } of feeds.values())
      jobs.push({
        settles,
        send: () => post(dest.channelId, renderFeed(events, links), 'feed'),
        refused: (r) => pauseFeed(d, dest, r),
      });
    for (const { dest, settles } of lives.values())
      jobs.push({
        settles,
        send: () =>
          redrawLive(
            d,
            { workspaceId, channelId: dest.channelId, ts: dest.ts, target: first.event.target },
            'live',
            reads,
          ),
        refused: (r) => forgetLive(d, dest, r),
      });

    await Promise.all(
      jobs.map(async (job) => {
        const r = await job.send();
        if (!r.ok && r.final)
          await job
            .refused?.(r)
            .catch((err: unknown) =>
              d.logger.warn({ err }, 'could not act on a refused queue-event message'),
            );
        for (const s of job.settles)
          results[s.item]!.push(
            r.ok ? { key: s.key, ok: true } : { key: s.key, ok: false, error: r.code, final: r.final },
          );
      }),
    );
    return results;
  };
}

/**
 * The feed's channel is closed to the app (archived, app removed, gone): the feed stops, and its creator
 * is told once (whoever removes the row tells), with the exact `watch` command that starts it again.
 */
async function pauseFeed(d: DeliverDeps, dest: ChannelDest, r: Extract<NotifyResult, { ok: false }>) {
  if (r.refusal !== 'channel') return;
  const watch = await d.watches.get(dest.workspaceId, dest.watchId);
  if (!watch || !(await d.watches.remove(watch.workspaceId, watch.channelId, watch.target))) return;
  d.logger.warn(
    {
      workspace: watch.workspaceId,
      channel: watch.channelId,
      queue: formatQueueRef(watch.target),
      slackError: r.code,
    },
    'feed paused: Slack refuses its channel; its creator is told',
  );
  const told = await d.outbox.post(
    { workspaceId: watch.workspaceId, channel: watch.createdBy },
    renderFeedPaused(watch, r.code),
    'notice',
  );
  if (!told.ok)
    d.logger.warn(
      { slackError: told.code, watch: watch.id },
      'could not tell a feed creator their feed is paused',
    );
}

/** A live message Slack says is gone (or whose channel is closed) is forgotten at once. */
async function forgetLive(d: DeliverDeps, dest: LiveDest, r: Extract<NotifyResult, { ok: false }>) {
  if (r.refusal !== 'message' && r.refusal !== 'channel') return;
  await d.repo.forget(dest.workspaceId, dest.channelId, dest.ts);
  d.logger.info(
    { channel: dest.channelId, ts: dest.ts, slackError: r.code },
    'live status message gone; forgotten',
  );
}

function isAuthorEvent(e: WatchEvent): e is AuthorEvent {
  return e.kind === 'testing' || e.kind === 'merged' || e.kind === 'failed' || e.kind === 'cancelled';
}
