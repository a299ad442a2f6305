/** `/mergequeue eta <pr> [target]`: when the PR should merge and what it waits behind (Trunk v2), else v1's state. */
import type { TargetSpec } from '../../../core/target.ts';
import { renderEta } from '../../blocks/eta.ts';
import { renderPr } from '../../blocks/pr.ts';
import { withV2KeyHint } from '../../blocks/story.ts';
import { answerRead, trunkLinks } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function eta(req: CommandRequest, prNumber: number, target: TargetSpec | undefined): Promise<Outcome> {
  return answerRead(
    req,
    target,
    (at) => req.services.story.eta(req.actor, at, prNumber),
    async (at, found) => {
      const renderedAt = req.deps.now();
      await req.reply.respond(
        found.answer === 'v1'
          ? withV2KeyHint(renderPr({ ref: at.ref, pr: found.pr, renderedAt, ...trunkLinks(req, at) }))
          : renderEta(at.ref, prNumber, found.value, renderedAt, found.app),
      );
      return 'ok';
    },
  );
}
