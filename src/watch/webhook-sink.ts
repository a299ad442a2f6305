/**
 * The merge-queue half of Trunk's webhooks (`pull_request.*`, `pull_request_batch.merged`): each transition
 * becomes the same WatchEvent the poll's diff would write, in the same outbox, so channel feeds, live status
 * messages and the author's note see one pipeline. Whether a transition is new — not already delivered by
 * the poll or an earlier delivery, and not older than the PR's last one — is decided by transitions.ts in
 * the transaction that writes the event. Only followed queues produce events. The delivery is then handed
 * to the Slack side at once (`deliverNow`), not at the watcher's next tick.
 *
 * Payloads are read tolerantly (spec: every field but a few is optional, enums are not published): unknown
 * fields are ignored, unknown reasons kept as sent. `pull_request_batch.pending_failure` names no outcome
 * (the PRs' own `failed` follows when the batch fails), so it is ignored.
 */
import { z } from 'zod';
import type { Logger } from '../observability/log.ts';
import type { Db, Leases } from '../store/types.ts';
import type { FollowedQueue } from './followed.ts';
import { insertEvents, SnapshotRepository } from './queue-state.ts';
import {
  recordWebhookTransition,
  type TransitionKind,
  type WebhookTransitionOutcome,
} from './transitions.ts';
import { type EventPr, type QueueTarget, queueKeyOf, type WatchEvent } from './types.ts';

const text = z.string().nullish();
const repository = z.object({
  host: z.string().nullish(),
  owner: z.string().min(1),
  name: z.string().min(1),
});
const prPayload = z.object({
  author: text,
  pr_number: z.number().int().positive(),
  repository,
  target_branch: z.string().min(1),
  failure_reason: text,
  cancellation_reason: text,
  timestamp: text,
});
const batchPayload = z.object({
  pr_numbers: z.array(z.number().int().positive()).min(1),
  repository,
  target_branch: z.string().min(1),
  timestamp: text,
});

/** The webhook's word for each transition (Trunk spells `canceled`; the API and this app `cancelled`). */
const PR_ACTIONS: Record<string, TransitionKind> = {
  submitted: 'submitted',
  queued: 'queued',
  testing: 'testing',
  merged: 'merged',
  failed: 'failed',
  canceled: 'cancelled',
  cancelled: 'cancelled',
};

export const MERGE_QUEUE_TYPES = /^pull_request(_batch)?\./;

/** What the inbox hands over (src/webhooks/ports.ts's WebhookDelivery, structurally). */
export interface MergeQueueDelivery {
  deliveryId: string;
  workspaceId: string;
  type: string;
  occurredAt: number;
  payload: unknown;
}

export interface MergeQueueSinkOptions {
  db: Db;
  /** The store's lease service (the poll leases beside the snapshots). */
  leases: Leases;
  /** The followed queues now (listFollowedQueues). */
  followed(now: number): Promise<FollowedQueue[]>;
  clock: () => number;
  /** Hands the queue's new events to the Slack side now (Watcher.deliverNow). */
  deliverNow(workspaceId: string, target: QueueTarget): Promise<void>;
  logger: Logger;
}

interface Parsed {
  target: QueueTarget;
  kind: TransitionKind;
  prs: Array<{ number: number; author?: string | undefined }>;
  reason?: string | undefined;
}

function parse(type: string, payload: unknown): Parsed | undefined {
  const [family, action = ''] = type.split('.', 2);
  const kind = PR_ACTIONS[action];
  if (!kind) return undefined;
  const schema = family === 'pull_request_batch' ? batchPayload : prPayload;
  const p = schema.safeParse(payload);
  if (!p.success) return undefined;
  const v = p.data;
  const target: QueueTarget = {
    repo: { host: v.repository.host || 'github.com', owner: v.repository.owner, name: v.repository.name },
    branch: v.target_branch,
  };
  if ('pr_numbers' in v) {
    if (kind !== 'merged') return undefined;
    return { target, kind, prs: v.pr_numbers.map((number) => ({ number })) };
  }
  const reason =
    kind === 'failed' ? v.failure_reason : kind === 'cancelled' ? v.cancellation_reason : undefined;
  return {
    target,
    kind,
    prs: [{ number: v.pr_number, author: v.author ?? undefined }],
    reason: reason ?? undefined,
  };
}

export function createMergeQueueSink(o: MergeQueueSinkOptions) {
  const snapshots = new SnapshotRepository(o);
  return {
    accepts: (type: string) => MERGE_QUEUE_TYPES.test(type),
    async apply(d: MergeQueueDelivery): Promise<'applied' | 'ignored' | 'stale'> {
      const parsed = parse(d.type, d.payload);
      if (!parsed) {
        o.logger.info(
          { type: d.type, delivery: d.deliveryId },
          'webhook delivery not a known queue transition',
        );
        return 'ignored';
      }
      const { target, kind } = parsed;
      const queueKey = queueKeyOf(target);
      const now = o.clock();
      const followed = (await o.followed(now)).some(
        (q) => q.workspaceId === d.workspaceId && queueKeyOf(q.target) === queueKey,
      );
      if (!followed) return 'ignored';
      const stored = await snapshots.get(d.workspaceId, queueKey);
      const snapshot = { seq: stored?.seq ?? 0, prs: stored?.snapshot.prs ?? [] };
      const outcomes: WebhookTransitionOutcome[] = [];
      let written = 0;
      await o.db.transaction(async (tx) => {
        outcomes.length = 0;
        written = 0;
        const events: WatchEvent[] = [];
        for (const pr of parsed.prs) {
          const outcome = await recordWebhookTransition(tx, {
            workspaceId: d.workspaceId,
            queueKey,
            prNumber: pr.number,
            kind,
            occurredAt: d.occurredAt,
            now,
            detail: { author: pr.author, reasonCode: parsed.reason },
          });
          outcomes.push(outcome);
          // `queued` moves the PR's record on (so a later `testing` is new) but is no event of its own.
          if (outcome !== 'new' || kind === 'queued') continue;
          const known = snapshot.prs.find((p) => p.number === pr.number);
          const eventPr: EventPr = {
            number: pr.number,
            title: known?.title ?? '',
            author: pr.author || known?.author || '',
            state: kind,
            stateChangedAt: new Date(d.occurredAt).toISOString(),
          };
          const base = {
            id: `${d.workspaceId}|${queueKey}|webhook|${kind}|${pr.number}|${d.deliveryId}`,
            workspaceId: d.workspaceId,
            queueKey,
            target,
            seq: snapshot.seq,
            at: now,
            pr: eventPr,
          };
          events.push(
            kind === 'failed' || kind === 'cancelled'
              ? { ...base, kind, ...(parsed.reason ? { reason: parsed.reason } : {}) }
              : { ...base, kind },
          );
        }
        await insertEvents(tx, events, now);
        written = events.length;
      });
      if (written > 0)
        await o
          .deliverNow(d.workspaceId, target)
          .catch((err: unknown) =>
            o.logger.warn(
              { err, queue: queueKey },
              'delivering webhook events now failed; the next tick does it',
            ),
          );
      if (outcomes.includes('new')) return 'applied';
      return outcomes.includes('stale') ? 'stale' : 'ignored';
    },
  };
}
