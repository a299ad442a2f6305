/**
 * What `submit`, `cancel` and `restart` share: resolve the queue, let the PR domain decide (an operator,
 * or the PR's author through an operator's link) and act on the PR's current state, then announce the
 * change in the channel. Refusals and no-ops are ephemeral; all of it is audited by the domain.
 */
import type { TargetSpec } from '../../../core/target.ts';
import type { PrChangeRequest } from '../../../queue/pull-requests.ts';
import { renderNoop } from '../../blocks/announcement.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderPrAnnouncement, renderPrRefusal, renderReadBack } from '../../blocks/pr-actions.ts';
import { postToChannel } from '../../reply.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function applyPrCommand(
  req: CommandRequest,
  target: TargetSpec | undefined,
  change: Omit<PrChangeRequest, 'ref' | 'expected' | 'clickKey'>,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const { ref } = at;
  const result = await req.services.prs.change(req.actor, at, change);
  switch (result.outcome) {
    case 'ok': {
      const announcement = renderPrAnnouncement({
        result,
        ref,
        prNumber: change.prNumber,
        userId: req.userId,
        at: req.deps.now(),
        ...(change.reason ? { reason: change.reason } : {}),
      });
      await postToChannel(req.deps, req.client, req.channelId, announcement, req.respond);
      if (result.confirmedBy === 'read_back')
        await req.reply.respond(renderReadBack(result, change.prNumber));
      return 'ok';
    }
    case 'noop':
      await req.reply.respond(renderNoop(result.reason));
      return 'noop';
    case 'refused':
      await req.reply.respond(renderPrRefusal(change.action, change.prNumber, result.because));
      return 'refused';
    case 'failed':
      await req.reply.respond(renderError(result.error));
      return 'failed';
  }
}
