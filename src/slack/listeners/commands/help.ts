/** `/mergequeue help [topic]`: usage with examples; needs neither Trunk nor a target. */
import { renderHelp } from '../../blocks/help.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function help(req: CommandRequest, topic: string | undefined): Promise<Outcome> {
  await req.reply.respond(renderHelp(topic));
  return 'ok';
}
