/** `/mergequeue connect`: a modal for this workspace's Trunk token and org slug (operators only). */
import { renderRefusal } from '../../blocks/errors.ts';
import { openConnectModal } from '../../modals.ts';
import { sendReply } from '../../reply.ts';
import { NO_ENCRYPTION_KEY } from '../views/connect.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function connect(req: CommandRequest): Promise<Outcome> {
  const gate = await req.deps.services.workspace.mayConnect(req.actor);
  if (gate.answer === 'refused') {
    await sendReply(req.deps, req.respond, renderRefusal('connect this workspace to Trunk', gate.because));
    return 'refused';
  }
  if (gate.answer === 'no_encryption_key') {
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
