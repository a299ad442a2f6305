/**
 * Plain data of the watch domain: what is watched, the snapshots a queue is compared with, and the events
 * the comparison yields. Nothing here knows about Slack; the Slack side renders these.
 */
import type { QueueRef } from '../core/target.ts';
import type { Queue, Readiness } from '../trunk/types.ts';
import type { SlowFigures } from './slow.ts';

export type { SlowFigures } from './slow.ts';

export const TOPICS = ['state', 'submitted', 'testing', 'merged', 'failed', 'health'] as const;
export type Topic = (typeof TOPICS)[number];
export const DEFAULT_TOPICS: readonly Topic[] = ['state', 'failed', 'health'];

/** A queue address; the same shape queue/ resolves targets to. */
export type QueueTarget = QueueRef;

/**
 * The stable name of a queue within a workspace: repositories compare case-insensitively (like the hosts),
 * branches case-sensitively (like git).
 */
export function queueKeyOf(t: QueueTarget): string {
  return `${t.repo.host}/${t.repo.owner}/${t.repo.name}`.toLowerCase() + `:${t.branch}`;
}

/** A channel's feed of one queue. */
export interface Watch {
  id: string;
  workspaceId: string;
  channelId: string;
  target: QueueTarget;
  topics: Topic[];
  /** Overrides STUCK_MINUTES for this channel's health alerts. */
  stuckMinutes?: number;
  createdBy: string;
  createdAt: number;
}

/** A status message that keeps itself current until liveUntil. */
export interface LiveMessage {
  workspaceId: string;
  channelId: string;
  ts: string;
  target: QueueTarget;
  liveUntil: number;
}

/** A Slack user linked to a GitHub login (for notes about their own PRs). */
export interface PersonLink {
  workspaceId: string;
  userId: string;
  githubLogin: string;
  /** Made or confirmed by an operator; a self-made link is an unchecked claim that brings notes only. */
  verified: boolean;
  notify: boolean;
  linkedBy: string;
  linkedAt: number;
}

/** One PR as a snapshot keeps it. */
export interface SnapshotPr {
  number: number;
  title: string;
  author: string;
  /** Absent when Trunk's answer carries no per-PR state (the contract does not list it). */
  state?: string;
  stateChangedAt: string;
}

/** What the store keeps of a queue between polls. */
export interface QueueSnapshot {
  state: string;
  /** Every setting of getQueue except state, branch and the PR list. */
  settings: Record<string, unknown>;
  prs: SnapshotPr[];
  /** Last time a PR started testing or merged, or the queue went from empty to busy (stuck alerts). */
  progressAt: number;
  /** Since when the queue has been paused or draining (paused reminders); absent while running. */
  haltedSince?: number;
}

export interface StoredSnapshot {
  seq: number;
  takenAt: number;
  snapshot: QueueSnapshot;
}

export interface SettingChange {
  field: string;
  before: unknown;
  after: unknown;
  /** True when no change made through this app (an audit entry within the poll window) explains it. */
  outsideSlack: boolean;
  /** The Slack user whose change explains it. */
  by?: string;
}

/** A PR as events carry it. */
export interface EventPr {
  number: number;
  title: string;
  author: string;
  state?: string;
  stateChangedAt?: string;
}

interface EventBase {
  /** Deterministic (workspace, queue, snapshot seq, kind, PR): a restart or takeover writes the same id. */
  id: string;
  workspaceId: string;
  queueKey: string;
  target: QueueTarget;
  seq: number;
  /** When the watcher saw it (epoch ms). */
  at: number;
}

