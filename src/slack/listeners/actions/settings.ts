/** The Settings button on a status message opens the settings modal for that queue (operators only). */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { recordRefusal } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, mayOperate, sendReply } from '../../interaction.ts';
import { openSettingsModal } from '../../modals.ts';
import { readClick } from './click.ts';

export function register(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>(
    ACTIONS.settings,
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      await afterAck();
      let outcome = 'failed';
      try {
        const c = await readClick(deps, { body, action, client, respond, context });
        if (!c) outcome = 'invalid';
        else {
          const decision = await mayOperate(deps, c.client, c.workspaceId, c.userId);
          if (!decision.allowed) {
            const target = formatQueueRef(c.value.ref);
            await recordRefusal(c.ctx, 'settings', target, decision.because);
            await sendReply(
              deps,
              respond,
              renderRefusal(`change the settings of ${target}`, decision.because),
              {
                replace_original: false,
              },
            );
            outcome = 'refused';
          } else {
            outcome = await openSettingsModal(
              deps,
              client,
              c.triggerId,
              c.channelId ?? '',
              c.value.ref,
              c.trunk,
            );
          }
        }
      } catch (err) {
        await sendReply(deps, respond, renderError(err), { replace_original: false });
      }
      deps.metrics.interactions.inc({ name: ACTIONS.settings, outcome });
    },
  );
}
