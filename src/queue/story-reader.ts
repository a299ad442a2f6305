/**
 * Reads what `why` and `eta` need from Trunk v2, at the least cost: ids are kept once looked up (V2Ids), a
 * PR's story is one history read, a batch of PRs (the watcher's failures of one poll) one history batch, and
 * an estimate is asked for at most once per PR per 30 s (Trunk recomputes it at every call). A queue whose
 * estimates are off (404 `ESTIMATE_NOT_ENABLED`) is remembered, so it is not asked again for an hour.
 */
import type { CallOptions } from '../trunk/api.ts';
import type { QueueAddress } from '../trunk/types.ts';
import type { TrunkV2Api } from '../trunk/v2/client.ts';
import type { V2Ids } from '../trunk/v2/ids.ts';
import type { Estimate, MergeQueueOrder, PullRequest, QueuedPullRequest } from '../trunk/v2/schemas.ts';
import { type PrStory, storyOf } from './story.ts';

export const ESTIMATE_REUSE_MS = 30_000;
export const ESTIMATES_OFF_MS = 60 * 60_000;

export type StoryAnswer =
  | { kind: 'story'; pr: PullRequest; story: PrStory }
  /** Trunk knows no such repository, queue or PR (or the PR never entered this queue). */
  | { kind: 'unknown'; what: 'repository' | 'queue' | 'pr' };

export type EtaAnswer =
  | {
      kind: 'eta';
      pr: PullRequest;
      estimate: Estimate | undefined;
      estimatesOff: boolean;
      ahead: QueuedPullRequest[];
      heldBy: QueuedPullRequest[];
      position: EtaPosition;
    }
  | { kind: 'not_in_queue'; pr: PullRequest }
  | { kind: 'unknown'; what: 'repository' | 'queue' | 'pr' };

/** Where the PR is in the dispatch order. */
export type EtaPosition = 'testing' | 'pending' | 'awaitingAdmission' | 'notReady' | 'absent';

export interface StoryReader {
  story(address: QueueAddress, prNumber: number, opts?: CallOptions): Promise<StoryAnswer>;
  /** Stories of many PRs of one queue: one id lookup for the unknown ids, one history batch per 50. */
  stories(
    address: QueueAddress,
    prNumbers: readonly number[],
    opts?: CallOptions,
  ): Promise<Map<number, PrStory>>;
  eta(address: QueueAddress, prNumber: number, opts?: CallOptions): Promise<EtaAnswer>;
  /** The queue's dispatch order (for `status`); undefined when Trunk knows no such queue. */
  order(address: QueueAddress, opts?: CallOptions): Promise<MergeQueueOrder | undefined>;
}

