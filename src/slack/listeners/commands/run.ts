/** `/mergequeue run <testRunId> [target]`: one test run's status, checks and tested PRs. */

import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderRun } from '../../blocks/run.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function run(
  req: CommandRequest,
  testRunId: string,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const found = await req.services.queue.testRun(req.actor, at, testRunId);
  if (found.answer === 'read_failed') {
    await req.reply.respond(renderError(found.error));
    return 'failed';
  }
  await req.reply.respond(renderRun({ ref: at.ref, testRunId, run: found.value }));
  return 'ok';
}
