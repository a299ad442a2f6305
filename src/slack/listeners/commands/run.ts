/** `/mergequeue run <testRunId> [target]`: one test run's status, checks and tested PRs. */
import type { TargetSpec } from '../../../core/target.ts';
import { renderRun } from '../../blocks/run.ts';
import { answerRead } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function run(
  req: CommandRequest,
  testRunId: string,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  return answerRead(
    req,
    target,
    (at) => req.services.queue.testRun(req.actor, at, testRunId),
    async (at, found) => {
      await req.reply.respond(renderRun({ ref: at.ref, testRunId, run: found.value }));
      return 'ok';
    },
  );
}
