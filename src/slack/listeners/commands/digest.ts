/** `/mergequeue digest …`: handed to the digest service, whose reply goes back through respond(). */
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
    const user = await req.deps.directory
      .forWorkspace(req.workspaceId, req.client)
      .getUser(req.userId)
      .catch(() => undefined);
    const reply = await service.handleCommand(args, {
      workspaceId: req.workspaceId,
      channelId: req.channelId,
      userId: req.userId,
      ...(user?.tz ? { userTz: user.tz } : {}),
      isOperator: async () => (await mayOperate(req.deps, req.client, req.workspaceId, req.userId)).allowed,
    });
    await sendReply(req.deps, req.respond, reply);
    return 'ok';
  } catch (err) {
    req.deps.logger.error({ err }, 'digest command failed');
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
}
