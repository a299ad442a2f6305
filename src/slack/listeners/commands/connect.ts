/** `/mergequeue connect`: a modal for this workspace's Trunk token and org slug (operators only). */
import { recordRefusal } from '../../../queue/service.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { openConnectModal } from '../../modals.ts';
import { NO_ENCRYPTION_KEY } from '../views/connect.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function connect(req: CommandRequest): Promise<Outcome> {
  const decision = await mayOperate(req.deps, req.client, req.workspaceId, req.userId);
  if (!decision.allowed) {
    const ctx = {
      store: req.deps.store,
      workspaceId: req.workspaceId,
      userId: req.userId,
      now: req.deps.now,
    };
    await recordRefusal(ctx, 'connect', '', decision.because);
    await sendReply(
      req.deps,
      req.respond,
      renderRefusal('connect this workspace to Trunk', decision.because),
    );
    return 'refused';
  }
  if (req.deps.config.encryptionKeys.length === 0) {
    await sendReply(req.deps, req.respond, { text: NO_ENCRYPTION_KEY, response_type: 'ephemeral' });
    return 'failed';
  }
  const opened = await openConnectModal(req.deps, req.client, req.triggerId, req.channelId, req.workspaceId);
  if (opened === 'failed')
    await sendReply(req.deps, req.respond, {
      text: 'The connect form could not be opened. Try the command again.',
      response_type: 'ephemeral',
    });
  return opened;
}
