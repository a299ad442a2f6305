/**
 * Settings modal submission: invalid values are shown in the modal (response_action errors) and nothing
 * is sent; otherwise the modal closes and only the changed fields go to Trunk (against the queue's
 * current values). The result is announced in the channel, or told to the person privately.
 */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { interactionActor } from '../../actor.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { CALLBACKS } from '../../blocks/ids.ts';
import { parseSettingsSubmission, type SubmissionValues } from '../../blocks/settings.ts';
import type { SlackDeps } from '../../deps.ts';
import { unwrapMetadata } from '../../modals.ts';
import type { SlackReply } from '../../reply.ts';
import { postToChannel, tellPrivately } from '../../reply.ts';

export function registerSettingsView(app: App, deps: SlackDeps): void {
  app.view(CALLBACKS.settings, async ({ ack, body, view, client, context }) => {
    const meta = unwrapMetadata(view.private_metadata);
    const parsed = parseSettingsSubmission(view.state.values as SubmissionValues, meta?.m);
    if (!meta || !parsed.ok) {
      await ack({
        response_action: 'errors',
        errors: parsed.ok
          ? { mode: 'This form could not be read. Close it and run `/mergequeue settings` again.' }
          : parsed.errors,
      });
      deps.metrics.interactions.inc({ name: CALLBACKS.settings, outcome: 'invalid' });
      return;
    }
    await ack();
    // The form's operator check does not read the payload's own team (as before this layer).
    const actor = interactionActor(deps, client, context, body, { checkPayloadTeam: false });
    const userId = actor.userId;
    const { queue } = deps.services;
    const tell = (reply: SlackReply) =>
      tellPrivately(deps, client, { workspaceId: actor.workspace.id, channel: meta.c, userId }, reply);
    let outcome = 'failed';
    try {
      const trunk = await queue.trunk(actor);
      if (!trunk) {
        await tell({ text: 'This workspace is not connected to Trunk yet: run `/mergequeue connect`.' });
      } else {
        const target = formatQueueRef(parsed.ref);
        const result = await queue.change(
          actor,
          { ref: parsed.ref, trunk },
          { kind: 'settings', changes: parsed.changes },
        );
        outcome = result.outcome;
        if (result.outcome === 'refused') {
          await tell(renderRefusal(`change the settings of ${target}`, result.because));
        } else if (result.outcome === 'ok') {
          await postToChannel(
            deps,
            client,
            meta.c,
            renderAnnouncement({
              action: 'settings',
              ref: parsed.ref,
              userId,
              at: deps.now(),
              before: result.before,
              after: result.after,
            }),
            undefined,
          );
        } else if (result.outcome === 'noop') {
          await tell(renderNoop(result.reason));
        } else {
          await tell(renderError(result.error));
        }
      }
    } catch (err) {
      deps.logger.error({ err }, 'settings submission failed');
      await tell(renderError(err));
    }
    deps.metrics.interactions.inc({ name: CALLBACKS.settings, outcome });
  });
}
