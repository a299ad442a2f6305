/**
 * The one flow every queue change runs through, typed (`/mergequeue pause`) or clicked (a status
 * button): the queue service checks the person (an operator, every time; refusals audited) and runs the
 * change against the queue's current state; here it is announced in the channel, or the person is told
 * privately why nothing changed. What differs between the two is said by the origin: how to answer
 * privately, and whether there is a message to redraw.
 */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Actor } from '../../services/actor.ts';
import type { QueueAt, QueueChangeAnswer } from '../../services/queue.ts';
import type { Queue } from '../../trunk/types.ts';
import { renderAnnouncement, renderNoop } from '../blocks/announcement.ts';
import { renderError, renderRefusal } from '../blocks/errors.ts';
import type { SlackDeps } from '../deps.ts';
import { postToChannel, sendReply } from '../reply.ts';
import type { Outcome } from './outcome.ts';

/** Where a change came from, and how to answer there. */
export interface ChangeOrigin {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  actor: Actor;
  /** Where the change is announced ('' when a click's payload named no channel). */
  channelId: string;
  at: QueueAt;
  /** A click answers beside the message it came from, never in its place. */
  replyOptions?: { replace_original: false };
  /**
   * Redraws the message the change came from (a click's status message) with the queue as it is now;
   * `changedAt` is set when this change was made, for the message's last-action line.
   */
  redraw?: (queue: Queue, changedAt?: number) => Promise<void>;
}

export interface QueueChange {
  /** What would be refused, in words: "pause acme/web:main". */
  refusedWhat: string;
  /** The person's reason, shown in the announcement. */
  reason?: string;
  /** Calls the queue service (which checks the person first). */
  run: () => Promise<QueueChangeAnswer>;
}

/**
 * Asks the queue service whether the person may change the queue, before a form opens (the Pause reason,
 * settings); anyone else is told privately (the refusal is audited) and the caller stops.
 */
export async function mayChangeQueue(
  o: Pick<ChangeOrigin, 'deps' | 'respond' | 'actor' | 'replyOptions'>,
  action: string,
  target: string,
  refusedWhat: string,
): Promise<boolean> {
  const decision = await o.deps.services.queue.authorize(o.actor, action, target);
  if (decision.answer === 'allowed') return true;
  await sendReply(o.deps, o.respond, renderRefusal(refusedWhat, decision.because), o.replyOptions ?? {});
  return false;
}

export async function applyQueueChange(o: ChangeOrigin, change: QueueChange): Promise<Outcome> {
  const { deps } = o;
  const replyOptions = o.replyOptions ?? {};
  const result = await change.run();
  if (result.outcome === 'refused') {
    await sendReply(deps, o.respond, renderRefusal(change.refusedWhat, result.because), replyOptions);
    return 'refused';
  }
  if (result.outcome === 'ok') {
    const at = deps.now();
    await o.redraw?.(result.view, at);
    const announcement = renderAnnouncement({
      action: result.action,
      ref: o.at.ref,
      userId: o.actor.userId,
      at,
      ...(change.reason ? { reason: change.reason } : {}),
      before: result.before,
      after: result.after,
    });
    await postToChannel(deps, o.client, o.channelId, announcement, o.respond);
    return 'ok';
  }
  if (result.outcome === 'noop') {
    // Show the queue as it is now, so a redrawn message's buttons match reality.
    if (result.before) await o.redraw?.(result.before);
    await sendReply(deps, o.respond, renderNoop(result.reason), replyOptions);
    return 'noop';
  }
  await sendReply(deps, o.respond, renderError(result.error), replyOptions);
  return 'failed';
}
