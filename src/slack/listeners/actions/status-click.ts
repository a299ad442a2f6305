/**
 * What a click on a status message does to its queue: the one change flow (listeners/queue-change.ts, over
 * the queue service) answering beside the message, and the message redrawn in place with the queue as it is
 * now. A double click of one rendered button counts once (the key below, claimed in the store).
 */
import { formatQueueRef } from '../../../core/target.ts';
import type { QueueAt, QueueChangeRequest } from '../../../services/queue.ts';
import type { Queue } from '../../../trunk/types.ts';
import { type LastAction, renderStatus } from '../../blocks/status.ts';
import { updateMessage } from '../../reply.ts';
import type { Outcome } from '../outcome.ts';
import { applyQueueChange, type ChangeOrigin } from '../queue-change.ts';
import type { Click } from './click.ts';

/** Double clicks of one rendered button (same message, action and shown value) count once. */
export function clickKeyOf(c: Pick<Click, 'messageTs' | 'actionId' | 'value'>): string {
  return `${c.messageTs ?? 'nots'}:${c.actionId}:${formatQueueRef(c.value.ref)}:${c.value.state}:${c.value.concurrency}:${c.value.renderedAt}`;
}

/** Redraws the status message the click came from, with the queue as it is now. */
export async function redraw(c: Click, queue: Queue, lastAction?: LastAction): Promise<void> {
  const services = c.services;
  const order = services.queue.dispatchOrder(c.actor, c.value.ref);
  const window = await services.freeze.statusWindow(c.actor, c.value.ref);
  const dispatch = await order;
  // A live status message stays marked live when a click redraws it.
  const live =
    c.channelId && c.messageTs && !c.ephemeral
      ? await c.deps.liveStatus?.isLive(c.workspaceId, c.channelId, c.messageTs).catch(() => false)
      : false;
  const reply = renderStatus({
    ...(window ? { freeze: window } : {}),
    ...(live ? { live: 'live' as const } : {}),
    ...(dispatch ? { order: dispatch } : {}),
    ref: c.value.ref,
    queue,
    renderedAt: c.deps.now(),
    appUrl: c.deps.settings.trunkAppUrl,
    ...(c.trunk.orgSlug ? { orgSlug: c.trunk.orgSlug } : {}),
    ...(lastAction ? { lastAction } : {}),
  });
  // An ephemeral message has no channel copy chat.update could edit (Slack answers message_not_found).
  const editable = c.ephemeral ? undefined : c.messageTs;
  await updateMessage(c.deps, c.client, c.channelId, editable, reply, c.respond);
}

export interface ClickChange {
  /** What would be refused, in words: "pause acme/web:main". */
  refusedWhat: string;
  /** Past-tense phrase for the message's last-action line: "paused", "set concurrency to 3 on". */
  verb: string;
  /** Why, as the person gave it (the Pause and Drain modals): announced and shown on the message. */
  reason?: string;
  request: QueueChangeRequest;
}

/** The queue a click acts on. */
export function clickedQueue(c: Click): QueueAt {
  return { ref: c.value.ref, trunk: c.trunk };
}

/** Where a clicked change came from: it answers beside the message, never in its place. */
export function clickOrigin(c: Click, redrawn?: ChangeOrigin['redraw']): ChangeOrigin {
  return {
    deps: c.deps,
    client: c.client,
    respond: c.respond,
    actor: c.actor,
    channelId: c.channelId ?? '',
    at: clickedQueue(c),
    replyOptions: { replace_original: false },
    ...(redrawn ? { redraw: redrawn } : {}),
  };
}

/** A clicked queue change: the one change flow, answering beside the message and redrawing it in place. */
export function applyClickChange(c: Click, change: ClickChange): Promise<Outcome> {
  const why = change.reason ? { reason: change.reason } : {};
  return applyQueueChange(
    clickOrigin(c, (queue, at) =>
      redraw(c, queue, at === undefined ? undefined : { userId: c.userId, verb: change.verb, at, ...why }),
    ),
    {
      refusedWhat: change.refusedWhat,
      ...why,
      run: () => c.services.queue.change(c.actor, clickedQueue(c), change.request),
    },
  );
}
