/** `/mergequeue connect`: a modal for this workspace's Trunk token and org slug (operators only). */
import { renderRefusal } from '../../blocks/errors.ts';
import { openConnectModal } from '../../modals.ts';
import { NO_ENCRYPTION_KEY } from '../views/connect.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function connect(req: CommandRequest): Promise<Outcome> {
  const gate = await req.services.workspace.mayConnect(req.actor);
  if (gate.answer === 'refused') {
    await req.reply.respond(renderRefusal('connect this workspace to Trunk', gate.because));
    return 'refused';
  }
  if (gate.answer === 'no_encryption_key') {
    await req.reply.respond({ text: NO_ENCRYPTION_KEY, response_type: 'ephemeral' });
    return 'failed';
  }
  const opened = await openConnectModal(req.deps, req.client, req.triggerId, req.channelId, req.workspaceId);
  if (opened === 'failed')
    await req.reply.respond({
      text: 'The connect form could not be opened. Try the command again.',
      response_type: 'ephemeral',
    });
  return opened;
}
