/**
 * Cancel's confirmation submitted: the PR is read again and cancelled only if it is still in the queue
 * and the person may (checked again: the modal may have stayed open a while). Two confirmations of one
 * click count once. The message the button was on is updated in place; the channel is told.
 */
import type { App, ViewSubmitAction } from '@slack/bolt';
import { CALLBACKS } from '../../blocks/ids.ts';
import { CANCEL_REASON, parseCancelMetadata } from '../../blocks/pr-actions.ts';
import { actorOf, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { respondVia } from '../../pr-actor.ts';
import { tellPrivately } from '../../reply.ts';
import { answerPrClick } from '../pr-change-answer.ts';
import { type PrClick, prClickKey, prQueue } from '../pr-click.ts';

export function registerPrCancelView(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction, RequestContext>(
    CALLBACKS.prCancel,
    async ({ ack, body, view, client, context }) => {
      const meta = parseCancelMetadata(view.private_metadata);
      if (!meta) {
        await ack({
          response_action: 'errors',
          errors: { [CANCEL_REASON.block]: 'This form could not be read. Close it and click Cancel again.' },
        });
        deps.metrics.interactions.inc({ name: CALLBACKS.prCancel, outcome: 'invalid' });
        return;
      }
      await ack();
      const raw = view.state.values[CANCEL_REASON.block]?.[CANCEL_REASON.action]?.value;
      const reason = typeof raw === 'string' ? raw.trim().slice(0, 500) : '';
      const actor = actorOf(context);
      const workspaceId = actor.workspace.id;
      const userId = body.user.id;
      const { services } = context;
      let outcome = 'failed';
      try {
        const trunk = await services.queue.trunk(actor);
        if (!trunk) {
          await tellPrivately(
            deps,
            client,
            { workspaceId, channel: meta.channelId, userId },
            {
              text: 'This workspace is not connected to Trunk yet: run `/mergequeue connect`.',
            },
          );
        } else {
          const c: PrClick = {
            deps,
            services,
            client,
            respond: respondVia(deps, meta.responseUrl),
            workspaceId,
            userId,
            userTeamId: body.user.team_id,
            channelId: meta.channelId,
            messageTs: meta.messageTs,
            ephemeral: meta.ephemeral,
            value: meta.value,
            trunk,
            actor,
          };
          const result = await services.prs.change(actor, prQueue(c), {
            action: 'cancel',
            prNumber: meta.value.prNumber,
            expected: meta.value.state,
            clickKey: prClickKey(c, 'cancel'),
            ...(reason ? { reason } : {}),
          });
          outcome = await answerPrClick(c, result, reason || undefined);
        }
      } catch (err) {
        deps.logger.error({ err }, 'cancel confirmation failed');
        await tellPrivately(
          deps,
          client,
          { workspaceId, channel: meta.channelId, userId },
          {
            text: 'Something went wrong on our side and nothing was changed. Try again in a minute.',
          },
        );
      }
      deps.metrics.interactions.inc({ name: CALLBACKS.prCancel, outcome });
    },
  );
}
