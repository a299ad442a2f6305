/** `/mergequeue cancel <pr> [target] [reason…]`: an operator or the PR's confirmed author; announced with the reason. */
import type { PrCommand } from '../../grammars/grammar.ts';
import { applyPrCommand } from './pr-change.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function cancel(req: CommandRequest, c: Extract<PrCommand, { name: 'cancel' }>): Promise<Outcome> {
  return applyPrCommand(req, c.target, {
    action: 'cancel',
    prNumber: c.number,
    ...(c.reason ? { reason: c.reason } : {}),
  });
}
