/**
 * The one flow every queue change runs through, typed (`/mergequeue pause`) or clicked (a status
 * button): the person must be an operator (checked every time, refusals audited and answered privately),
 * then the change runs against the queue's current state and is announced in the channel, or the person
 * is told why nothing changed. What differs between the two is said by the origin: how to answer
 * privately, and whether there is a message to redraw.
 */
import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef, type QueueRef } from '../../core/target.ts';
import { type ChangeResult, type QueueContext, recordRefusal } from '../../queue/service.ts';
import type { Queue } from '../../trunk/types.ts';
import { renderAnnouncement, renderNoop } from '../blocks/announcement.ts';
import { renderError, renderRefusal } from '../blocks/errors.ts';
import type { SlackDeps } from '../deps.ts';
import { mayOperate, postToChannel, sendReply } from '../interaction.ts';
import type { Outcome } from './outcome.ts';

/** Where a change came from, and how to answer there. */
export interface ChangeOrigin {
  deps: SlackDeps;
  client: WebClient;
  respond: RespondFn;
  workspaceId: string;
  userId: string;
  /** The clicker's team as the payload says (a Slack Connect stranger's is another org's); none when typed. */
  userTeamId?: string | undefined;
  /** Where the change is announced ('' when a click's payload named no channel). */
  channelId: string;
  ctx: QueueContext;
  ref: QueueRef;
  /** A click answers beside the message it came from, never in its place. */
  replyOptions?: { replace_original: false };
  /**
   * Redraws the message the change came from (a click's status message) with the queue as it is now;
   * `changedAt` is set when this change was made, for the message's last-action line.
   */
  redraw?: (queue: Queue, changedAt?: number) => Promise<void>;
}

export interface QueueChange {
  /** Audit action name for a refusal, e.g. `pause` or `concurrency`. */
  auditAction: string;
  /** What was refused, in words: "pause acme/web:main". */
  refusedWhat: string;
  /** The person's reason, shown in the announcement. */
  reason?: string;
  run: () => Promise<ChangeResult>;
}

/**
 * Whether the person may change the queue: an operator, checked every time. Anyone else is told privately
 * and the refusal audited; the caller then stops (a form that opens first, such as the Pause reason
 * modal, asks here before opening, and the change asks again when it is submitted).
 */
export async function mayChangeQueue(
  o: ChangeOrigin,
  change: Pick<QueueChange, 'auditAction' | 'refusedWhat'>,
): Promise<boolean> {
  const decision = await mayOperate(o.deps, o.client, o.workspaceId, o.userId, o.userTeamId);
  if (decision.allowed) return true;
  await recordRefusal(o.ctx, change.auditAction, formatQueueRef(o.ref), decision.because);
  await sendReply(
    o.deps,
    o.respond,
    renderRefusal(change.refusedWhat, decision.because),
    o.replyOptions ?? {},
  );
  return false;
}

export async function applyQueueChange(o: ChangeOrigin, change: QueueChange): Promise<Outcome> {
  const { deps } = o;
  const replyOptions = o.replyOptions ?? {};
  if (!(await mayChangeQueue(o, change))) return 'refused';
  const result = await change.run();
  if (result.outcome === 'ok') {
    const at = deps.now();
    await o.redraw?.(result.view, at);
    const announcement = renderAnnouncement({
      action: result.action,
      ref: o.ref,
      userId: o.userId,
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
