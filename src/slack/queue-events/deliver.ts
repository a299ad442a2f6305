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
 *
 * A PR that failed or was cancelled: when the workspace has a v2 key, the stories of the burst's PRs are read
 * in one batch, and the author's note and the channel feed say the same as `why` (the reason and the next
 * step). Those posts wait for the stories at most STORY_WAIT_MS; a read that is later goes out with v1's words
 * and each post is edited in place (chat.update, through the outbox) when the stories arrive. A failed read
 * leaves v1's words (logged).
 */
import { settleBy } from '../../core/deadline.ts';
import type { NotifyResult } from '../../core/notifier.ts';
import { formatQueueRef } from '../../core/target.ts';
import type { Logger } from '../../observability/log.ts';
import type { PrStory } from '../../queue/story.ts';
import type {
  DeliveryContext,
  DeliveryItem,
  DeliveryResult,
  DepartureFate,
  Departures,
  Destination,
  WatchEvent,
  WatchRepository,
} from '../../watch/index.ts';
import {
  type EventLinks,
  type EventStories,
  leftStory,
  renderAuthorNote,
  renderFeed,
  renderHealth,
} from '../blocks/events.ts';
import { renderFeedPaused } from '../blocks/feed-paused.ts';
import { renderSlow } from '../blocks/health.ts';
import type { SlackReply } from '../reply.ts';
import { type LiveDeps, type OrderReads, type QueueReads, readKey, redrawLive } from './live.ts';

/**
 * How long a failure's note and feed post wait for the PRs' stories from v2 before going out with v1's words
 * (edited in place when the stories come): far inside the two watch intervals DESIGN's timing rule allows.
 */
export const STORY_WAIT_MS = 3_000;

type HealthEvent = Extract<WatchEvent, { kind: 'health' }>;
type FeedEvent = Exclude<WatchEvent, HealthEvent | { kind: 'slow' }>;
type AuthorEvent = Extract<WatchEvent, { kind: 'testing' | 'merged' | 'failed' | 'cancelled' | 'autopilot' }>;
type ChannelDest = Extract<Destination, { kind: 'channel' }>;
type LiveDest = Extract<Destination, { kind: 'live' }>;

/** One Slack write and the (item, destination) pairs its outcome settles. */
interface Job {
  settles: Array<{ item: number; key: string }>;
  send(): Promise<NotifyResult>;
  /**
   * The message again with the stories, when it was sent without them (they came late): edited in place.
   * Undefined when the stories change nothing in it.
   */
  redraw?(stories: EventStories): SlackReply | undefined;
  /** Where the post went (a user id for a note: Slack answers the DM's channel id, which is used first). */
  channel?: string;
  kind?: 'feed' | 'note';
  /** What a final refusal of this write means for its destination. */
  refused?(r: Extract<NotifyResult, { ok: false }>): Promise<void>;
}

/**
 * Kicks (issue 29), handed in by the composition: each failed or cancelled PR classed with the queue's history
 * (and the class kept on its history row), and the autopilot's decision on a kick.
 */
export interface KickPorts {
  /** PR number → its story with `kick` set (the stories read is the one `why` would make: no second read). */
  classify(
    workspaceId: string,
    target: WatchEvent['target'],
    events: ReadonlyArray<Extract<WatchEvent, { kind: 'failed' | 'cancelled' }>>,
    stories: EventStories | undefined,
  ): Promise<EventStories | undefined>;
  /** The autopilot on one kick: done (whatever it decided), or to be tried again (`ok: false`). */
  autopilot(
    event: Extract<WatchEvent, { kind: 'failed' | 'cancelled' }>,
    story: PrStory | undefined,
  ): Promise<{ ok: true } | { ok: false; error: string }>;
}

export interface DeliverDeps extends LiveDeps {
  watches: WatchRepository;
  logger: Logger;
  kicks?: KickPorts;
  /** Default STORY_WAIT_MS. */
  storyWaitMs?: number;
  /** The poll's stories reads, reused by the delivery of its events (one per process). */
  storyReads?: StoryReads;
}

type LeftEvent = Extract<WatchEvent, { kind: 'failed' | 'cancelled' }>;

