/** `/mergequeue prs [target] [state]`: the queue's PRs through listPullRequests, within Slack's 50 blocks. */
import { listQueuePullRequests } from '../../../queue/pull-requests.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderPrs } from '../../blocks/prs.ts';
import type { PrCommand } from '../../commands/grammar.ts';
import { sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

/** Rows shown; the rest are counted. About 200 characters each, they fit a handful of sections. */
const SHOWN = 40;

export async function prs(req: CommandRequest, c: Extract<PrCommand, { name: 'prs' }>): Promise<Outcome> {
  const got = await queueAndTrunk(req, c.target, { cached: true });
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  try {
    const listing = await listQueuePullRequests({ trunk: trunk.api }, ref, {
      show: SHOWN,
      ...(c.state ? { state: c.state } : {}),
    });
    await sendReply(
      req.deps,
      req.respond,
      renderPrs({
        ref,
        listing,
        ...(c.state ? { state: c.state } : {}),
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
