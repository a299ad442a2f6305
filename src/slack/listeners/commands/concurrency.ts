/** `/mergequeue concurrency <n> [target]`: operators only; announced in the channel. */

import type { TargetSpec } from '../../../core/target.ts';
import { applyCommandChange } from './change.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function concurrency(
  req: CommandRequest,
  value: number,
  target: TargetSpec | undefined,
): Promise<Outcome> {
  return applyCommandChange(req, target, {
    refusedWhat: (t) => `change the concurrency of ${t}`,
    request: { kind: 'concurrency', value },
  });
}
