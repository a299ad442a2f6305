/** Refresh: anyone may redraw the status message with the queue as it is now. */
import type { App } from '@slack/bolt';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { registerButton } from './button.ts';
import { clickedQueue, redraw } from './status-click.ts';

export function registerRefreshButton(app: App, deps: SlackDeps): void {
  registerButton(app, ACTIONS.refresh, async (c) => {
    const read = await deps.services.queue.queue(c.actor, clickedQueue(c));
    if (read.answer === 'read_failed') throw read.error;
    await redraw(c, read.value, { userId: c.userId, verb: 'refreshed', at: deps.now() });
    return 'ok';
  });
}
