/** `/mergequeue restart <pr> [target]`: restarts a failed PR's tests; an operator or the PR's confirmed author. */
import type { PrCommand } from '../../grammars/grammar.ts';
import { applyPrCommand } from './pr-change.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function restart(req: CommandRequest, c: Extract<PrCommand, { name: 'restart' }>): Promise<Outcome> {
  return applyPrCommand(req, c.target, { action: 'restart', prNumber: c.number });
}
