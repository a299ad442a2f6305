/**
 * Reading Trunk's record of a queue back into its history, once per queue: when the queue becomes followed
 * or `stats` is first asked of it. v1's listPullRequests with `since` (concluded PRs, cursor paging, `take`
 * 100) names the PRs and their last state; with a v2 key, `GET /v2/queue-entry-history` (50 PRs a request,
 * their ids resolved 50 numbers a request) gives every transition of every attempt, with reasons and
 * failure-causing checks. Without a v2 key only the conclusions are known (the stats answer says so).
 *
 * Once across replicas: the work is a lease (`history.readback`, store/leases.ts) finished for good when
 * done. Resumable: after each page the cursor and counts are written to `history_readbacks` in the same
 * transaction as the page's rows, fenced by the lease, so a replica that stalled and was taken over writes
 * nothing, and whoever takes the lease over continues from the last page written. Inside the budget: every
 * request goes through the Trunk client's budget gate (the caller picks whose: a person asking `stats`
 * reads as `view`, the worker as `history`).
 */
import type { Db, DbExecutor, Leases, Row } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import type { EnqueuedPullRequest, QueueAddress } from '../trunk/types.ts';
import type { TrunkV2Api } from '../trunk/v2/client.ts';
import { HISTORY_BATCH_MAX } from '../trunk/v2/client.ts';
import type { V2Ids } from '../trunk/v2/ids.ts';
import type { Transition } from '../trunk/v2/schemas.ts';
import { recordTransitions } from './repository.ts';
import type { HistoryState, PrTransitionRecord } from './types.ts';

export const READBACK_LEASE = 'history.readback';
/** How far back a read-back reaches: the longest `stats` window. */
export const READBACK_DAYS = 30;
/** PRs per v1 page (Trunk's maximum). */
export const READBACK_PAGE = 100;
const LEASE_TTL_MS = 60_000;

export interface ReadbackTrunk {
  v1: Pick<TrunkApi, 'listPullRequests'>;
  /** With a v2 key: its client and id lookups. */
  v2?: { api: Pick<TrunkV2Api, 'queueEntryHistoryBatch'>; ids: V2Ids };
}

export interface ReadbackRequest {
  workspaceId: string;
  queueKey: string;
  address: QueueAddress;
  /** Who reads (this replica), for the lease. */
  holder: string;
  /** The window's start on the first read (default READBACK_DAYS before now); a resumed read keeps its own. */
  from?: number;
}

export type ReadbackOutcome =
  | { kind: 'done'; withV2: boolean; prs: number; requests: number; transitions: number }
  /** It was finished before (by anyone). */
  | { kind: 'finished'; withV2: boolean }
  /** Another replica is reading it now. */
  | { kind: 'busy' }
  /** Trunk failed halfway: what was read is kept, the next read continues from there. */
  | { kind: 'failed'; error: unknown };

export interface ReadbackProgress {
  windowFrom: number;
  windowTo: number;
  withV2: boolean;
  prsRead: number;
  requests: number;
  cursor?: string;
  startedAt: number;
  finishedAt?: number;
}

function toProgress(r: Row): ReadbackProgress {
  const p: ReadbackProgress = {
    windowFrom: Number(r['window_from']),
    windowTo: Number(r['window_to']),
    withV2: Number(r['with_v2']) === 1,
    prsRead: Number(r['prs_read']),
    requests: Number(r['requests']),
    startedAt: Number(r['started_at']),
  };
  if (r['cursor'] !== null && r['cursor'] !== undefined) p.cursor = String(r['cursor']);
  if (r['finished_at'] !== null && r['finished_at'] !== undefined) p.finishedAt = Number(r['finished_at']);
  return p;
}

/** What is known of a queue's read-back (undefined: never started). */
export async function readbackProgress(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
): Promise<ReadbackProgress | undefined> {
  const rows = await db.query('SELECT * FROM history_readbacks WHERE workspace_id = $1 AND queue_key = $2', [
    workspaceId,
    queueKey,
  ]);
  return rows[0] ? toProgress(rows[0]) : undefined;
}

