/**
 * `/mergequeue watch …`, `watch list` and `unwatch [target]`: this channel's feeds of queue events. Anyone in
 * the channel may start or end one (it only posts what `status` would show anyone); the queue is checked
 * with Trunk first, so a typo gets an answer instead of a feed that never posts.
 */
import { formatQueueRef, type TargetSpec } from '../../../core/target.ts';
import { readQueue } from '../../../queue/service.ts';
import { WatchRepository } from '../../../watch/index.ts';
import { renderError, renderNoTarget } from '../../blocks/errors.ts';
import { renderUnwatched, renderWatching, renderWatchList } from '../../blocks/watch.ts';
import type { WatchCommand } from '../../commands/watch.ts';
import { resolveRef, sendReply } from '../../interaction.ts';
import { auditCommand } from './audit.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function watch(req: CommandRequest, c: WatchCommand): Promise<Outcome> {
  const repo = new WatchRepository(req.deps.store.db);
  if (c.kind === 'list') {
    await sendReply(
      req.deps,
      req.respond,
      renderWatchList(await repo.listChannel(req.workspaceId, req.channelId)),
    );
    return 'ok';
  }
  const got = await queueAndTrunk(req, c.target);
  if ('outcome' in got) return got.outcome;
  try {
    await readQueue({ trunk: got.trunk.api }, got.ref);
  } catch (err) {
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
  const before = await repo.listChannel(req.workspaceId, req.channelId);
  const target = formatQueueRef(got.ref);
  const replaced = before.some((w) => formatQueueRef(w.target) === target);
  const w = await repo.upsert({
    workspaceId: req.workspaceId,
    channelId: req.channelId,
    target: got.ref,
    topics: c.topics,
    ...(c.stuckMinutes !== undefined ? { stuckMinutes: c.stuckMinutes } : {}),
    createdBy: req.userId,
    createdAt: req.deps.now(),
  });
  await auditCommand(req, 'watch', target, 'ok', { channel: req.channelId, topics: w.topics });
  await sendReply(req.deps, req.respond, renderWatching(w, replaced));
  return 'ok';
}

export async function unwatch(req: CommandRequest, typed: TargetSpec | undefined): Promise<Outcome> {
  const repo = new WatchRepository(req.deps.store.db);
  const watches = await repo.listChannel(req.workspaceId, req.channelId);
  // With nothing typed and one feed here, that feed is the one meant (even if it is not the default queue).
  const only = !typed && watches.length === 1 ? watches[0]!.target : undefined;
  const ref = only ?? (await resolveRef(req.deps, req.workspaceId, req.channelId, typed));
  if (!ref) {
    await sendReply(req.deps, req.respond, renderNoTarget());
    return 'invalid';
  }
  const removed = await repo.remove(req.workspaceId, req.channelId, ref);
  if (removed) await auditCommand(req, 'unwatch', formatQueueRef(ref), 'ok', { channel: req.channelId });
  await sendReply(req.deps, req.respond, renderUnwatched(ref, removed, watches));
  return removed ? 'ok' : 'noop';
}