/** What the stories read says when a post is due: here in time, late (still coming), or none to tell. */
type StoriesNow = { kind: 'now'; stories: EventStories | undefined } | { kind: 'late' };

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

    // PRs that left with somewhere to say why (a feed or a note; live messages show the queue, not reasons).
    const left = [
      ...new Set(
        items
          .filter((i) => isLeft(i.event) && i.destinations.some((x) => x.kind !== 'live'))
          .map((i) => (i.event as LeftEvent).pr.number),
      ),
    ];
    // The poll may have read them already (departures): that read is reused, and the time it was waited
    // for counts, so a post is held storyWaitMs in all.
    const read = left.length > 0 ? storiesOf(d, workspaceId, first.event.target, left) : undefined;
    // Each kick classed once per burst, with the queue's history, on the one stories read (issue 29).
    const leftEvents = items.map((i) => i.event).filter(isLeft);
    const found = read && {
      startedAt: read.startedAt,
      read: read.read.then((st) =>
        d.kicks
          ? d.kicks.classify(workspaceId, first.event.target, leftEvents, st).catch((err: unknown) => {
              d.logger.warn({ err }, 'could not class the kicks; their messages say what Trunk said');
              return st;
            })
          : st,
      ),
    };
    const storiesRead = found?.read;
    let storiesNow: Promise<StoriesNow> | undefined;
    /** The stories as they stand when a post is due: waited for at most storyWaitMs, once per burst. */
    const stories = (): Promise<StoriesNow> => {
      if (!found) return Promise.resolve({ kind: 'now', stories: undefined });
      const waited = Date.now() - found.startedAt;
      storiesNow ??= within(found.read, Math.max(0, (d.storyWaitMs ?? STORY_WAIT_MS) - waited));
      return storiesNow;
    };

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
          if (event.kind === 'slow') {
            jobs.push({
              settles: [settle],
              send: () => post(dest.channelId, renderSlow(event, links), 'alert'),
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
        } else if (dest.kind === 'autopilot' && isLeft(event) && d.kicks) {
          const kicks = d.kicks;
          // The autopilot waits for the whole stories read (its class needs it), not the posts' STORY_WAIT_MS.
          jobs.push({
            settles: [settle],
            send: async () => {
              const st = found ? await found.read : undefined;
              const r = await kicks.autopilot(event, leftStory(event, st));
              return r.ok ? { ok: true } : { ok: false, code: r.error.slice(0, 200), final: false };
            },
          });
        } else if (dest.kind === 'author' && isAuthorEvent(event)) {
          const note = (st: EventStories | undefined) =>
            renderAuthorNote(event, dest, links, isLeft(event) ? leftStory(event, st) : undefined);
          jobs.push({
            settles: [settle],
            // chat.postMessage to a user id opens the app's DM with them: chat:write is enough.
            send: async () => {
              const now = isLeft(event) ? await stories() : { kind: 'now' as const, stories: undefined };
              return post(dest.userId, note(now.kind === 'now' ? now.stories : undefined), 'note');
            },
            ...(isLeft(event)
              ? { redraw: (st: EventStories) => (leftStory(event, st) ? note(st) : undefined) }
              : {}),
            channel: dest.userId,
            kind: 'note',
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
    for (const { dest, events, settles } of feeds.values()) {
      const tells = events.some(isLeft);
      jobs.push({
        settles,
        send: async () => {
          const now = tells ? await stories() : { kind: 'now' as const, stories: undefined };
          return post(
            dest.channelId,
            renderFeed(events, links, now.kind === 'now' ? now.stories : undefined),
            'feed',
          );
        },
        refused: (r) => pauseFeed(d, dest, r),
        ...(tells
          ? {
              redraw: (st: EventStories) =>
                events.some((e) => leftStory(e, st)) ? renderFeed(events, links, st) : undefined,
            }
          : {}),
        channel: dest.channelId,
        kind: 'feed',
      });
    }
    const orders: OrderReads = new Map();
    for (const { dest, settles } of lives.values())
      jobs.push({
        settles,
        send: () =>
          redrawLive(
            d,
            { workspaceId, channelId: dest.channelId, ts: dest.ts, target: first.event.target },
            'live',
            reads,
            orders,
          ),
        refused: (r) => forgetLive(d, dest, r),
      });

    await Promise.all(
      jobs.map(async (job) => {
        const r = await job.send();
        if (r.ok && r.ts && job.redraw && storiesRead)
          void editWhenTold(d, workspaceId, job, r, storiesRead, stories()).catch((err: unknown) =>
            d.logger.warn({ err }, 'could not edit a queue-event message with its reason'),
          );
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

/** How long a stories read is kept for the delivery of the poll that started it. */
const STORY_READ_KEEP_MS = 60_000;

/**
 * Stories reads of this process, per queue: the poll's read of departed PRs (departures) is the one the
 * delivery of its events uses, so a burst costs one history batch. Kept briefly, in memory only.
 */
export class StoryReads {
  readonly #reads = new Map<
    string,
    Array<{ startedAt: number; numbers: Set<number>; read: Promise<EventStories | undefined> }>
  >();

  keep(key: string, numbers: readonly number[], read: Promise<EventStories | undefined>): void {
    const now = Date.now();
    for (const [k, list] of this.#reads) {
      const fresh = list.filter((r) => now - r.startedAt < STORY_READ_KEEP_MS);
      if (fresh.length === 0) this.#reads.delete(k);
      else this.#reads.set(k, fresh);
    }
    const list = this.#reads.get(key) ?? [];
    list.push({ startedAt: now, numbers: new Set(numbers), read });
    this.#reads.set(key, list);
  }

  /** A read of `key` still kept that covers every one of `numbers` (the newest first). */
  find(key: string, numbers: readonly number[]) {
    const now = Date.now();
    return (this.#reads.get(key) ?? [])
      .filter((r) => now - r.startedAt < STORY_READ_KEEP_MS && numbers.every((n) => r.numbers.has(n)))
      .at(-1);
  }
}

/** The stories of `prNumbers`: a kept read that covers them, else a new read (kept for the next). */
function storiesOf(
  d: DeliverDeps,
  workspaceId: string,
  target: WatchEvent['target'],
  prNumbers: number[],
  fresh = false,
): { startedAt: number; read: Promise<EventStories | undefined> } {
  const key = readKey(workspaceId, target);
  const kept = fresh ? undefined : d.storyReads?.find(key, prNumbers);
  if (kept) return kept;
  const read = readStories(d, workspaceId, target, prNumbers);
  d.storyReads?.keep(key, prNumbers, read);
  return { startedAt: Date.now(), read };
}

/**
 * The watcher's port (Departures): what became of the PRs that left in one poll, from one history batch,
 * kept for the delivery of their events. A fate older than the PR's last change in the queue (a history
 * that lags behind) is not given, so v1 is asked for that PR.
 */
export function createDepartures(d: DeliverDeps): Departures {
  return async (workspaceId, target, prs) => {
    const numbers = prs.map((p) => p.number);
    // Always a new read: each poll's departures are what its events' delivery then finds (the newest).
    const { read } = storiesOf(d, workspaceId, target, numbers, true);
    const stories = await read;
    if (!stories) return undefined;
    const out = new Map<number, DepartureFate>();
    for (const p of prs) {
      const story = stories.get(p.number);
      const kind = story?.ending?.kind;
      if (kind !== 'merged' && kind !== 'failed' && kind !== 'cancelled') continue;
      const endedAt = Date.parse(story?.steps.at(-1)?.at ?? '');
      const since = p.stateChangedAt ? Date.parse(p.stateChangedAt) : Number.NaN;
      if (Number.isFinite(since) && !(endedAt >= since)) continue;
      out.set(p.number, kind);
    }
    return out;
  };
}

/**
 * The stories of the PRs that left, read in one batch (caller `watch`); undefined when the workspace has no
 * v2 key or the read failed (logged: v1's words stand).
 */
async function readStories(
  d: DeliverDeps,
  workspaceId: string,
  target: WatchEvent['target'],
  prNumbers: number[],
): Promise<EventStories | undefined> {
  try {
    const v2 = await d.workspaces.v2For(workspaceId, 'watch');
    if (!v2) return undefined;
    return await v2.reader.stories({ repo: target.repo, targetBranch: target.branch }, prNumbers);
  } catch (err) {
    d.logger.warn(
      { err, workspace: workspaceId, queue: formatQueueRef(target), prs: prNumbers.length },
      "could not read the failed PRs' stories from Trunk v2; their messages keep v1's words",
    );
    return undefined;
  }
}

/** `read` as it stands after at most `ms`: its answer, or `late` while it is still coming. */
async function within(read: Promise<EventStories | undefined>, ms: number): Promise<StoriesNow> {
  const settled = await settleBy(read, Date.now() + ms);
  if (settled.kind === 'error') throw settled.error;
  return settled.kind === 'ok' ? { kind: 'now', stories: settled.value } : { kind: 'late' };
}

/**
 * A post that went out with v1's words because the stories were late is edited in place once they come
 * (through the outbox, in its channel's turn). Nothing is edited when they never come or tell nothing new.
 */
async function editWhenTold(
  d: DeliverDeps,
  workspaceId: string,
  job: Job,
  sent: Extract<NotifyResult, { ok: true }>,
  read: Promise<EventStories | undefined>,
  now: Promise<StoriesNow>,
): Promise<void> {
  if ((await now).kind !== 'late') return;
  const stories = await read;
  const message = stories ? job.redraw?.(stories) : undefined;
  const channel = sent.channel ?? job.channel;
  if (!message || !channel || !sent.ts) return;
  const r = await d.outbox.update({ workspaceId, channel, ts: sent.ts }, message, job.kind ?? 'feed');
  if (!r.ok)
    d.logger.warn(
      { slackError: r.code, channel },
      "could not edit a queue-event message with the reason Trunk's v2 API gave",
    );
  else d.logger.info({ channel }, 'queue-event message edited in place with the reason from Trunk v2');
}

function isLeft(e: WatchEvent): e is LeftEvent {
  return e.kind === 'failed' || e.kind === 'cancelled';
}

function isAuthorEvent(e: WatchEvent): e is AuthorEvent {
  return (
    e.kind === 'testing' ||
    e.kind === 'merged' ||
    e.kind === 'failed' ||
    e.kind === 'cancelled' ||
    e.kind === 'autopilot'
  );
}
