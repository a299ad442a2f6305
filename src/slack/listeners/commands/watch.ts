/**
 * `/mergequeue watch …`, `watch list` and `unwatch [target]`: this channel's feeds of queue events. Parse
 * (done by the grammar) → actor → watch service → render → reply; a feed that started, changed or ended is
 * also announced in the channel (who, and what changed).
 */
import type { TargetSpec } from '../../../core/target.ts';
import type { WatchAnswer, WatchRequest } from '../../../services/watch.ts';
import { renderError, renderFeedRefusal, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import {
  type FeedChange,
  renderFeedAnnouncement,
  renderUnwatched,
  renderWatching,
  renderWatchList,
} from '../../blocks/watch.ts';
import type { WatchCommand } from '../../grammars/watch.ts';
import type { SlackReply } from '../../reply.ts';
import { postToChannel } from '../../reply.ts';
import { sharedChannels } from '../../shared-channels.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function watch(req: CommandRequest, c: WatchCommand): Promise<Outcome> {
  if (c.kind === 'list') return answer(req, { kind: 'list', channelId: req.channelId });
  const { kind: _, ...add } = c;
  return answer(req, { kind: 'add', channelId: req.channelId, ...add });
}

export function unwatch(req: CommandRequest, typed: TargetSpec | undefined): Promise<Outcome> {
  return answer(req, { kind: 'remove', channelId: req.channelId, ...(typed ? { target: typed } : {}) });
}

async function answer(req: CommandRequest, request: WatchRequest): Promise<Outcome> {
  let a: WatchAnswer;
  try {
    a = await req.services.watch.handle(req.actor, request, sharedChannels(req.client));
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read or change the feeds');
    await req.reply.respond(renderError(err));
    return 'failed';
  }
  const [reply, outcome] = render(a);
  await req.reply.respond(reply);
  const change = feedChange(a);
  if (change) await announceFeedChange(req, renderFeedAnnouncement(change, req.userId));
  return outcome;
}

/**
 * The one place a feed change is told to its channel. Today a plain channel post (the bot's, or in_channel
 * through response_url where the bot is not in the channel); the Slack outbox takes it over from here.
 */
async function announceFeedChange(req: CommandRequest, announcement: SlackReply): Promise<void> {
  await postToChannel(req.deps, req.client, req.channelId, announcement, req.respond);
}

function feedChange(a: WatchAnswer): FeedChange | undefined {
  if (a.answer === 'watching') {
    if (a.change === 'started') return { kind: 'started', watch: a.watch };
    if (a.change === 'changed' && a.before) return { kind: 'changed', watch: a.watch, before: a.before };
  }
  if (a.answer === 'unwatched' && a.ended) return { kind: 'ended', watch: a.ended };
  return undefined;
}

function render(a: WatchAnswer): [SlackReply, Outcome] {
  switch (a.answer) {
    case 'listed':
      return [renderWatchList(a.watches), 'ok'];
    case 'no_target':
      return [renderNoTarget(), 'invalid'];
    case 'not_connected':
      return [renderNotConnected(), 'failed'];
    case 'refused':
      return [renderFeedRefusal(a), 'refused'];
    case 'queue_unreadable':
      return [renderError(a.error), 'failed'];
    case 'watching':
      return [renderWatching(a.watch, a.before !== undefined), 'ok'];
    case 'unwatched':
      return [renderUnwatched(a.target, a.removed, a.watches), a.removed ? 'ok' : 'noop'];
  }
}