export type WatchEvent =
  | (EventBase & { kind: 'state'; changes: SettingChange[]; outsideSlack: boolean })
  | (EventBase & { kind: 'submitted'; pr: EventPr })
  | (EventBase & { kind: 'testing'; pr: EventPr })
  | (EventBase & { kind: 'merged'; pr: EventPr })
  | (EventBase & {
      kind: 'failed' | 'cancelled';
      pr: EventPr;
      /** Readiness as Trunk reported it when the PR left (explain with queue/readiness.ts). */
      readiness?: Readiness;
      prBaseBranch?: string;
      /**
       * Trunk's reason code as its webhook sent it (`failure_reason` / `cancellation_reason`), shown in the
       * words `why` uses (an unknown code as sent).
       */
      reason?: string;
    })
  | (EventBase & {
      /**
       * The autopilot re-submitted a kicked PR (issue 29), or Trunk refused the re-submission (said once, in
       * the feed): the kick's class and evidence, and the priority and batching it was sent with.
       */
      kind: 'autopilot';
      pr: EventPr;
      outcome: 'resubmitted' | 'refused';
      kickClass: string;
      evidence: string;
      /** The rule that did it: `autopilot requeue flaky infra` of this queue or of the workspace. */
      rule: string;
      priority?: number;
      noBatch?: boolean;
      /** Trunk's words when it refused. */
      refusal?: string;
    })
  | (EventBase & {
      /** The PR left the queue and Trunk no longer says what became of it (404). Live messages only. */
      kind: 'left';
      pr: EventPr;
    })
  | (EventBase & {
      kind: 'health';
      /** The one watch (channel) whose thresholds raised it. */
      watchId: string;
      condition: HealthCondition;
      phase: 'alert' | 'recovered';
      /** When the condition began (epoch ms). */
      since: number;
      /** The threshold that was crossed, in minutes. */
      thresholdMinutes: number;
      waitingPrs: number;
      /** The queue's state now (after a recovery: the state it recovered to). */
      state: string;
      /** On a recovery: the state of the previous poll, i.e. the one the queue left (paused, draining…). */
      wasState?: string;
    })
  | (EventBase & {
      /** The queue entered or left the slow tier (slow.ts); said in the `health` topic. */
      kind: 'slow';
      phase: 'entered' | 'left';
      figures: SlowFigures;
      /** On leaving: since when it had been slow. */
      since?: number;
    });

export type WatchEventKind = WatchEvent['kind'];

export type HealthCondition = 'stuck' | 'paused';

/** Where an event goes. `key` names it in the delivery record. */
export type Destination =
  | { kind: 'channel'; key: string; workspaceId: string; channelId: string; watchId: string }
  | { kind: 'live'; key: string; workspaceId: string; channelId: string; ts: string; liveUntil: number }
  | {
      kind: 'author';
      key: string;
      workspaceId: string;
      userId: string;
      githubLogin: string;
      /** The link was made or confirmed by an operator: the note may offer acting on the PR. */
      verified: boolean;
      /** `submitter`: not the PR's author but the person who submitted it from Slack (issue 29). */
      role?: 'submitter';
    }
  /** The autopilot (issue 29): a kick it may re-submit, decided and sent once across replicas. */
  | { kind: 'autopilot'; key: string; workspaceId: string }
  /** A Workflow Builder step waiting for the PR to leave the queue (waits.ts): the event completes it. */
  | { kind: 'step'; key: string; workspaceId: string; executionId: string };

export type DeliveryResult =
  | { key: string; ok: true }
  /** `final`: retrying cannot help (e.g. channel_not_found); recorded as failed and not retried. */
  | { key: string; ok: false; error: string; final?: boolean };

/**
 * What the Slack side implements: post to channels, re-render live messages, DM authors. Called with the
 * destinations this replica claimed for the event; answer one result per destination (a missing result or
 * a throw counts as a failure to retry).
 */
export type Deliver = (event: WatchEvent, destinations: Destination[]) => Promise<DeliveryResult[]>;

/** Several events of one queue with the destinations claimed for each (see WatcherOptions.deliverBatch). */
export interface DeliveryItem {
  event: WatchEvent;
  destinations: Destination[];
}

/** What the watcher knows beside the events when it hands a batch over. */
export interface DeliveryContext {
  /**
   * The queue as this tick's poll read it, when it did: live messages are drawn from it, so following a
   * queue with live messages costs no Trunk read beyond the poll.
   */
  queue?: Queue;
}

/** Answers `results[i]` for `items[i]`, one result per destination, like Deliver. */
export type DeliverBatch = (items: DeliveryItem[], context?: DeliveryContext) => Promise<DeliveryResult[][]>;

/** How a PR left the queue, as Trunk v2's history tells it (see WatcherOptions.departures). */
export type DepartureFate = 'merged' | 'failed' | 'cancelled';

/**
 * What became of PRs that left one queue, read in one batch (Trunk v2's histories): PR number → its fate.
 * A PR missing from the answer (no history yet, a history that lags behind, or an attempt not over) is
 * asked of v1 one by one.
 * Undefined when the workspace has no v2 key or the read failed.
 */
export type Departures = (
  workspaceId: string,
  target: QueueTarget,
  /** The PRs that left, with when they last changed state in the queue (a fate older than that is stale). */
  prs: Array<{ number: number; stateChangedAt?: string }>,
) => Promise<Map<number, DepartureFate> | undefined>;
