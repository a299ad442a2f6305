/** `/mergequeue prs [target] [state]`: the queue's PRs through listPullRequests, within Slack's 50 blocks. */
import { renderError } from '../../blocks/errors.ts';
import { renderPrs } from '../../blocks/prs.ts';
import type { PrCommand } from '../../grammars/grammar.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

/** Rows shown; the rest are counted. About 200 characters each, they fit a handful of sections. */
const SHOWN = 40;

export async function prs(req: CommandRequest, c: Extract<PrCommand, { name: 'prs' }>): Promise<Outcome> {
  const at = await queueAndTrunk(req, c.target, { cached: true });
  if ('outcome' in at) return at.outcome;
  const listing = await req.services.prs.list(req.actor, at, {
    show: SHOWN,
    ...(c.state ? { state: c.state } : {}),
  });
  if (listing.answer === 'read_failed') {
    await req.reply.respond(renderError(listing.error));
    return 'failed';
  }
  await req.reply.respond(
    renderPrs({
      ref: at.ref,
      listing: listing.value,
      ...(c.state ? { state: c.state } : {}),
      appUrl: req.deps.settings.trunkAppUrl,
      ...(at.trunk.orgSlug ? { orgSlug: at.trunk.orgSlug } : {}),
    }),
  );
  return 'ok';
}
