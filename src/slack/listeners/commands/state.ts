/** `/mergequeue pause|drain|resume [target] [reason…]`: operators only; announced in the channel. */

import type { StateCommandName } from '../../../queue/commands.ts';
import { changeState, recordRefusal } from '../../../queue/service.ts';
import { formatQueueRef, type TargetSpec } from '../../../queue/target.ts';
import type { SettableQueueState } from '../../../trunk/types.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { mayOperate, postToChannel, queueContext, sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export const DESIRED: Record<StateCommandName, SettableQueueState> = {
  pause: 'paused',
  drain: 'draining',
  resume: 'running',
};

export async function changeQueueState(
  req: CommandRequest,
  name: StateCommandName,
  target: TargetSpec | undefined,
  reason: string | undefined,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  const ctx = queueContext(req.deps, trunk.api, req.workspaceId, req.userId);
  const decision = await mayOperate(req.deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    await recordRefusal(ctx, name, formatQueueRef(ref), decision.because);
    await sendReply(req.deps, req.respond, renderRefusal(`${name} ${formatQueueRef(ref)}`, decision.because));
    return 'refused';
  }
  const result = await changeState(ctx, ref, DESIRED[name], reason ? { reason } : {});
  if (result.outcome === 'ok') {
    const announcement = renderAnnouncement({
      action: result.action,
      ref,
      userId: req.userId,
      at: req.deps.now(),
      ...(reason ? { reason } : {}),
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
