/**
 * `/mergequeue watch …`, `watch list` and `unwatch [target]`: this channel's feeds of queue events. Parse
 * (done by the grammar) → actor → watch service → render → reply.
 */
import type { TargetSpec } from '../../../core/target.ts';
import { createWatchService, type WatchAnswer, type WatchRequest } from '../../../services/watch.ts';
import { actorIn } from '../../actor.ts';
import { renderError, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import { renderUnwatched, renderWatching, renderWatchList } from '../../blocks/watch.ts';
import type { WatchCommand } from '../../commands/watch.ts';
import { sendReply } from '../../interaction.ts';
import type { SlackReply } from '../../reply.ts';
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
  const actor = actorIn(req.deps, req.client, req.workspaceId, req.userId);
  let a: WatchAnswer;
  try {
    a = await createWatchService(req.deps).handle(actor, request);
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read or change the feeds');
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
  const [reply, outcome] = render(a);
  await sendReply(req.deps, req.respond, reply);
  return outcome;
}

function render(a: WatchAnswer): [SlackReply, Outcome] {
  switch (a.answer) {
    case 'listed':
      return [renderWatchList(a.watches), 'ok'];
    case 'no_target':
      return [renderNoTarget(), 'invalid'];
    case 'not_connected':
      return [renderNotConnected(), 'failed'];
    case 'queue_unreadable':
      return [renderError(a.error), 'failed'];
    case 'watching':
      return [renderWatching(a.watch, a.before !== undefined), 'ok'];
    case 'unwatched':
      return [renderUnwatched(a.target, a.removed, a.watches), a.removed ? 'ok' : 'noop'];
  }
}
