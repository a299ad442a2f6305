/** `/mergequeue why <pr> [target]`: the PR's story, from Trunk v2 when the workspace has a key, else v1's. */
import type { TargetSpec } from '../../../core/target.ts';
import { renderPr } from '../../blocks/pr.ts';
import { renderWhy, renderWhyUnknown, withV2KeyHint } from '../../blocks/story.ts';
import { answerRead, trunkLinks } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function why(req: CommandRequest, prNumber: number, target: TargetSpec | undefined): Promise<Outcome> {
  return answerRead(
    req,
    target,
    (at) => req.services.story.why(req.actor, at, prNumber),
    async (at, found) => {
      const links = trunkLinks(req, at);
      const renderedAt = req.deps.now();
      switch (found.answer) {
        case 'unknown':
          await req.reply.respond(renderWhyUnknown(at.ref, prNumber, found.what));
          return 'ok';
        case 'v1':
          await req.reply.respond(
            withV2KeyHint(renderPr({ ref: at.ref, pr: found.pr, renderedAt, ...links })),
          );
          return 'ok';
        case 'story': {
          const { pr, story } = found.value;
          const state = pr.queueEntry?.state ?? story.ending?.kind ?? 'unknown';
          await req.reply.respond(
            renderWhy({
              ref: at.ref,
              pr: { number: pr.number, title: pr.title, author: pr.author, url: pr.url, state },
              story,
              renderedAt,
              ...links,
            }),
          );
          return 'ok';
        }
      }
    },
  );
}
