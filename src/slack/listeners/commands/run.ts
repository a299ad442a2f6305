/** `/mergequeue run <testRunId> [target]`: one test run's status, checks and tested PRs. */

import type { TargetSpec } from '../../../core/target.ts';
import { readTestRun } from '../../../queue/service.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderRun } from '../../blocks/run.ts';
import { sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function run(
  req: CommandRequest,
  testRunId: string,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  try {
    const found = await readTestRun({ trunk: trunk.api }, ref, testRunId);
    await sendReply(req.deps, req.respond, renderRun({ ref, testRunId, run: found }));
    return 'ok';
  } catch (err) {
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
