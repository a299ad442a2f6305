/** `/mergequeue pr <number> [target]`: one submitted PR and why it is or is not testing. */

import type { TargetSpec } from '../../../core/target.ts';
import { readPullRequest } from '../../../queue/service.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderPr } from '../../blocks/pr.ts';
import { sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function pr(
  req: CommandRequest,
  prNumber: number,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  try {
    const found = await readPullRequest({ trunk: trunk.api }, ref, prNumber);
    await sendReply(
      req.deps,
      req.respond,
      renderPr({
        ref,
        pr: found,
        appUrl: req.deps.config.trunk.appUrl,
        ...(trunk.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
      }),
    );
    return 'ok';
  } catch (err) {
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
