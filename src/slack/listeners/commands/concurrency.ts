/** `/mergequeue concurrency <n> [target]`: operators only; announced in the channel. */
import { recordRefusal, setConcurrency } from '../../../queue/service.ts';
import { formatQueueRef, type TargetSpec } from '../../../queue/target.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { mayOperate, postToChannel, queueContext, sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function concurrency(
  req: CommandRequest,
  value: number,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  const ctx = queueContext(req.deps, trunk.api, req.workspaceId, req.userId);
  const decision = await mayOperate(req.deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    await recordRefusal(ctx, 'concurrency', formatQueueRef(ref), decision.because);
    await sendReply(
      req.deps,
      req.respond,
      renderRefusal(`change the concurrency of ${formatQueueRef(ref)}`, decision.because),
    );
    return 'refused';
  }
  const result = await setConcurrency(ctx, ref, value);
  if (result.outcome === 'ok') {
    const announcement = renderAnnouncement({
      action: 'concurrency',
      ref,
      userId: req.userId,
      at: req.deps.now(),
      before: result.before,
      after: result.after,
    });
    await postToChannel(req.deps, req.client, req.channelId, announcement, req.respond);
    return 'ok';
  }
  if (result.outcome === 'noop') {
    await sendReply(req.deps, req.respond, renderNoop(result.reason));
    return 'noop';
  }
  await sendReply(req.deps, req.respond, renderError(result.error));
  return 'failed';
}