/** Queues among `queues` whose read-back is not finished (never started, or interrupted). */
export async function unreadQueues(
  db: DbExecutor,
  queues: ReadonlyArray<{ workspaceId: string; queueKey: string }>,
): Promise<Array<{ workspaceId: string; queueKey: string }>> {
  const out: Array<{ workspaceId: string; queueKey: string }> = [];
  for (const q of queues) {
    const p = await readbackProgress(db, q.workspaceId, q.queueKey);
    if (!p?.finishedAt) out.push(q);
  }
  return out;
}

const leaseKey = (workspaceId: string, queueKey: string) => `${workspaceId}|${queueKey}`;

/** Reads the queue's record back (see the module comment). */
export async function readBack(
  db: Db,
  leases: Leases,
  trunk: ReadbackTrunk,
  req: ReadbackRequest,
  clock: () => number = Date.now,
): Promise<ReadbackOutcome> {
  const id = { kind: READBACK_LEASE, key: leaseKey(req.workspaceId, req.queueKey) };
  const claim = await leases.claim({
    ...id,
    holder: req.holder,
    ttlMs: LEASE_TTL_MS,
    now: clock(),
    workspaceId: req.workspaceId,
  });
  if (!claim.acquired) {
    if (claim.lease?.state === 'finished') {
      const p = await readbackProgress(db, req.workspaceId, req.queueKey);
      return { kind: 'finished', withV2: p?.withV2 ?? false };
    }
    return { kind: 'busy' };
  }
  const hold = { ...id, holder: req.holder, fence: claim.fence };
  const now = clock();
  await db.execute(
    `INSERT INTO history_readbacks (workspace_id, queue_key, window_from, window_to, phase, with_v2, started_at)
     VALUES ($1, $2, $3, $4, 'v1', $5, $6) ON CONFLICT (workspace_id, queue_key) DO NOTHING`,
    [req.workspaceId, req.queueKey, req.from ?? now - READBACK_DAYS * 86_400_000, now, trunk.v2 ? 1 : 0, now],
  );
  const progress = (await readbackProgress(db, req.workspaceId, req.queueKey)) as ReadbackProgress;
  let cursor = progress.cursor;
  let requests = 0;
  let written = 0;
  try {
    const ids = trunk.v2 ? await trunk.v2.ids.queue(req.address) : undefined;
    if (trunk.v2) requests += 2;
    const list = (at: string | undefined) => {
      const p = trunk.v1.listPullRequests({
        ...req.address,
        since: new Date(progress.windowFrom).toISOString(),
        take: READBACK_PAGE,
        ...(at ? { cursor: at } : {}),
      });
      p.catch(() => undefined); // awaited below; a failure is handled there
      return p;
    };
    let pending = list(cursor);
    for (;;) {
      const page = await pending;
      requests++;
      // The next page is asked for while this one's v2 histories are read (another budget line at Trunk).
      const following = page.nextCursor || undefined;
      if (following && following !== cursor) pending = list(following);
      const concluded = page.pullRequests.filter((p) => isConcluded(p.state));
      let records: PrTransitionRecord[];
      if (trunk.v2 && ids && concluded.length > 0) {
        const byNumber = await trunk.v2.ids.pullRequests(
          ids.repositoryId,
          concluded.map((p) => p.prNumber),
        );
        requests += Math.ceil(concluded.length / 50);
        const idList = [...byNumber.values()];
        const histories = new Map<string, Transition[]>();
        for (let i = 0; i < idList.length; i += HISTORY_BATCH_MAX) {
          const got = await trunk.v2.api.queueEntryHistoryBatch(idList.slice(i, i + HISTORY_BATCH_MAX));
          requests++;
          for (const [k, v] of got) histories.set(k, v);
        }
        records = concluded.flatMap((p) => {
          const prId = byNumber.get(p.prNumber);
          const transitions = prId ? histories.get(prId) : undefined;
          return transitions && transitions.length > 0
            ? fromV2(req, p, transitions, now)
            : [fromV1(req, p, now)];
        });
      } else records = concluded.map((p) => fromV1(req, p, now));
      const next = page.nextCursor || undefined;
      const kept = await db.transaction(async (tx) => {
        if (!(await leases.heartbeat({ ...hold, expiresAt: clock() + LEASE_TTL_MS }, tx))) return undefined;
        const n = await recordTransitions(tx, records);
        await tx.execute(
          `UPDATE history_readbacks SET cursor = $3, prs_read = prs_read + $4, requests = requests + $5
           WHERE workspace_id = $1 AND queue_key = $2`,
          [req.workspaceId, req.queueKey, next ?? null, concluded.length, requests],
        );
        return n;
      });
      if (kept === undefined) return { kind: 'busy' };
      written += kept;
      requests = 0;
      if (!next || next === cursor) break;
      cursor = next;
    }
  } catch (error) {
    await leases.release(hold).catch(() => false);
    return { kind: 'failed', error };
  }
  const done = await db.transaction(async (tx) => {
    if (!(await leases.finish({ ...hold, now: clock(), result: 'read' }, tx))) return false;
    await tx.execute(
      `UPDATE history_readbacks SET finished_at = $3, phase = 'done' WHERE workspace_id = $1 AND queue_key = $2`,
      [req.workspaceId, req.queueKey, clock()],
    );
    return true;
  });
  if (!done) return { kind: 'busy' };
  const final = (await readbackProgress(db, req.workspaceId, req.queueKey)) as ReadbackProgress;
  return {
    kind: 'done',
    withV2: final.withV2,
    prs: final.prsRead,
    requests: final.requests,
    transitions: written,
  };
}

