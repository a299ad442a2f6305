/** `/mergequeue run <testRunId> [target]`: one test run's status, checks and tested PRs. */

import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderRun } from '../../blocks/run.ts';
import { sendReply } from '../../reply.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function run(
  req: CommandRequest,
  testRunId: string,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const found = await req.deps.services.queue.testRun(req.actor, at, testRunId);
  if (found.answer === 'read_failed') {
    await sendReply(req.deps, req.respond, renderError(found.error));
    return 'failed';
  }
  await sendReply(req.deps, req.respond, renderRun({ ref: at.ref, testRunId, run: found.value }));
  return 'ok';
}
