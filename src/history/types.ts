/**
 * The queue's memory, as plain data: one record per PR transition the app learned (by webhook, by poll, or
 * read back from Trunk), the queue's own state changes, and the ETAs it showed. Migration 017 holds them.
 */

/** A PR's transitions in one attempt through the queue (`queued`: ready to test, known from webhooks). */
export type HistoryState = 'submitted' | 'queued' | 'testing' | 'merged' | 'failed' | 'cancelled';

export const HISTORY_STATES: readonly HistoryState[] = [
  'submitted',
  'queued',
  'testing',
  'merged',
  'failed',
  'cancelled',
];

/** Which path taught the app a transition. */
export type HistorySource = 'webhook' | 'poll' | 'readback';

/** Why a PR left the queue without merging, by kind (DESIGN "Kick classes"). */
export type KickClass =
  | 'conflict'
  | 'infra'
  | 'flaky'
  | 'upstream'
  | 'superseded'
  | 'cancelled'
  | 'timeout'
  | 'failure'
  | 'unknown';

export const KICK_CLASSES: readonly KickClass[] = [
  'conflict',
  'infra',
  'flaky',
  'upstream',
  'superseded',
  'cancelled',
  'timeout',
  'failure',
  'unknown',
];

/** Who re-submitted a PR when the app's autopilot did it (in `submittedBy`). */
export const AUTOPILOT_SUBMITTER = 'app:autopilot';

/** One row of `queue_history`: the columns of migration 017, camelCased. */
export interface PrTransitionRecord {
  workspaceId: string;
  queueKey: string;
  prNumber: number;
  state: HistoryState;
  /** When it happened (epoch ms, Trunk's clock where known). */
  occurredAt: number;
  headSha?: string;
  /** Trunk's priority value (0 urgent … 255 none). */
  priority?: number;
  noBatch?: boolean;
  /** Trunk's reason code as sent (UPPER_SNAKE, open vocabulary), when known. */
  reasonCode?: string;
  /** The failure-causing checks' names (failed transitions, v2 or webhook). */
  failingChecks?: string[];
  kickClass?: KickClass;
  /** The kick class's evidence in words. */
  kickEvidence?: string;
  /** The Slack user who submitted it from Slack, or `app:autopilot`. */
  submittedBy?: string;
  source: HistorySource;
  /** When the app recorded it (epoch ms, the app's clock). */
  recordedAt: number;
  title?: string;
  /** The PR author's GitHub login. */
  author?: string;
}

/** The queue's own state, as `queue_state_history` keeps it. */
export type QueueRunState = 'running' | 'paused' | 'draining';

/** Trunk's queue state (read case-insensitively) as a run state; undefined for a value it does not know. */
export function queueRunState(state: string): QueueRunState | undefined {
  const s = state.toLowerCase();
  return s === 'running' || s === 'paused' || s === 'draining' ? s : undefined;
}

export interface QueueStateRecord {
  workspaceId: string;
  queueKey: string;
  state: QueueRunState;
  occurredAt: number;
  source: HistorySource;
}

/** A merged PR whose whole stay in the queue the app knows (it saw the attempt's entry). */
export interface MergedStay {
  prNumber: number;
  /** The attempt's first entry (its first `submitted` after the PR's previous conclusion). */
  enteredAt: number;
  mergedAt: number;
  /** From the attempt's last `testing` to merged, when a testing transition is known. */
  testingMs?: number;
}

/** One ETA the app showed (`eta`, the Home, notes), and once the PR merged how far off it was. */
export interface EtaEstimateRecord {
  workspaceId: string;
  queueKey: string;
  prNumber: number;
  shownAt: number;
  /** When it said the PR should merge. */
  estimatedAt: number;
  source: 'trunk' | 'app';
  surface: string;
  mergedAt?: number;
  /** mergedAt − estimatedAt: positive when the PR merged later than said. */
  errorMs?: number;
}
