/** The Settings button on a status message opens the settings modal for that queue (operators only). */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { openSettingsModal } from '../../modals.ts';
import { mayChangeQueue } from '../queue-change.ts';
import { registerButton } from './button.ts';
import { clickOrigin } from './status-click.ts';

export function registerSettingsButton(app: App, deps: SlackDeps): void {
  registerButton(app, ACTIONS.settings, async (c) => {
    const target = formatQueueRef(c.value.ref);
    if (!(await mayChangeQueue(clickOrigin(c), 'settings', target, `change the settings of ${target}`)))
      return 'refused';
    // From the Home tab there is no channel: the result is told to the person (their app DM).
    const answerIn = c.channelId ?? (c.home ? c.userId : '');
    return openSettingsModal(deps, c.client, c.triggerId, answerIn, c.value.ref, c.trunk);
  });
}
