/** `/mergequeue flaky|quarantined [owner/repo]`: counts and the top few tests, with links to Trunk. */
import type { RepoRef } from '../../../core/target.ts';
import type { TestsAnswer } from '../../../services/tests.ts';
import { renderError, renderNoOrgSlug, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import { renderFlaky, renderQuarantined } from '../../blocks/flaky.ts';
import type { SlackReply } from '../../reply.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function tests(
  req: CommandRequest,
  kind: 'flaky' | 'quarantined',
  repo: RepoRef | undefined,
): Promise<Outcome> {
  let a: TestsAnswer;
  try {
    a = await req.services.tests.summary(req.actor, {
      kind,
      channelId: req.channelId,
      ...(repo ? { repo } : {}),
    });
  } catch (err) {
    req.deps.logger.error({ err }, 'could not read workspace configuration');
    a = { answer: 'read_failed', error: err };
  }
  const [reply, outcome] = render(a, req.deps.settings.trunkAppUrl);
  await req.reply.respond(reply);
  return outcome;
}

function render(a: TestsAnswer, appUrl: string): [SlackReply, Outcome] {
  switch (a.answer) {
    case 'no_target':
      return [renderNoTarget(), 'invalid'];
    case 'not_connected':
      return [renderNotConnected(), 'failed'];
    case 'no_org_slug':
      return [renderNoOrgSlug(), 'failed'];
    case 'flaky':
      return [renderFlaky(a.summary, { appUrl, orgSlug: a.orgSlug }), 'ok'];
    case 'quarantined':
      return [renderQuarantined(a.summary, { appUrl, orgSlug: a.orgSlug }), 'ok'];
    case 'read_failed':
      return [renderError(a.error), 'failed'];
  }
}
