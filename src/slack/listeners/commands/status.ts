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
  const reply = renderStatus({
    ...(window ? { freeze: window } : {}),
    ref,
    queue,
    renderedAt: req.deps.now(),
    appUrl: req.deps.config.trunk.appUrl,
    ...(trunk.orgSlug ? { orgSlug: trunk.orgSlug } : {}),
    ...(liveStatus ? { live: 'live' as const } : {}),
  });
  const posted = await postToChannel(
    req.deps,
    req.client,
    req.channelId,
    { ...reply, response_type: 'in_channel' },
    req.respond,
  );
  // Only a message the bot posted has a ts that chat.update can keep current.
  if (liveStatus && posted.via === 'api' && posted.ts)
    await liveStatus
      .register({ workspaceId: req.workspaceId, channelId: req.channelId, ts: posted.ts, target: ref })
      .catch((err: unknown) => req.deps.logger.warn({ err }, 'could not register a live status message'));
  return 'ok';
}
