/**
 * Pause / Drain / Resume buttons on the status message. Acts on the queue's current state (the domain
 * compares it with what the message showed), counts a double click once, updates the message in place,
 * announces the change in the channel and audits. Refusals are ephemeral and change nothing.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { changeState } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import type { SettableQueueState } from '../../../trunk/types.ts';
import { renderError } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, sendReply } from '../../interaction.ts';
import { applyClickChange, clickKeyOf, readClick } from './click.ts';

const BUTTONS: Array<{ id: string; desired: SettableQueueState; words: string; verb: string }> = [
  { id: ACTIONS.pause, desired: 'paused', words: 'pause', verb: 'paused' },
  { id: ACTIONS.drain, desired: 'draining', words: 'drain', verb: 'started draining' },
  { id: ACTIONS.resume, desired: 'running', words: 'resume', verb: 'resumed' },
];

export function register(app: App, deps: SlackDeps): void {
  for (const b of BUTTONS) {
    app.action<BlockAction<ButtonAction>>(b.id, async ({ ack, body, action, client, respond, context }) => {
      await ack();
      await afterAck();
      const outcome = await handle(deps, b, { body, action, client, respond, context });
      deps.metrics.interactions.inc({ name: b.id, outcome });
    });
  }
}

async function handle(
  deps: SlackDeps,
  b: (typeof BUTTONS)[number],
  args: Parameters<typeof readClick>[1],
): Promise<string> {
  try {
    const c = await readClick(deps, args);
    if (!c) return 'invalid';
    return await applyClickChange(c, {
      auditAction: b.words,
      refusedWhat: `${b.words} ${formatQueueRef(c.value.ref)}`,
      verb: b.verb,
      run: (c) =>
        changeState(c.ctx, c.value.ref, b.desired, { expected: c.value.state, clickKey: clickKeyOf(c) }),
    });
  } catch (err) {
    deps.logger.error({ err, action: b.id }, 'button failed');
    await sendReply(deps, args.respond, renderError(err), { replace_original: false });
    return 'failed';
  }
}
