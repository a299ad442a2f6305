/** `/mergequeue eta <pr> [target]`: when the PR should merge and what it waits behind (Trunk v2), else v1's state. */
import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderEta } from '../../blocks/eta.ts';
import { renderPr } from '../../blocks/pr.ts';
import { withV2KeyHint } from '../../blocks/story.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function eta(
  req: CommandRequest,
  prNumber: number,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const found = await req.services.story.eta(req.actor, at, prNumber);
  const renderedAt = req.deps.now();
  switch (found.answer) {
    case 'read_failed':
      await req.reply.respond(renderError(found.error));
      return 'failed';
    case 'v1':
      await req.reply.respond(
        withV2KeyHint(
          renderPr({
            ref: at.ref,
            pr: found.pr,
            renderedAt,
            appUrl: req.deps.settings.trunkAppUrl,
            ...(at.trunk.orgSlug ? { orgSlug: at.trunk.orgSlug } : {}),
          }),
        ),
      );
      return 'ok';
    case 'eta':
      await req.reply.respond(renderEta(at.ref, prNumber, found.value, renderedAt, found.app));
      return 'ok';
  }
}
