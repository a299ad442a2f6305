/** `/mergequeue settings [target]`: a modal for every updateQueue field but the state (operators only). */

import { formatQueueRef, type TargetSpec } from '../../../core/target.ts';
import { openSettingsModal } from '../../modals.ts';
import { mayChangeQueue } from '../queue-change.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function settings(req: CommandRequest, target: TargetSpec | undefined): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const t = formatQueueRef(at.ref);
  if (!(await mayChangeQueue(req, 'settings', t, `change the settings of ${t}`))) return 'refused';
  const opened = await openSettingsModal(
    req.deps,
    req.client,
    req.triggerId,
    req.channelId,
    at.ref,
    at.trunk,
  );
  if (opened === 'failed')
    await req.reply.respond({
      text: 'The settings form could not be opened. Try the command again.',
      response_type: 'ephemeral',
    });
  return opened;
}
