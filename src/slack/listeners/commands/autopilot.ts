/**
 * `/mergequeue config autopilot …` (issue 29): show it (anyone), change it (operators only; the service
 * checks and audits), and announce a change in the queue's feed channels.
 */
import {
  renderAutopilotAnnouncement,
  renderAutopilotSet,
  renderAutopilotView,
} from '../../blocks/autopilot.ts';
import { renderNoTarget, renderRefusal, renderUsageError } from '../../blocks/errors.ts';
import { AUTOPILOT_USAGE, type AutopilotCommand } from '../../grammars/autopilot.ts';
import { postToChannel } from '../../reply.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function configureAutopilot(req: CommandRequest, c: AutopilotCommand): Promise<Outcome> {
  const { autopilot } = req.services;
  const answer =
    c.op === 'show'
      ? await autopilot.show(req.actor)
      : await autopilot.change(
          req.actor,
          req.channelId,
          c.target,
          c.op === 'requeue' ? { op: 'requeue', classes: c.classes } : { op: c.op },
        );
  switch (answer.answer) {
    case 'shown':
      await req.reply.respond(renderAutopilotView(answer.view));
      return 'ok';
    case 'refused':
      await req.reply.respond(renderRefusal('change the autopilot', answer.because));
      return 'refused';
    case 'invalid':
      await req.reply.respond(renderUsageError(answer.message, `/mergequeue ${AUTOPILOT_USAGE}`));
      return 'invalid';
    case 'no_target':
      await req.reply.respond(renderNoTarget());
      return 'invalid';
    case 'set': {
      await req.reply.respond(
        renderAutopilotSet(answer.change, answer.queue, answer.effective, answer.channels.length),
      );
      const told = renderAutopilotAnnouncement(answer.change, answer.queue, answer.effective, req.userId);
      for (const channel of answer.channels)
        await postToChannel(req.deps, req.client, channel, told, undefined).catch(() => undefined);
      return 'ok';
    }
  }
}
