/**
 * The `/mergequeue` slash command: ack at once (nothing awaited before it), then parse and hand the
 * command to its handler (subcommands.ts) with the request's context (slack/context.ts: the actor, the
 * services, the reply); every answer goes through the reply.
 */
import type { App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { afterAck } from '../../after-ack.ts';
import { renderError, renderUsageError } from '../../blocks/errors.ts';
import { actorOf, type ListenerArgs, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { parseCommand } from '../../grammars/grammar.ts';
import { runSubcommand } from './subcommands.ts';
import type { CommandRequest, Outcome } from './types.ts';

/** /mergequeue, and suffixed variants such as /mergequeue-dev for a second app on the same code. */
export const COMMAND = /^\/mergequeue(?:-[a-z0-9_-]+)?$/;

/** The listener, as Bolt calls it. */
export async function mergequeueCommand(args: ListenerArgs<SlackCommandMiddlewareArgs>): Promise<void> {
  const { ack, command, client, respond, context } = args;
  await ack();
  await afterAck();
  const { slack: deps, services, reply } = context;
  const parsed = parseCommand(command.text);
  const name = parsed.ok ? parsed.command.name : 'invalid';
  const actor = actorOf(context);
  const req: CommandRequest = {
    deps,
    services,
    reply,
    client,
    respond,
    actor,
    workspaceId: actor.workspace.id,
    channelId: command.channel_id,
    userId: command.user_id,
    triggerId: command.trigger_id,
  };
  let outcome: Outcome;
  try {
    if (parsed.ok) outcome = await runSubcommand(req, parsed.command);
    else {
      await reply.respond(renderUsageError(parsed.error, parsed.usage));
      outcome = 'invalid';
    }
  } catch (err) {
    // A bug or an unreachable store: the person still gets an answer, the log gets the details.
    deps.logger.error({ err, subcommand: name }, 'command failed');
    await reply.respond(renderError(err));
    outcome = 'failed';
  }
  deps.metrics.commands.inc({ name, outcome });
}

export function registerMergequeue(app: App, _deps: SlackDeps): void {
  app.command<RequestContext>(COMMAND, mergequeueCommand);
}
