/** `/mergequeue prs [target] [state]`: the queue's PRs through listPullRequests, within Slack's 50 blocks. */
import { renderPrs } from '../../blocks/prs.ts';
import type { PrCommand } from '../../grammars/grammar.ts';
import { answerRead, trunkLinks } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

/** Rows shown; the rest are counted. About 200 characters each, they fit a handful of sections. */
const SHOWN = 40;

export function prs(req: CommandRequest, c: Extract<PrCommand, { name: 'prs' }>): Promise<Outcome> {
  return answerRead(
    req,
    c.target,
    (at) => req.services.prs.list(req.actor, at, { show: SHOWN, ...(c.state ? { state: c.state } : {}) }),
    async (at, listing) => {
      await req.reply.respond(
        renderPrs({
          ref: at.ref,
          listing: listing.value,
          ...(c.state ? { state: c.state } : {}),
          ...trunkLinks(req, at),
        }),
      );
      return 'ok';
    },
    { cached: true },
  );
}
