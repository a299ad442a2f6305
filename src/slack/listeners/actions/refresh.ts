/** Refresh: anyone may redraw the status message with the queue as it is now. */
import type { App } from '@slack/bolt';
import { readQueue } from '../../../queue/service.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { redraw, registerButton } from './click.ts';

export function register(app: App, deps: SlackDeps): void {
  registerButton(app, deps, ACTIONS.refresh, async (c) => {
    const queue = await readQueue({ trunk: c.trunk.api }, c.value.ref);
    await redraw(c, queue, { userId: c.userId, verb: 'refreshed', at: deps.now() });
    return 'ok';
  });
}
