/** `/mergequeue settings [target]`: a modal for every updateQueue field but the state (operators only). */

import { formatQueueRef, type TargetSpec } from '../../../core/target.ts';
import { recordRefusal } from '../../../queue/service.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { openSettingsModal } from '../../modals.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function settings(req: CommandRequest, target: TargetSpec | undefined): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  const decision = await mayOperate(req.deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    const ctx = {
      store: req.deps.store,
      workspaceId: req.workspaceId,
      userId: req.userId,
      now: req.deps.now,
    };
    await recordRefusal(ctx, 'settings', formatQueueRef(ref), decision.because);
    await sendReply(
      req.deps,
      req.respond,
      renderRefusal(`change the settings of ${formatQueueRef(ref)}`, decision.because),
    );
    return 'refused';
  }
  const opened = await openSettingsModal(req.deps, req.client, req.triggerId, req.channelId, ref, trunk);
  if (opened === 'failed')
    await sendReply(req.deps, req.respond, {
      text: 'The settings form could not be opened. Try the command again.',
      response_type: 'ephemeral',
    });
  return opened;
}
