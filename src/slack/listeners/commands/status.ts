/**
 * `/mergequeue status [target]`: the queue with its buttons, posted in the channel as the bot so that
 * clicks can update that same message (chat.update). Falls back to respond in_channel when the bot
 * cannot post there. With a v2 key the PRs are listed in Trunk's dispatch order, read beside the queue (an
 * order that cannot be read leaves v1's list, logged).
 */

import type { TargetSpec } from '../../../core/target.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderStatus } from '../../blocks/status.ts';
import { postToChannel, updateMessage } from '../../reply.ts';
import { queueAndTrunk } from './queue-at.ts';
import type { CommandRequest, Outcome } from './types.ts';

export async function status(req: CommandRequest, target: TargetSpec | undefined): Promise<Outcome> {
  const at = await queueAndTrunk(req, target);
  if ('outcome' in at) return at.outcome;
  const { ref, trunk } = at;
  const services = req.services;
  const freeze = services.freeze.statusWindow(req.actor, ref);
  const dispatch = services.queue.dispatchOrder(req.actor, ref);
  const read = await services.queue.queue(req.actor, at);
  if (read.answer === 'read_failed') {
    await req.reply.respond(renderError(read.error));
    return 'failed';
  }
  const queue = read.value;
  const window = await freeze;
  const order = await dispatch;
  const { liveStatus } = req.deps;
  const input = {
    ...(window ? { freeze: window } : {}),
    ...(order ? { order } : {}),
    ref,
    queue,
    renderedAt: req.deps.now(),
    appUrl: req.deps.settings.trunkAppUrl,
    ...(trunk.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
  };
  // Only a message the bot posted has a ts that chat.update can keep current: the response_url copy
  // (the bot cannot post in the channel) and a message whose registration failed are not live.
  const still = renderStatus(input);
  const reply = liveStatus ? renderStatus({ ...input, live: 'live' }) : still;
  const posted = await postToChannel(
    req.deps,
    req.client,
    req.channelId,
    { ...reply, response_type: 'in_channel' },
    req.respond,
    { ...still, response_type: 'in_channel' },
  );
  if (liveStatus && posted.via === 'api' && posted.ts) {
    const { ts } = posted;
    await liveStatus
      .register({ workspaceId: req.workspaceId, channelId: req.channelId, ts, target: ref, queue })
      .catch(async (err: unknown) => {
        req.deps.logger.warn({ err }, 'could not register a live status message');
        await updateMessage(req.deps, req.client, req.channelId, ts, still, undefined);
      });
  }
  return 'ok';
}
