/** − / + concurrency buttons: one step from the value the message showed, if that is still current. */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { setConcurrency } from '../../../queue/service.ts';
import { formatQueueRef } from '../../../queue/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, sendReply } from '../../interaction.ts';
import { applyClickChange, clickKeyOf, readClick } from './click.ts';

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
  const n = c.value.concurrency + delta;
  return applyClickChange(c, {
    auditAction: 'concurrency',
    refusedWhat: `change the concurrency of ${formatQueueRef(c.value.ref)}`,
    verb: `set concurrency to ${n} on`,
    run: (c) =>
      setConcurrency(c.ctx, c.value.ref, n, {
        expectedCurrent: c.value.concurrency,
        clickKey: clickKeyOf(c),
      }),
  });
}
