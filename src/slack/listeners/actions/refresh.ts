/** Refresh: anyone may redraw the status message with the queue as it is now. */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { readQueue } from '../../../queue/service.ts';
import { renderError } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, sendReply } from '../../interaction.ts';
import { readClick, redraw } from './click.ts';

export function register(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>(
    ACTIONS.refresh,
    async ({ ack, body, action, client, respond, context }) => {
      await ack();
      await afterAck();
      let outcome = 'failed';
      try {
        const c = await readClick(deps, { body, action, client, respond, context });
        if (!c) outcome = 'invalid';
        else {
          const queue = await readQueue({ trunk: c.trunk.api }, c.value.ref);
          await redraw(c, queue, { userId: c.userId, verb: 'refreshed', at: deps.now() });
          outcome = 'ok';
        }
      } catch (err) {
        await sendReply(deps, respond, renderError(err), { replace_original: false });
      }
      deps.metrics.interactions.inc({ name: ACTIONS.refresh, outcome });
    },
  );
}
