/**
 * `/mergequeue status [target]`: the queue with its buttons, posted in the channel as the bot so that
 * clicks can update that same message (chat.update). Falls back to respond in_channel when the bot
 * cannot post there.
 */

import type { TargetSpec } from '../../../core/target.ts';
import { readQueue } from '../../../queue/service.ts';
import type { Queue } from '../../../trunk/types.ts';
import { renderError } from '../../blocks/errors.ts';
import { renderStatus } from '../../blocks/status.ts';
import { statusFreeze } from '../../freeze-status.ts';
import { postToChannel, sendReply } from '../../interaction.ts';
import { type CommandRequest, type Outcome, queueAndTrunk } from './types.ts';

export async function status(req: CommandRequest, target: TargetSpec | undefined): Promise<Outcome> {
  const got = await queueAndTrunk(req, target);
  if ('outcome' in got) return got.outcome;
  const { ref, trunk } = got;
  let queue: Queue;
  const freeze = statusFreeze(req.deps, req.workspaceId, ref);
  try {
    queue = await readQueue({ trunk: trunk.api }, ref);
  } catch (err) {
    await sendReply(req.deps, req.respond, renderError(err));
    return 'failed';
  }
  const window = await freeze;
  const { liveStatus } = req.deps;
  const input = {
    ...(window ? { freeze: window } : {}),
    ref,
    queue,
    renderedAt: req.deps.now(),
    appUrl: req.deps.config.trunk.appUrl,
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
        await req.client.chat
          .update({
            channel: req.channelId,
            ts,
            text: still.text,
            ...(still.blocks ? { blocks: still.blocks } : {}),
          })
          .catch((e: unknown) =>
            req.deps.logger.warn({ err: e }, 'could not unmark a status message as live'),
          );
      });
  }
  return 'ok';
}
