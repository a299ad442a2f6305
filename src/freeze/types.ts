/** Plain data of the freeze domain, shared by its modules. Nothing here knows about Slack. */
import type { QueueRef, TargetSpec } from '../core/target.ts';
import { STATE_AFTER_CHANGE } from '../trunk/types.ts';
import type { FreezeRule, Occurrence } from './schedule.ts';

export type FreezeAction = 'pause' | 'drain';
/** The queue state each action puts a queue in. */
export const STATE_FOR_ACTION = { pause: STATE_AFTER_CHANGE.pause, drain: STATE_AFTER_CHANGE.drain } as const;
export type FreezeState = (typeof STATE_FOR_ACTION)[FreezeAction];

export interface FreezeWindow {
  /** `f` and five characters, e.g. `f7k2m9`. */
  id: string;
  workspaceId: string;
  /** The channel that created the window: where its starts and ends are announced. */
  channelId: string;
  createdBy: string;
  createdAt: number;
  target: QueueRef;
  startMinute: number;
  endMinute: number;
  tz: string;
  rule: FreezeRule;
  action: FreezeAction;
  reason?: string;
  /** Start of the one occurrence `freeze skip` cancelled. */
  skipStartAt?: number;
}

/** A new window's settings as typed; `target` is absent when the channel's or workspace's default applies. */
export type FreezeAdd = Pick<
  FreezeWindow,
  'startMinute' | 'endMinute' | 'tz' | 'rule' | 'action' | 'reason'
> & {
  target?: TargetSpec;
};

/** What readQueue answers: the state, and who changed it when, if the caller knows (e.g. from the audit). */
export interface QueueReading {
  state: string;
  changedAt?: number;
  changedBy?: string;
}

/** What changeQueue answers (the queue domain's ok / noop / failed, reduced to what the freezer needs). */
export type QueueChangeResult =
  | { outcome: 'ok'; state: string }
  | { outcome: 'noop'; state?: string; reason: string }
  | { outcome: 'failed'; error: string };

export type ChangeQueue = (
  workspaceId: string,
  target: QueueRef,
  state: 'paused' | 'draining' | 'running',
  reason: string,
  /** Which window asks (for the audit: who created it). */
  window: FreezeWindow,
) => Promise<QueueChangeResult>;

export type ReadQueue = (workspaceId: string, target: QueueRef) => Promise<QueueReading>;

/** Every reason a freeze window gives its own queue changes starts with this (see Freezer). */
export const FREEZE_REASON_PREFIX = 'Freeze window ';

/** A person's audited change of a queue's state (pause, drain, resume), not one a freeze window made. */
export interface PersonChange {
  userId: string;
  at: number;
  /** The state it set: paused, draining or running. */
  state: string;
}

/** A person's changes of the queue's state at or after `since` (epoch ms), newest first. */
export type PersonChanges = (workspaceId: string, target: QueueRef, since: number) => Promise<PersonChange[]>;

/**
 * Whether a window may act at its start as its creator would: `refused` when the creator is no longer an
 * operator (`because` says why, in words safe to show); `unknown` when that cannot be checked now (the
 * start is retried).
 */
export type CreatorStanding = (
  window: FreezeWindow,
) => Promise<
  { kind: 'operator' } | { kind: 'refused'; because: string } | { kind: 'unknown'; error: string }
>;

interface EventBase {
  window: FreezeWindow;
  occurrence: Occurrence;
  /** Announced in this channel (the window's). */
  channelId: string;
  workspaceId: string;
}

/**
 * Everything the freezer reports, for the Slack side to render in the window's channel.
 * - started: the queue was put in `state` (`late` when applied on recovery after the start time;
 *   `joined` names the window whose freeze was already on).
 * - already_frozen: the queue was already `found` for another reason at the start; it is left as it is and
 *   will not be resumed by this window.
 * - start_retrying: the first failed attempt; retried with backoff until the window closes.
 * - start_failed: never took before the window closed.
 * - ended: resumed (`resumed: true`), or left frozen because other windows on the queue are still open.
 * - not_resumed: the queue is no longer in the state the windows put it in; `reason` says why.
 * - end_retrying / end_failed: resuming failed (retried, then given up after END_MAX_ATTEMPTS).
 * - creator_not_operator: at the start the window's creator was no longer an operator; the window did not
 *   act (and its end will not either).
 */
export type FreezeEvent =
  | (EventBase & { kind: 'started'; state: FreezeState; late: boolean; joined?: string })
  | (EventBase & { kind: 'already_frozen'; found: string })
  | (EventBase & { kind: 'start_retrying'; attempt: number; nextAttemptAt: number; error: string })
  | (EventBase & { kind: 'start_failed'; attempts: number; error: string })
  | (EventBase & { kind: 'ended'; resumed: true; late: boolean })
  | (EventBase & { kind: 'ended'; resumed: false; keptFrozenBy: string[] })
  | (EventBase & {
      kind: 'not_resumed';
      found: string;
      expected?: string;
      changedAt?: number;
      changedBy?: string;
      reason: string;
    })
  | (EventBase & { kind: 'creator_not_operator'; because: string })
  | (EventBase & { kind: 'end_retrying'; attempt: number; nextAttemptAt: number; error: string })
  | (EventBase & { kind: 'end_failed'; attempts: number; error: string });
