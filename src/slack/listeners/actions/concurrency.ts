/** − / + concurrency buttons: one step from the value the message showed, if that is still current. */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { registerButton } from './button.ts';
import { applyClickChange, clickKeyOf } from './status-click.ts';

const STEPS = [
  { id: ACTIONS.concurrencyDec, delta: -1 },
  { id: ACTIONS.concurrencyInc, delta: 1 },
];

export function registerConcurrencyButtons(app: App, _deps: SlackDeps): void {
  for (const s of STEPS) {
    registerButton(app, s.id, (c) => {
      const n = c.value.concurrency + s.delta;
      return applyClickChange(c, {
        refusedWhat: `change the concurrency of ${formatQueueRef(c.value.ref)}`,
        verb: `set concurrency to ${n} on`,
        request: {
          kind: 'concurrency',
          value: n,
          expectedCurrent: c.value.concurrency,
          clickKey: clickKeyOf(c),
        },
      });
    });
  }
}
