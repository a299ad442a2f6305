/**
 * `/mergequeue digest …`: parse with the digest grammar, build the actor, ask the digest service, render
 * its answer as one ephemeral reply.
 */
import type { Logger } from '../../../../observability/log.ts';
import type { Actor } from '../../../../services/actor.ts';
import type { DigestService } from '../../../../services/digest.ts';
import { createDigestService } from '../../../../services/digest.ts';
import { digestReply, renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import { renderError } from '../../../blocks/errors.ts';
import { parseDigestCommand } from '../../../grammars/digest.ts';
import { DIGEST_HELP } from '../../../grammars/usage.ts';
import type { SlackReply } from '../../../reply.ts';
import type { CommandRequest, Outcome } from '../types.ts';

/** The words after `digest`, answered as one ephemeral reply; a failure is logged and answered in words. */
export async function answerDigest(
  service: DigestService,
  args: string[],
  actor: Actor,
  channelId: string,
  logger: Logger,
): Promise<SlackReply> {
  const parsed = parseDigestCommand(args);
  if (!parsed.ok) return digestReply(parsed.error);
  const cmd = parsed.command;
  if (cmd.op === 'help') return digestReply(DIGEST_HELP);
  try {
    return renderDigestAnswer(await service.handle(actor, channelId, cmd));
  } catch (err) {
    logger.error({ err }, 'digest command failed');
    return digestReply(
      'Something went wrong handling that digest command; nothing may have changed. Try again in a minute.',
    );
  }
}

export async function digest(req: CommandRequest, args: string[]): Promise<Outcome> {
  const commands = req.deps.digest;
  if (!commands) {
    await req.reply.respond({
      text: 'Digests are turned off in this deployment.',
      response_type: 'ephemeral',
    });
    return 'failed';
  }
  try {
    const reply = await answerDigest(
      createDigestService(commands.manage),
      args,
      req.actor,
      req.channelId,
      req.deps.logger.child({ component: 'digest' }),
    );
    await req.reply.respond(reply);
    return 'ok';
  } catch (err) {
    req.deps.logger.error({ err }, 'digest command failed');
    await req.reply.respond(renderError(err));
    return 'failed';
  }
}
