/** `/mergequeue digest …`: handed to the digest service, whose reply goes back through respond(). */
import { whyNotOwnPerson } from '../../../queue/membership.ts';
import { renderError } from '../../blocks/errors.ts';
import { mayOperate, sendReply } from '../../interaction.ts';
import type { CommandRequest, Outcome } from './types.ts';

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
    const reply = await service.handleCommand(args, {
      workspaceId: req.workspaceId,
      channelId: req.channelId,
      userId: req.userId,
      ...(user?.tz ? { userTz: user.tz } : {}),
      isOperator: async () => (await mayOperate(req.deps, req.client, req.workspaceId, req.userId)).allowed,
      isChannelMember,
      canSeeChannel: async (channelId) =>
        (ownPerson && (await directory.isPublicChannel(channelId))) ||
        (await directory.isChannelMember(channelId, req.userId)),
    });
    await sendReply(req.deps, req.respond, reply);
    return 'ok';
  } catch (err) {
    req.deps.logger.error({ err }, 'digest command failed');
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
