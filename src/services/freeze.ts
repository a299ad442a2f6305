/**
 * The freeze service: `freeze add|list|remove|skip` as `(actor, request) → FreezeAnswer`. Anyone may list;
 * adding, removing and skipping are for operators. Refusals and changes are audited here; the Slack side
 * renders the answer and tells the channel about changes (where the window's starts and ends are announced).
 */
import { formatQueueRef, type QueueRef } from '../core/target.ts';
import {
  addWindow,
  type FreezeAdd,
  listWindows,
  nextOrActiveWindow,
  removeWindow,
  type SkipResult,
  skipNext,
  type WindowView,
} from '../freeze/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueService } from './queue.ts';
import { visibleTo } from './visibility.ts';

export type FreezeRequest =
  | { kind: 'list' }
  | { kind: 'add'; channelId: string; add: FreezeAdd }
  | { kind: 'remove' | 'skip'; id: string };

export type FreezeAnswer =
  | { answer: 'listed'; views: WindowView[]; now: number }
  | { answer: 'no_target' }
  /** Not an operator: `what` is what they tried, `because` the operator rule's words. */
  | { answer: 'refused'; what: string; because: string }
  | { answer: 'added'; view: WindowView }
  | { answer: 'removed'; view: WindowView }
  | { answer: 'not_found'; id: string }
  | { answer: 'skip'; id: string; result: SkipResult };

/** The window a status message shows: open now, or the next one, with its current occurrence. */
export type StatusWindow = WindowView & { current: NonNullable<WindowView['current']> };

export interface FreezeService {
  handle(actor: Actor, request: FreezeRequest): Promise<FreezeAnswer>;
  /**
   * The queue's open or next window for a status message, read beside the queue and never in the way of
   * it: undefined when it has none or the store did not answer (logged).
   */
  statusWindow(actor: Actor, ref: QueueRef): Promise<StatusWindow | undefined>;
}

export function createFreezeService(
  deps: Pick<ServiceDeps, 'store' | 'logger'>,
  queue: QueueService,
): FreezeService {
  const db = deps.store.db;

  /** Undefined when the actor is an operator; otherwise the refusal (audited by the queue's rule). */
  async function refuseUnlessOperator(
    actor: Actor,
    action: string,
    target: string,
    what: string,
  ): Promise<FreezeAnswer | undefined> {
    const decision = await queue.authorize(actor, action, target);
    if (decision.answer === 'allowed') return undefined;
    return { answer: 'refused', what, because: decision.because };
  }

  async function add(actor: Actor, r: Extract<FreezeRequest, { kind: 'add' }>): Promise<FreezeAnswer> {
    const workspaceId = actor.workspace.id;
    const ref = await queue.resolveRef(actor, r.channelId, r.add.target);
    if (!ref) return { answer: 'no_target' };
    const target = formatQueueRef(ref);
    const refused = await refuseUnlessOperator(
      actor,
      'freeze_add',
      target,
      `add a freeze window on ${target}`,
    );
    if (refused) return refused;
    const view = await addWindow(
      db,
      { workspaceId, channelId: r.channelId, createdBy: actor.userId, target: ref, command: r.add },
      actor.now(),
    );
    const w = view.window;
    await actor.audit('freeze_add', target, 'ok', {
      window: w.id,
      start: w.startMinute,
      end: w.endMinute,
      tz: w.tz,
      rule: w.rule,
      action: w.action,
      ...(w.reason ? { reason: w.reason } : {}),
      channel: w.channelId,
    });
    return { answer: 'added', view };
  }

  async function removeOrSkip(actor: Actor, kind: 'remove' | 'skip', id: string): Promise<FreezeAnswer> {
    const workspaceId = actor.workspace.id;
    const action = `freeze_${kind}`;
    const refused = await refuseUnlessOperator(
      actor,
      action,
      `freeze window ${id}`,
      `${kind} freeze window ${id}`,
    );
    if (refused) return refused;
    const now = actor.now();
    if (kind === 'remove') {
      const removed = await removeWindow(db, workspaceId, id, now);
      if (!removed) return { answer: 'not_found', id };
      await actor.audit(action, formatQueueRef(removed.window.target), 'ok', { window: id });
      return { answer: 'removed', view: removed };
    }
    const result = await skipNext(db, workspaceId, id, now);
    if (result.outcome === 'skipped')
      await actor.audit(action, formatQueueRef(result.window.target), 'ok', {
        window: id,
        skipped: result.skipped.start,
      });
    return { answer: 'skip', id, result };
  }

  return {
    async handle(actor, request) {
      switch (request.kind) {
        case 'list': {
          const now = actor.now();
          // Only the windows of channels the person can see, by the rule `digest list` uses.
          const views = await visibleTo(
            actor,
            await listWindows(db, actor.workspace.id, now),
            (v) => v.window.channelId,
          );
          return { answer: 'listed', views, now };
        }
        case 'add':
          return add(actor, request);
        case 'remove':
        case 'skip':
          return removeOrSkip(actor, request.kind, request.id);
      }
    },

    async statusWindow(actor, ref) {
      try {
        return await nextOrActiveWindow(db, actor.workspace.id, ref, actor.now());
      } catch (err) {
        // The status itself still matters more than the window line.
        deps.logger.warn({ err }, 'could not read freeze windows for a status message');
        return undefined;
      }
    },
  };
}
