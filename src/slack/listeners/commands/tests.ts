/** `/mergequeue flaky|quarantined [owner/repo]`: counts and the top few tests, with links to Trunk. */

import type { RepoRef } from '../../../core/target.ts';
import { summarizeFailingTests, summarizeQuarantinedTests } from '../../../queue/summaries.ts';
import { renderError, renderNoOrgSlug } from '../../blocks/errors.ts';
import { renderFlaky, renderQuarantined } from '../../blocks/flaky.ts';
import { sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function tests(
  req: CommandRequest,
  kind: 'flaky' | 'quarantined',
  repo: RepoRef | undefined,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, repo ? { repo } : undefined);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  if (!trunk.orgSlug) {
    await sendReply(req.deps, req.respond, renderNoOrgSlug());
    return 'failed';
  }
  const opts = { repo: ref.repo, orgSlug: trunk.orgSlug, now: req.deps.now };
  const links = { appUrl: req.deps.config.trunk.appUrl, orgSlug: trunk.orgSlug };
  try {
    const reply =
      kind === 'flaky'
        ? renderFlaky(await summarizeFailingTests(trunk.api, opts), links)
        : renderQuarantined(await summarizeQuarantinedTests(trunk.api, opts), links);
    await sendReply(req.deps, req.respond, reply);
    return 'ok';
  } catch (err) {
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
