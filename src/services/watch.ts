/**
 * The watch service: a channel's feeds of queue events (`watch`, `watch list`, `unwatch`) as
 * `(actor, request) → WatchAnswer`. The queue is resolved like every command's (typed, channel default,
 * workspace default, DEFAULT_REPO) and checked with Trunk before a feed starts, so a typo gets an answer
 * instead of a feed that never posts. Changes are audited here; the Slack side renders the answer.
 */
import { formatQueueRef, type QueueRef, type TargetSpec } from '../core/target.ts';
import { readQueue } from '../queue/operations.ts';
import { type Topic, type Watch, WatchRepository } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueService } from './queue.ts';

/** Whether a channel is shared with another organization (Slack Connect); undefined when Slack would not say. */
export interface SharedChannels {
  isShared(channelId: string): Promise<boolean | undefined>;
}

/** A stuck threshold below this many minutes alerts so often that only an operator may set it. */
export const OPERATOR_STUCK_BELOW_MINUTES = 10;

export type WatchRequest =
  | { kind: 'list'; channelId: string }
  | { kind: 'add'; channelId: string; target?: TargetSpec; topics: Topic[]; stuckMinutes?: number }
  | { kind: 'remove'; channelId: string; target?: TargetSpec };

export type WatchAnswer =
  | { answer: 'listed'; watches: Watch[] }
  | { answer: 'no_target' }
  | { answer: 'not_connected' }
  /** Not allowed to manage this channel's feeds: `what` they tried, `because` in plain words, audited. */
  | { answer: 'refused'; what: string; because: string; operatorsMay: boolean }
  /** Trunk could not read the queue (unknown, or Trunk failing): nothing was started. */
  | { answer: 'queue_unreadable'; error: unknown }
  /**
   * `before` is the channel's feed of that queue this replaced, if any; `change` says whether the channel
   * has something to hear (the same settings asked for again change nothing).
   */
  | { answer: 'watching'; watch: Watch; before?: Watch; change: 'started' | 'changed' | 'unchanged' }
  /** `watches` are the channel's feeds before the request. */
  | { answer: 'unwatched'; target: QueueRef; removed: boolean; watches: Watch[]; ended?: Watch };

/**
 * Who may start, change or end a channel's feed (DESIGN: guests and people of other organizations do not
 * manage feeds): one of the workspace's own people; in a channel shared with another organization, an
 * operator; a stuck threshold under OPERATOR_STUCK_BELOW_MINUTES, an operator. Undefined when allowed.
 */
async function whyNotFeedManager(
  actor: Actor,
  channels: SharedChannels | undefined,
  channelId: string,
  stuckMinutes: number | undefined,
): Promise<{ because: string; operatorsMay: boolean } | undefined> {
  const standing = await actor.standing();
  if (!standing.own) {
    const because = standing.unreadable
      ? 'Slack could not say who you are right now, so it could not be checked'
      : standing.guest
        ? 'guests do not manage channel feeds'
        : "only the workspace's own people manage channel feeds";
    return { because, operatorsMay: false };
  }
  const needsOperator =
    stuckMinutes !== undefined && stuckMinutes < OPERATOR_STUCK_BELOW_MINUTES
      ? `a stuck threshold under ${OPERATOR_STUCK_BELOW_MINUTES} minutes is for operators`
      : undefined;
  const shared = channels ? await channels.isShared(channelId) : false;
  const sharedWhy =
    shared === undefined
      ? 'Slack could not say whether this channel is shared with another organization, and in a shared channel only operators manage feeds'
      : shared
        ? 'this channel is shared with another organization, so only operators manage its feeds'
        : undefined;
  const because = sharedWhy ?? needsOperator;
  if (!because || (await actor.isOperator())) return undefined;
  return { because, operatorsMay: true };
}

/** A refused change of a channel's feed, as every feed service answers it. */
export interface FeedRefusal {
  answer: 'refused';
  /** What they tried, in words ("start this channel's flaky-test feed"). */
  what: string;
  because: string;
  operatorsMay: boolean;
}

/**
 * The refusal (audited as `action` on `target`) when the person may not change the channel's feed by the rule
 * above; undefined when they may. Shared by the queue feeds and the flaky-test feeds (services/test-feeds.ts).
 */
export async function refuseFeedChange(
  actor: Actor,
  channels: SharedChannels | undefined,
  r: { channelId: string; action: string; target: string; what: string; stuckMinutes?: number | undefined },
): Promise<FeedRefusal | undefined> {
  const why = await whyNotFeedManager(actor, channels, r.channelId, r.stuckMinutes);
  if (!why) return undefined;
  await actor.audit(r.action, r.target, 'refused', { channel: r.channelId, because: why.because });
  return { answer: 'refused', what: r.what, because: why.because, operatorsMay: why.operatorsMay };
}

