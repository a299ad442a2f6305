/** `/mergequeue pr <number> [target]`: one submitted PR and why it is or is not testing. */
import type { TargetSpec } from '../../../core/target.ts';
import { renderPr } from '../../blocks/pr.ts';
import { answerRead, trunkLinks } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function pr(req: CommandRequest, prNumber: number, target: TargetSpec | undefined): Promise<Outcome> {
  return answerRead(
    req,
    target,
    (at) => req.services.queue.pullRequest(req.actor, at, prNumber),
    async (at, found) => {
      await req.reply.respond(
        renderPr({ ref: at.ref, pr: found.value, renderedAt: req.deps.now(), ...trunkLinks(req, at) }),
      );
      return 'ok';
    },
  );
}
