/** − / + concurrency buttons: one step from the value the message showed, if that is still current. */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { recordRefusal, setConcurrency } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import { renderAnnouncement, renderNoop } from '../../blocks/announcement.ts';
import { renderError, renderRefusal } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, mayOperate, postToChannel, sendReply } from '../../interaction.ts';
import { clickKeyOf, readClick, redraw } from './click.ts';

const STEPS = [
  { id: ACTIONS.concurrencyDec, delta: -1 },
  { id: ACTIONS.concurrencyInc, delta: 1 },
];

export function register(app: App, deps: SlackDeps): void {
  for (const s of STEPS) {
    app.action<BlockAction<ButtonAction>>(s.id, async ({ ack, body, action, client, respond, context }) => {
      await ack();
      await afterAck();
      let outcome = 'failed';
      try {
        outcome = await handle(deps, s.delta, { body, action, client, respond, context });
      } catch (err) {
        deps.logger.error({ err, action: s.id }, 'button failed');
        await sendReply(deps, respond, renderError(err), { replace_original: false });
      }
      deps.metrics.interactions.inc({ name: s.id, outcome });
    });
  }
}

async function handle(
  deps: SlackDeps,
  delta: number,
  args: Parameters<typeof readClick>[1],
): Promise<string> {
  const c = await readClick(deps, args);
  if (!c) return 'invalid';
  const target = formatQueueRef(c.value.ref);
  const decision = await mayOperate(deps, c.client, c.workspaceId, c.userId);
  if (!decision.allowed) {
    await recordRefusal(c.ctx, 'concurrency', target, decision.because);
    await sendReply(deps, c.respond, renderRefusal(`change the concurrency of ${target}`, decision.because), {
      replace_original: false,
    });
    return 'refused';
  }
  const n = c.value.concurrency + delta;
  const result = await setConcurrency(c.ctx, c.value.ref, n, {
    expectedCurrent: c.value.concurrency,
    clickKey: clickKeyOf(c),
  });
  if (result.outcome === 'ok') {
    const at = deps.now();
    await redraw(c, result.view, { userId: c.userId, verb: `set concurrency to ${n} on`, at });
    await postToChannel(
      deps,
      c.client,
      c.channelId ?? '',
      renderAnnouncement({
        action: 'concurrency',
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
    if (result.before) await redraw(c, result.before);
    await sendReply(deps, c.respond, renderNoop(result.reason), { replace_original: false });
    return 'noop';
  }
  await sendReply(deps, c.respond, renderError(result.error), { replace_original: false });
  return 'failed';
}
