/**
 * `/mergequeue dashboard [target]` and `dashboard off [target]`: a canvas in this channel that keeps the
 * queue current. Parse (done by the grammar) → dashboard service → render → reply; a dashboard that started
 * or stopped is also announced in the channel.
 */
import type { TargetSpec } from '../../../core/target.ts';
import type { DashboardAnswer } from '../../../services/dashboard.ts';
import { renderDashboardAnnouncement, renderDashboardAnswer } from '../../blocks/dashboard.ts';
import { renderError, renderFeedRefusal, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import { dashboardCanvases } from '../../dashboard-canvases.ts';
import type { SlackReply } from '../../reply.ts';
import { postToChannel } from '../../reply.ts';
import { sharedChannels } from '../../shared-channels.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function dashboard(
  req: CommandRequest,
  off: boolean,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  let a: DashboardAnswer;
  try {
    a = await req.services.dashboard.handle(
      req.actor,
      { kind: off ? 'off' : 'create', channelId: req.channelId, ...(target ? { target } : {}) },
      {
        canvases: dashboardCanvases(req.client),
        shared: sharedChannels(req.client),
        ...(req.deps.dashboards ? { refresh: req.deps.dashboards.refresh } : {}),
      },
    );
  } catch (err) {
    req.deps.logger.error({ err }, 'could not start or stop a dashboard');
    await req.reply.respond(renderError(err));
    return 'failed';
  }
  const [reply, outcome] = render(a);
  await req.reply.respond(reply);
  if (a.answer === 'created' || a.answer === 'stopped')
    await postToChannel(
      req.deps,
      req.client,
      req.channelId,
      renderDashboardAnnouncement(a.answer === 'created' ? 'started' : 'stopped', a.dashboard, req.userId),
      req.respond,
    );
  return outcome;
}

function render(a: DashboardAnswer): [SlackReply, Outcome] {
  switch (a.answer) {
    case 'no_target':
      return [renderNoTarget(), 'invalid'];
    case 'not_connected':
      return [renderNotConnected(), 'failed'];
    case 'refused':
      return [renderFeedRefusal(a), 'refused'];
    case 'queue_unreadable':
      return [renderError(a.error), 'failed'];
    case 'canvas_refused':
      return [renderDashboardAnswer(a), 'failed'];
    default:
      return [renderDashboardAnswer(a), 'ok'];
  }
}