export function createStoryReader(api: TrunkV2Api, ids: V2Ids, now: () => number = Date.now): StoryReader {
  const estimates = new Map<
    string,
    { at: number; answer: Promise<Awaited<ReturnType<TrunkV2Api['queueEntryEstimate']>>> }
  >();
  const estimatesOffUntil = new Map<string, number>();

  type Found = { queueId: string; pr: PullRequest } | { unknown: 'repository' | 'queue' | 'pr' };

  /**
   * The PR as Trunk has it now. One lookup by number answers the whole PR (state, title, queue entry), so a
   * single `why` or `eta` needs no separate read of the PR: PR reads are the scarce ones (5 a second per key).
   */
  async function prOf(address: QueueAddress, prNumber: number, opts?: CallOptions): Promise<Found> {
    const q = await ids.queue(address, opts);
    if (!q) return { unknown: 'repository' };
    if (!q.queueId) return { unknown: 'queue' };
    const [pr] = await api.resolvePullRequests({ repositoryId: q.repositoryId, numbers: [prNumber] }, opts);
    if (!pr) return { unknown: 'pr' };
    return { queueId: q.queueId, pr };
  }

  function estimateOf(prId: string, opts?: CallOptions) {
    const kept = estimates.get(prId);
    if (kept && now() - kept.at < ESTIMATE_REUSE_MS) return kept.answer;
    const answer = api.queueEntryEstimate(prId, opts);
    estimates.set(prId, { at: now(), answer });
    answer.catch(() => estimates.delete(prId));
    // Keep the map bounded: drop what is older than the reuse window.
    if (estimates.size > 1000)
      for (const [k, v] of estimates) if (now() - v.at >= ESTIMATE_REUSE_MS) estimates.delete(k);
    return answer;
  }

  return {
    async story(address, prNumber, opts) {
      const found = await prOf(address, prNumber, opts);
      if ('unknown' in found) return { kind: 'unknown', what: found.unknown };
      const { pr } = found;
      // The batch form (up to 50 ids) is not a /v2/pull-requests path, so it leaves the key's PR reads alone.
      const transitions = (await api.queueEntryHistoryBatch([pr.id], opts)).get(pr.id) ?? [];
      if (transitions.length === 0 && pr.queueEntry?.mergeQueueId !== found.queueId)
        return { kind: 'unknown', what: 'pr' };
      return { kind: 'story', pr, story: storyOf(transitions) };
    },

    async stories(address, prNumbers, opts) {
      const out = new Map<number, PrStory>();
      const q = await ids.queue(address, opts);
      if (!q?.queueId) return out;
      const byNumber = await ids.pullRequests(q.repositoryId, prNumbers, opts);
      const entries = [...byNumber.entries()];
      for (let i = 0; i < entries.length; i += 50) {
        const chunk = entries.slice(i, i + 50);
        const histories = await api.queueEntryHistoryBatch(
          chunk.map(([, id]) => id),
          opts,
        );
        for (const [n, id] of chunk) out.set(n, storyOf(histories.get(id) ?? []));
      }
      return out;
    },

    async eta(address, prNumber, opts) {
      const found = await prOf(address, prNumber, opts);
      if ('unknown' in found) return { kind: 'unknown', what: found.unknown };
      const { pr } = found;
      const order = await api.mergeQueueOrder(found.queueId, opts);
      if (!pr.isCurrentlySubmittedToQueue || pr.queueEntry?.mergeQueueId !== found.queueId)
        return { kind: 'not_in_queue', pr };
      const off = (estimatesOffUntil.get(found.queueId) ?? 0) > now();
      let estimate: Estimate | undefined;
      let estimatesOff = off;
      if (!off) {
        const answer = await estimateOf(pr.id, opts);
        if (answer.kind === 'not_enabled') {
          estimatesOff = true;
          estimatesOffUntil.set(found.queueId, now() + ESTIMATES_OFF_MS);
        } else estimate = answer.estimate;
      }
      const { position, ahead, heldBy } = placeIn(order, prNumber, pr.queueEntry?.state);
      return { kind: 'eta', pr, estimate, estimatesOff, ahead, heldBy, position };
    },

    async order(address, opts) {
      const q = await ids.queue(address, opts);
      if (!q?.queueId) return undefined;
      return api.mergeQueueOrder(q.queueId, opts);
    },
  };
}

/** Where a PR is in the order, and what it waits behind: `directlyAhead` for pending PRs, never array indexes. */
export function placeIn(
  order: MergeQueueOrder,
  prNumber: number,
  state: string | undefined,
): { position: EtaPosition; ahead: QueuedPullRequest[]; heldBy: QueuedPullRequest[] } {
  if (order.batches.some((b) => b.pullRequests.some((p) => p.number === prNumber)))
    return { position: 'testing', ahead: [], heldBy: [] };
  const pending = order.pending.find((p) => p.pullRequest.number === prNumber);
  if (pending) return { position: 'pending', ahead: pending.directlyAhead, heldBy: pending.heldBy };
  const waiting = order.awaitingAdmission.findIndex((p) => p.number === prNumber);
  if (waiting !== -1)
    return {
      position: 'awaitingAdmission',
      ahead: order.awaitingAdmission.slice(Math.max(0, waiting - 3), waiting),
      heldBy: [],
    };
  return { position: state === 'notReady' ? 'notReady' : 'absent', ahead: [], heldBy: [] };
}
