/**
 * `/mergequeue digest …`: parsed by the digest grammar, handed to one listener per subcommand, whose
 * answer goes back through respond(). Who the person is (operator, channel member, own person) is read
 * from Slack here, so the digest domain gets plain yes/no questions.
 */
import type { DigestCommandContext, DigestManager } from '../../../../digest/index.ts';
import type { Logger } from '../../../../observability/log.ts';
import { whyNotOwnPerson } from '../../../../queue/membership.ts';
import { digestReply } from '../../../blocks/digest-replies.ts';
import { renderError } from '../../../blocks/errors.ts';
import { parseDigestCommand } from '../../../commands/digest.ts';
import { DIGEST_HELP } from '../../../commands/usage.ts';
import { mayOperate, sendReply } from '../../../interaction.ts';
import type { SlackReply } from '../../../reply.ts';
import type { CommandRequest, Outcome } from '../types.ts';
import { addDigest } from './add.ts';
import { listDigests } from './list.ts';
import { digestOwners } from './owners.ts';
import { removeDigest } from './remove.ts';
import { runDigest } from './run.ts';
import { setDigestOption } from './set.ts';

/** The words after `digest`, answered as one ephemeral reply; a failure is logged and answered in words. */
export async function answerDigest(
  manage: DigestManager,
  args: string[],
  c: DigestCommandContext,
  logger: Logger,
): Promise<SlackReply> {
  const parsed = parseDigestCommand(args);
  if (!parsed.ok) return digestReply(parsed.error);
  const cmd = parsed.command;
  try {
    switch (cmd.op) {
      case 'help':
        return digestReply(DIGEST_HELP);
      case 'add':
        return await addDigest(manage, c, cmd);
      case 'list':
        return await listDigests(manage, c);
      case 'set':
        return await setDigestOption(manage, c, cmd);
      case 'owners':
        return await digestOwners(manage, c, cmd);
      case 'remove':
        return await removeDigest(manage, c, cmd.id);
      case 'run':
        return await runDigest(manage, c, cmd.id);
    }
  } catch (err) {
    logger.error({ err }, 'digest command failed');
    return digestReply(
      'Something went wrong handling that digest command; nothing may have changed. Try again in a minute.',
    );
  }
}

export async function digest(req: CommandRequest, args: string[]): Promise<Outcome> {
  const service = req.deps.digest;
  if (!service) {
    await sendReply(req.deps, req.respond, {
      text: 'Digests are turned off in this deployment.',
      response_type: 'ephemeral',
    });
    return 'failed';
  }
  try {
    const directory = req.deps.directory.forWorkspace(req.workspaceId, req.client);
    const user = await directory.getUser(req.userId).catch(() => undefined);
    // Guests, people of another organization, bots: never a digest's manager, and they see only their channels.
    const ownPerson = Boolean(user && !whyNotOwnPerson(user, req.workspaceId));
    const isChannelMember = async (channelId: string) =>
      ownPerson && (await directory.isChannelMember(channelId, req.userId));
    const reply = await answerDigest(
      service.manage,
      args,
      {
        workspaceId: req.workspaceId,
        channelId: req.channelId,
        userId: req.userId,
        ...(user?.tz ? { userTz: user.tz } : {}),
        isOperator: async () => (await mayOperate(req.deps, req.client, req.workspaceId, req.userId)).allowed,
        isChannelMember,
        canSeeChannel: async (channelId) =>
          (ownPerson && (await directory.isPublicChannel(channelId))) ||
          (await directory.isChannelMember(channelId, req.userId)),
      },
      req.deps.logger.child({ component: 'digest' }),
    );
    await sendReply(req.deps, req.respond, reply);
    return 'ok';
  } catch (err) {
    req.deps.logger.error({ err }, 'digest command failed');
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
