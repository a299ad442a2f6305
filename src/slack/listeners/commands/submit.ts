/** `/mergequeue submit <pr> [target] [priority] [nobatch]`: an operator or the PR's confirmed author; `urgent` and 0–9 operators only. */
import type { PrCommand } from '../../grammars/grammar.ts';
import { applyPrCommand } from './pr-change.ts';
import type { CommandRequest, Outcome } from './types.ts';

export function submit(req: CommandRequest, c: Extract<PrCommand, { name: 'submit' }>): Promise<Outcome> {
  return applyPrCommand(req, c.target, {
    action: 'submit',
    prNumber: c.number,
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
    ...(c.noBatch ? { noBatch: true } : {}),
  });
}
