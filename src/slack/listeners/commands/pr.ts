/** `/mergequeue pr <number> [target]`: one submitted PR and why it is or is not testing. */

import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderPr } from '../../blocks/pr.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function pr(
  req: CommandRequest,
  prNumber: number,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const found = await req.services.queue.pullRequest(req.actor, at, prNumber);
  if (found.answer === 'read_failed') {
    await req.reply.respond(renderError(found.error));
    return 'failed';
  }
  await req.reply.respond(
    renderPr({
      ref: at.ref,
      pr: found.value,
      appUrl: req.deps.settings.trunkAppUrl,
      renderedAt: req.deps.now(),
      ...(at.trunk.orgSlug ? { orgSlug: at.trunk.orgSlug } : {}),
    }),
  );
  return 'ok';
}