export interface WatchService {
  /** `channels` says which channels are shared with another organization (the Slack side asks Slack). */
  handle(actor: Actor, request: WatchRequest, channels?: SharedChannels): Promise<WatchAnswer>;
}

export function createWatchService(
  deps: Pick<ServiceDeps, 'store' | 'trunk'>,
  queue: QueueService,
): WatchService {
  const repo = new WatchRepository(deps.store.db);

  async function refuseUnlessFeedManager(
    actor: Actor,
    action: 'watch' | 'unwatch',
    channelId: string,
    ref: QueueRef,
    channels: SharedChannels | undefined,
    stuckMinutes?: number,
  ): Promise<WatchAnswer | undefined> {
    const target = formatQueueRef(ref);
    const what =
      action === 'watch'
        ? `start or change this channel's feed of ${target}`
        : `end this channel's feed of ${target}`;
    return refuseFeedChange(actor, channels, { channelId, action, target, what, stuckMinutes });
  }

  async function add(
    actor: Actor,
    r: Extract<WatchRequest, { kind: 'add' }>,
    channels: SharedChannels | undefined,
  ): Promise<WatchAnswer> {
    const workspaceId = actor.workspace.id;
    const [ref, trunk] = await Promise.all([
      queue.resolveRef(actor, r.channelId, r.target),
      deps.trunk.trunkFor(workspaceId),
    ]);
    if (!ref) return { answer: 'no_target' };
    const refused = await refuseUnlessFeedManager(actor, 'watch', r.channelId, ref, channels, r.stuckMinutes);
    if (refused) return refused;
    if (!trunk) return { answer: 'not_connected' };
    try {
      await readQueue({ trunk: trunk.api }, ref);
    } catch (error) {
      return { answer: 'queue_unreadable', error };
    }
    const target = formatQueueRef(ref);
    const before = (await repo.listChannel(workspaceId, r.channelId)).find(
      (w) => formatQueueRef(w.target) === target,
    );
    const watch = await repo.upsert({
      workspaceId,
      channelId: r.channelId,
      target: ref,
      topics: r.topics,
      ...(r.stuckMinutes !== undefined ? { stuckMinutes: r.stuckMinutes } : {}),
      createdBy: actor.userId,
      createdAt: actor.now(),
    });
    await actor.audit('watch', target, 'ok', { channel: r.channelId, topics: watch.topics });
    if (!before) return { answer: 'watching', watch, change: 'started' };
    const same = before.topics.join() === watch.topics.join() && before.stuckMinutes === watch.stuckMinutes;
    return { answer: 'watching', watch, before, change: same ? 'unchanged' : 'changed' };
  }

  async function remove(
    actor: Actor,
    r: Extract<WatchRequest, { kind: 'remove' }>,
    channels: SharedChannels | undefined,
  ): Promise<WatchAnswer> {
    const workspaceId = actor.workspace.id;
    const watches = await repo.listChannel(workspaceId, r.channelId);
    // With nothing typed and one feed here, that feed is the one meant (even if it is not the default queue).
    const only = !r.target && watches.length === 1 ? watches[0]!.target : undefined;
    const ref = only ?? (await queue.resolveRef(actor, r.channelId, r.target));
    if (!ref) return { answer: 'no_target' };
    const target = formatQueueRef(ref);
    // Refusing only matters when there is a feed to end: otherwise the answer is "nothing to end".
    if (watches.some((w) => formatQueueRef(w.target) === target)) {
      const refused = await refuseUnlessFeedManager(actor, 'unwatch', r.channelId, ref, channels);
      if (refused) return refused;
    }
    const ended = watches.find((w) => formatQueueRef(w.target) === target);
    const removed = await repo.remove(workspaceId, r.channelId, ref);
    if (removed) await actor.audit('unwatch', target, 'ok', { channel: r.channelId });
    return {
      answer: 'unwatched',
      target: ref,
      removed,
      watches,
      ...(removed && ended ? { ended } : {}),
    };
  }

  return {
    async handle(actor, request, channels) {
      switch (request.kind) {
        case 'list':
          return { answer: 'listed', watches: await repo.listChannel(actor.workspace.id, request.channelId) };
        case 'add':
          return add(actor, request, channels);
        case 'remove':
          return remove(actor, request, channels);
      }
    },
  };
}
