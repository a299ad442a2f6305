/**
 * `/mergequeue tests watch [owner <team>] [owner/repo]`, `tests unwatch [owner/repo]` and `tests list`: which
 * channels hear about flaky tests. Parse (the grammar) → actor → test-feeds service → render → reply; a feed
 * started or ended is announced in the channel. (`flaky` and `quarantined` are tests.ts's.)
 */
import type { TestWatchAnswer, TestWatchRequest } from '../../../services/test-feeds.ts';
import { renderError, renderFeedRefusal } from '../../blocks/errors.ts';
import {
  renderTestUnwatched,
  renderTestWatchAnnouncement,
  renderTestWatching,
  renderTestWatchList,
  renderTooManyTestWatches,
} from '../../blocks/test-feeds.ts';
import type { TestsCommand } from '../../grammars/tests.ts';
import type { SlackReply } from '../../reply.ts';
import { postToChannel } from '../../reply.ts';
import { sharedChannels } from '../../shared-channels.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function testFeeds(req: CommandRequest, c: TestsCommand): Promise<Outcome> {
  const request: TestWatchRequest =
    c.kind === 'list'
      ? { kind: 'list', channelId: req.channelId }
      : c.kind === 'watch'
        ? {
            kind: 'watch',
            channelId: req.channelId,
            ...(c.repo ? { repo: c.repo } : {}),
            ...(c.owner ? { owner: c.owner } : {}),
          }
        : { kind: 'unwatch', channelId: req.channelId, ...(c.repo ? { repo: c.repo } : {}) };
  let a: TestWatchAnswer;
  try {
    a = await req.services.testFeeds.watches(req.actor, request, sharedChannels(req.client));
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read or change the test feeds');
    await req.reply.respond(renderError(err));
    return 'failed';
  }
  const [reply, outcome] = render(a, req.workspaceId);
  await req.reply.respond(reply);
  const announcement =
    a.answer === 'watching' && a.created
      ? renderTestWatchAnnouncement({ kind: 'started', watches: [a.watch] }, req.userId)
      : a.answer === 'unwatched' && a.removed.length > 0
        ? renderTestWatchAnnouncement({ kind: 'ended', watches: a.removed }, req.userId)
        : undefined;
  if (announcement) await postToChannel(req.deps, req.client, req.channelId, announcement, req.respond);
  return outcome;
}

function render(a: TestWatchAnswer, workspaceId: string): [SlackReply, Outcome] {
  switch (a.answer) {
    case 'listed':
      return [renderTestWatchList(a.here, a.elsewhere), 'ok'];
    case 'refused':
      return [renderFeedRefusal(a), 'refused'];
    case 'too_many':
      return [renderTooManyTestWatches(a.max), 'invalid'];
    case 'watching':
      return [renderTestWatching(a, workspaceId), a.created ? 'ok' : 'noop'];
    case 'unwatched':
      return [renderTestUnwatched(a), a.removed.length > 0 ? 'ok' : 'noop'];
  }
}
