/**
 * Pause / Drain / Resume buttons on the status message. Acts on the queue's current state (the domain
 * compares it with what the message showed), counts a double click once, updates the message in place,
 * announces the change in the channel and audits. Refusals are ephemeral and change nothing.
 */
import type { App } from '@slack/bolt';
import { formatQueueRef } from '../../../core/target.ts';
import { changeState } from '../../../queue/service.ts';
import type { SettableQueueState } from '../../../trunk/types.ts';
import { ACTIONS } from '../../blocks/ids.ts';
import type { SlackDeps } from '../../deps.ts';
import { applyClickChange, clickKeyOf, registerButton } from './click.ts';

const BUTTONS: Array<{ id: string; desired: SettableQueueState; words: string; verb: string }> = [
  { id: ACTIONS.pause, desired: 'paused', words: 'pause', verb: 'paused' },
  { id: ACTIONS.drain, desired: 'draining', words: 'drain', verb: 'started draining' },
  { id: ACTIONS.resume, desired: 'running', words: 'resume', verb: 'resumed' },
];

export function register(app: App, deps: SlackDeps): void {
  for (const b of BUTTONS) {
    registerButton(app, deps, b.id, (c) =>
      applyClickChange(c, {
        auditAction: b.words,
        refusedWhat: `${b.words} ${formatQueueRef(c.value.ref)}`,
        verb: b.verb,
        run: (c) =>
          changeState(c.ctx, c.value.ref, b.desired, { expected: c.value.state, clickKey: clickKeyOf(c) }),
      }),
    );
  }
}
