/** `/mergequeue pause|drain|resume [target] [reason…]`: operators only; announced in the channel. */

import type { TargetSpec } from '../../../core/target.ts';
import type { SettableQueueState } from '../../../trunk/types.ts';
import type { StateCommandName } from '../../grammars/grammar.ts';
import { applyCommandChange } from './change.ts';
import type { CommandRequest, Outcome } from './types.ts';

export const DESIRED: Record<StateCommandName, SettableQueueState> = {
  pause: 'paused',
  drain: 'draining',
  resume: 'running',
};

export function changeQueueState(
  req: CommandRequest,
  name: StateCommandName,
  target: TargetSpec | undefined,
  reason: string | undefined,
): Promise<Outcome> {
  return applyCommandChange(req, target, {
    refusedWhat: (t) => `${name} ${t}`,
    ...(reason ? { reason } : {}),
    request: { kind: 'state', desired: DESIRED[name], ...(reason ? { reason } : {}) },
  });
}