function isConcluded(state: string | undefined): boolean {
  const s = (state ?? '').toLowerCase();
  return s === 'merged' || s === 'failed' || s === 'cancelled';
}

function base(req: ReadbackRequest, p: EnqueuedPullRequest, now: number) {
  return {
    workspaceId: req.workspaceId,
    queueKey: req.queueKey,
    prNumber: p.prNumber,
    source: 'readback' as const,
    recordedAt: now,
    ...(p.prTitle ? { title: p.prTitle } : {}),
    ...(p.prAuthor ? { author: p.prAuthor } : {}),
    priority: p.priorityValue,
    noBatch: p.noBatch,
  };
}

/** v1 alone: the PR's conclusion and when. */
function fromV1(req: ReadbackRequest, p: EnqueuedPullRequest, now: number): PrTransitionRecord {
  return {
    ...base(req, p, now),
    state: (p.state ?? '').toLowerCase() as HistoryState,
    occurredAt: Date.parse(p.stateChangedAt),
    headSha: p.prSha,
  };
}

/** Reasons a PR was cancelled because its commit changed: earlier attempts tested another head. */
const NEW_HEAD = new Set(['PR_PUSHED_TO', 'PR_CLOSED', 'PR_BASE_BRANCH_CHANGED', 'PR_CONVERTED_TO_DRAFT']);

/**
 * v2: every attempt. An attempt's first `notReady` or `pending` is its `submitted`, a `pending` after
 * `notReady` its `queued`; testsPassed and pendingFailure are steps the app does not keep. The head commit
 * (v1's) is known for the attempts since the PR last changed commit.
 */
function fromV2(
  req: ReadbackRequest,
  p: EnqueuedPullRequest,
  transitions: readonly Transition[],
  now: number,
): PrTransitionRecord[] {
  const sorted = [...transitions].sort((a, b) => Date.parse(a.changedAt) - Date.parse(b.changedAt));
  let shaFrom = 0;
  sorted.forEach((t, i) => {
    if (t.state.toLowerCase() === 'cancelled' && NEW_HEAD.has(String(t.reason ?? '').toUpperCase()))
      shaFrom = i + 1;
  });
  const out: PrTransitionRecord[] = [];
  let inAttempt = false;
  let prev = '';
  sorted.forEach((t, i) => {
    const s = t.state.toLowerCase();
    let state: HistoryState | undefined;
    if (s === 'notready' || s === 'pending') {
      if (!inAttempt) state = 'submitted';
      else if (s === 'pending' && prev === 'notready') state = 'queued';
      inAttempt = true;
    } else if (s === 'testing') {
      state = 'testing';
      inAttempt = true;
    } else if (s === 'merged' || s === 'failed' || s === 'cancelled') {
      state = s;
      inAttempt = false;
    }
    prev = s;
    const at = Date.parse(t.changedAt);
    if (!state || !Number.isFinite(at)) return;
    const checks = t.failed?.failureCausingChecks.map((c) => c.name) ?? [];
    out.push({
      ...base(req, p, now),
      state,
      occurredAt: at,
      ...(i >= shaFrom ? { headSha: p.prSha } : {}),
      ...(t.reason ? { reasonCode: t.reason } : {}),
      ...(checks.length > 0 ? { failingChecks: checks } : {}),
    });
  });
  return out;
}
