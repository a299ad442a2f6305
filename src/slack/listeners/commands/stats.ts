/**
 * `/mergequeue stats [target] [1d|7d|30d]`: how the queue did, with charts. The first ask of a queue may
 * read Trunk's record back first: past two seconds the person reads "reading Trunk's record…", and that
 * answer is then replaced in place by the figures. If Slack refuses the charts (`invalid_blocks`), the same
 * answer goes again without them (the reply does that: slack/reply.ts).
 */
import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderReading, renderStats, withoutCharts } from '../../blocks/stats.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function stats(
  req: CommandRequest,
  target: TargetSpec | undefined,
  days: number,
): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  let reading = false;
  const found = await req.services.stats.stats(req.actor, at, days, {
    reading: async () => {
      reading = await req.reply.respond(renderReading(at.ref));
    },
  });
  const replace = reading ? { replace_original: true } : {};
  if (found.answer === 'read_failed') {
    await req.reply.respond(renderError(found.error), replace);
    return 'failed';
  }
  const reply = renderStats(found);
  return (await req.reply.respondWithCharts(reply, withoutCharts(reply), replace)) ? 'ok' : 'failed';
}
