/**
 * Pause / Drain / Resume buttons on the status message. Acts on the queue's current state (the domain
 * compares it with what the message showed), counts a double click once, updates the message in place,
 * announces the change in the channel and audits. Refusals are ephemeral and change nothing.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { changeState, recordRefusal } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import type { SettableQueueState } from '../../../trunk/types.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, mayOperate, postToChannel, sendReply } from '../../interaction.ts';
import { clickKeyOf, readClick, redraw } from './click.ts';

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
    const target = formatQueueRef(c.value.ref);
    const decision = await mayOperate(deps, c.client, c.workspaceId, c.userId);
    if (!decision.allowed) {
      await recordRefusal(c.ctx, b.words, target, decision.because);
      await sendReply(deps, c.respond, renderRefusal(`${b.words} ${target}`, decision.because), {
        replace_original: false,
      });
      return 'refused';
    }
    const result = await changeState(c.ctx, c.value.ref, b.desired, {
      expected: c.value.state,
      clickKey: clickKeyOf(c),
    });
    if (result.outcome === 'ok') {
      const at = deps.now();
      await redraw(c, result.view, { userId: c.userId, verb: b.verb, at });
      await postToChannel(
        deps,
        c.client,
        c.channelId ?? '',
        renderAnnouncement({
          action: result.action,
          ref: c.value.ref,
          userId: c.userId,
          at,
          before: result.before,
          after: result.after,
        }),
        c.respond,
      );
      return 'ok';
    }
    if (result.outcome === 'noop') {
      // Show the queue as it is now, so the buttons match reality; a repeated click leaves it alone.
      if (result.before) await redraw(c, result.before);
      await sendReply(deps, c.respond, renderNoop(result.reason), { replace_original: false });
      return 'noop';
    }
    await sendReply(deps, c.respond, renderError(result.error), { replace_original: false });
    return 'failed';
  } catch (err) {
    deps.logger.error({ err, action: b.id }, 'button failed');
    await sendReply(deps, args.respond, renderError(err), { replace_original: false });
    return 'failed';
  }
}
