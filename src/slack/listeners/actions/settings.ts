/** The Settings button on a status message opens the settings modal for that queue (operators only). */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { recordRefusal } from '../../../queue/service.ts';
import { renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import { openSettingsModal } from '../../modals.ts';
import { registerButton } from './click.ts';

export function register(app: App, deps: SlackDeps): void {
  registerButton(app, deps, ACTIONS.settings, async (c) => {
    const decision = await mayOperate(deps, c.client, c.workspaceId, c.userId, c.userTeamId);
    if (!decision.allowed) {
      const target = formatQueueRef(c.value.ref);
      await recordRefusal(c.ctx, 'settings', target, decision.because);
      await sendReply(deps, c.respond, renderRefusal(`change the settings of ${target}`, decision.because), {
        replace_original: false,
      });
      return 'refused';
    }
    // From the Home tab there is no channel: the result is told to the person (their app DM).
    const answerIn = c.channelId ?? (c.home ? c.userId : '');
    return openSettingsModal(deps, c.client, c.triggerId, answerIn, c.value.ref, c.trunk);
  });
}
