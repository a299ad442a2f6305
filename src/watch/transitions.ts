/**
 * The one identity a PR transition has, whether a webhook or a poll saw it: per (workspace, queue, PR), the
 * last transition delivered — its kind, when it happened (Trunk's clock where known) and when it was
 * delivered, by which path (migration 013). Both paths decide with one conditional upsert, inside the
 * transaction that writes their events, so two replicas (or a webhook and a poll) racing cannot both win:
 *   - a webhook's transition is new unless the PR's last one is the same kind (a duplicate: the poll, or an
 *     earlier delivery, got it) or happened later, or at the same moment but a later step (`stale`:
 *     deliveries arrive out of order);
 *   - a poll's transition is new unless a webhook delivered the same kind, or a later step of the PR's
 *     attempt, since the previous poll (the poll's diff spans exactly that window).
 * So a transition reaches each destination once, and a webhook that never comes is covered by the poll.
 * A new transition is also kept in the queue's history (history/), in the same transaction: one row per
 * transition, whichever path saw it first.
 */
import { recordTransition } from '../history/repository.ts';
import type { PrTransitionRecord } from '../history/types.ts';
import type { DbExecutor } from '../store/types.ts';
import { submittedFromSlack } from './submitters.ts';

/** The transitions a PR goes through in one attempt, in order (`queued`: ready to test, webhooks only). */
export type TransitionKind = 'submitted' | 'queued' | 'testing' | 'merged' | 'failed' | 'cancelled';

const RANK: Record<TransitionKind, number> = {
  submitted: 1,
  queued: 2,
  testing: 3,
  merged: 4,
  failed: 4,
  cancelled: 4,
};

export function isTransitionKind(kind: string): kind is TransitionKind {
  return kind in RANK;
}

const RANK_SQL = `CASE watch_transitions.kind WHEN 'submitted' THEN 1 WHEN 'queued' THEN 2 WHEN 'testing' THEN 3 ELSE 4 END`;

export interface TransitionSeen {
  workspaceId: string;
  queueKey: string;
  prNumber: number;
  kind: TransitionKind;
  /** When it happened (epoch ms). */
  occurredAt: number;
  /** Now (epoch ms), on the app's clock. */
  now: number;
  /** What else is known of it, kept in the queue's history when the transition is new. */
  detail?: TransitionDetail;
}

/** A transition's facts beyond its identity, as the queue's history keeps them. */
export type TransitionDetail = Partial<
  Pick<
    PrTransitionRecord,
    'headSha' | 'priority' | 'noBatch' | 'reasonCode' | 'failingChecks' | 'submittedBy' | 'title' | 'author'
  >
>;

async function remember(tx: DbExecutor, t: TransitionSeen, source: 'webhook' | 'poll'): Promise<boolean> {
  const detail = Object.fromEntries(
    Object.entries(t.detail ?? {}).filter(([, v]) => v !== undefined && v !== ''),
  ) as TransitionDetail;
  // Who submitted it from Slack, or the autopilot (issue 29): the history's `submitted_by`.
  if (t.kind === 'submitted' && !detail.submittedBy) {
    const by = await submittedFromSlack(tx, t.workspaceId, t.queueKey, t.prNumber, t.now);
    if (by) detail.submittedBy = by;
  }
  return recordTransition(tx, {
    ...detail,
    workspaceId: t.workspaceId,
    queueKey: t.queueKey,
    prNumber: t.prNumber,
    state: t.kind,
    occurredAt: t.occurredAt,
    source,
    recordedAt: t.now,
  });
}

export type WebhookTransitionOutcome = 'new' | 'duplicate' | 'stale';

const UPSERT = `INSERT INTO watch_transitions (workspace_id, queue_key, pr_number, kind, occurred_at, recorded_at, source)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (workspace_id, queue_key, pr_number) DO UPDATE SET kind = excluded.kind,
    occurred_at = excluded.occurred_at, recorded_at = excluded.recorded_at, source = excluded.source`;

/** A transition a webhook carried: recorded when new (see the module comment). */
export async function recordWebhookTransition(
  tx: DbExecutor,
  t: TransitionSeen,
): Promise<WebhookTransitionOutcome> {
  // Two transitions stamped the same moment (Trunk's timestamps may have whole seconds) keep their order in
  // the attempt: `testing` arriving after `merged` of the same second is stale, not new.
  const n = await tx.execute(
    `${UPSERT} WHERE watch_transitions.kind <> excluded.kind AND (watch_transitions.occurred_at < excluded.occurred_at
       OR (watch_transitions.occurred_at = excluded.occurred_at AND ${RANK_SQL} < $8))`,
    [t.workspaceId, t.queueKey, t.prNumber, t.kind, t.occurredAt, t.now, 'webhook', RANK[t.kind]],
  );
  if (n === 1) {
    await remember(tx, t, 'webhook');
    return 'new';
  }
  const rows = await tx.query(
    'SELECT kind FROM watch_transitions WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3',
    [t.workspaceId, t.queueKey, t.prNumber],
  );
  return rows[0]?.['kind'] === t.kind ? 'duplicate' : 'stale';
}

/**
 * A transition the poll's diff found: false when a webhook delivered it (or a later step of the attempt) at
 * or after `since` (the previous poll); true, and recorded, otherwise.
 */
export async function recordPolledTransition(
  tx: DbExecutor,
  t: TransitionSeen & { since: number },
): Promise<boolean> {
  const n = await tx.execute(
    `${UPSERT} WHERE NOT (watch_transitions.source = 'webhook' AND watch_transitions.recorded_at >= $8
       AND ${RANK_SQL} >= $9)`,
    [t.workspaceId, t.queueKey, t.prNumber, t.kind, t.occurredAt, t.now, 'poll', t.since, RANK[t.kind]],
  );
  if (n !== 1) return false;
  await remember(tx, t, 'poll');
  return true;
}

/**
 * How long a PR's last transition is remembered: longer than Svix keeps retrying a message (about a day and a
 * half), so a late retry still finds the transition it repeats.
 */
export const KEEP_TRANSITIONS_MS = 7 * 24 * 3_600_000;

/** Forgets transitions delivered before `before`. */
export function pruneTransitions(db: DbExecutor, before: number): Promise<number> {
  return db.execute('DELETE FROM watch_transitions WHERE recorded_at < $1', [before]);
}
