/**
 * Submission of the Pause / Drain modal (blocks/reason-modal.ts): the click it stands for is replayed
 * through the same path as a button (listeners/actions/status-click.ts): operator check (refusals audited), the
 * change against the queue's current state with the same double-click claim (two modals opened by a double
 * click change the queue once; a failed change gives the claim back), the status message redrawn, and the
 * change announced in the channel with the reason, which the audit entry keeps too.
 */
import type { App, RespondFn, ViewSubmitAction } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { renderError, renderNotConnected } from '../../blocks/errors.ts';
import { CALLBACKS } from '../../blocks/ids.ts';
import { parseReasonSubmission, reasonActionId } from '../../blocks/reason-modal.ts';
import type { SubmissionValues } from '../../blocks/settings.ts';
import { actorOf, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { homeSession } from '../../home.ts';
import type { SlackReply } from '../../reply.ts';
import { createReply, tellPrivately } from '../../reply.ts';
import type { Click } from '../actions/click.ts';
import { applyClickChange, clickKeyOf } from '../actions/status-click.ts';
import { DESIRED } from '../commands/state.ts';

const VERB = { pause: 'paused', drain: 'started draining' } as const;

export function registerReasonView(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction, RequestContext>(
    CALLBACKS.reason,
    async ({ ack, body, view, client, context }) => {
      const parsed = parseReasonSubmission(view.state.values as SubmissionValues, view.private_metadata);
      if (!parsed.ok) {
        await ack({ response_action: 'errors', errors: parsed.errors });
        deps.metrics.interactions.inc({ name: CALLBACKS.reason, outcome: 'invalid' });
        return;
      }
      await ack();
      const { click, reason } = parsed;
      const actor = actorOf(context);
      const workspaceId = actor.workspace.id;
      const userId = body.user.id;
      // From the Home tab: answers and the redraw become the Home, published again when done.
      const home = click.home ? homeSession(deps, client, workspaceId, userId) : undefined;
      // A submission has no response_url: what a click would answer privately is an ephemeral message, and
      // a redraw that chat.update could not do (an ephemeral status message) is left alone.
      const respond =
        home?.respond ??
        ((async (msg: string | (SlackReply & { replace_original?: boolean })) => {
          const m = typeof msg === 'string' ? { text: msg } : msg;
          if (m.replace_original) return;
          await tellPrivately(
            deps,
            client,
            { workspaceId, channel: click.channelId, userId },
            {
              text: m.text,
              ...(m.blocks ? { blocks: m.blocks } : {}),
            },
          );
        }) as unknown as RespondFn);
      const tell = (reply: SlackReply) => respond(reply);
      let outcome = 'failed';
      try {
        const trunk = await deps.services.queue.trunk(actor);
        if (!trunk) {
          await tell(renderNotConnected());
        } else {
          const c: Click = {
            deps,
            services: context.services,
            reply: createReply(deps, client, respond),
            client,
            respond,
            workspaceId,
            userId,
            userTeamId: body.user.team_id,
            channelId: click.channelId,
            messageTs: click.messageTs,
            ephemeral: click.ephemeral,
            ...(click.home ? { home: true } : {}),
            actionId: reasonActionId(click.action),
            value: click.value,
            trunk,
            actor,
            triggerId: '',
          };
          outcome = await applyClickChange(c, {
            refusedWhat: `${click.action} ${formatQueueRef(click.value.ref)}`,
            verb: VERB[click.action],
            ...(reason ? { reason } : {}),
            request: {
              kind: 'state',
              desired: DESIRED[click.action],
              expected: c.value.state,
              clickKey: clickKeyOf(c),
              ...(reason ? { reason } : {}),
            },
          });
        }
      } catch (err) {
        deps.logger.error({ err }, 'pause/drain submission failed');
        await tell(renderError(err));
      }
      await home?.finish().catch((err: unknown) => deps.logger.error({ err }, 'could not publish the Home'));
      deps.metrics.interactions.inc({ name: CALLBACKS.reason, outcome });
    },
  );
}
