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
import { AUTOPILOT_USAGE, type AutopilotCommand } from '../../commands/autopilot.ts';
import { postToChannel, sendReply } from '../../interaction.ts';
import { servicesOf } from '../../services.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function configureAutopilot(req: CommandRequest, c: AutopilotCommand): Promise<Outcome> {
  const { autopilot } = servicesOf(req.deps);
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
      await sendReply(req.deps, req.respond, renderAutopilotView(answer.view));
      return 'ok';
    case 'refused':
      await sendReply(req.deps, req.respond, renderRefusal('change the autopilot', answer.because));
      return 'refused';
    case 'invalid':
      await sendReply(
        req.deps,
        req.respond,
        renderUsageError(answer.message, `/mergequeue ${AUTOPILOT_USAGE}`),
      );
      return 'invalid';
    case 'no_target':
      await sendReply(req.deps, req.respond, renderNoTarget());
      return 'invalid';
    case 'set': {
      await sendReply(
        req.deps,
        req.respond,
        renderAutopilotSet(answer.change, answer.queue, answer.effective, answer.channels.length),
      );
      const told = renderAutopilotAnnouncement(answer.change, answer.queue, answer.effective, req.userId);
      for (const channel of answer.channels)
        await postToChannel(req.deps, req.client, channel, told, undefined).catch(() => undefined);
      return 'ok';
    }
  }
}
