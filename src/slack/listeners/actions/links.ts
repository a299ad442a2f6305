/** Link buttons (Open in Trunk) still send a click; Slack expects it acknowledged. */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';

export function registerLinkButtons(app: App, deps: SlackDeps): void {
  app.action(ACTIONS.openTrunk, async ({ ack }) => {
    await ack();
    deps.metrics.interactions.inc({ name: ACTIONS.openTrunk, outcome: 'ok' });
  });
}
