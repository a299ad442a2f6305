/**
 * Workflow Builder steps waiting for a PR (`wait_for_pr`, migration 016): one more follower of a queue,
 * beside channels, live status messages and linked authors. While a step waits, its queue is followed
 * (followed.ts) and the PR's leaving events (merged, failed, cancelled, left) are routed to it as a `step`
 * destination (watcher.ts); the Slack side completes the step.
 *
 * A wait ends once, across replicas and restarts, in two steps:
 * - `decide`: the first outcome (an event, the time limit, the PR found already gone) is recorded by one
 *   conditional statement; every later one changes nothing;
 * - `complete`: telling Slack is claimed with a `step.complete` lease (store/leases.ts) and fenced, so one
 *   replica sends it; a send that failed is released and retried by the waits worker.
 * The function execution token is stored and read by the store (encrypted); this module never sees it.
 */
import type { Db, LeaseStore, Leases, Row } from '../store/types.ts';
import type { QueueTarget } from './types.ts';

/** How a wait ended: the step completes with `state`, or fails with a message a person can act on. */
export type StepOutcome = { ok: true; state: string } | { ok: false; error: string };

export type StepWaitStatus = 'waiting' | 'decided' | 'done';

export interface StepWait {
  executionId: string;
  workspaceId: string;
  callbackId: string;
  queueKey: string;
  target: QueueTarget;
  prNumber: number;
  channelId?: string;
  userId?: string;
  status: StepWaitStatus;
  outcome?: StepOutcome;
  deadlineAt: number;
  createdAt: number;
}

/** What telling Slack did: sent, or not (`final`: it never will, e.g. the execution is gone). */
export type StepSendResult = { ok: true } | { ok: false; error: string; final: boolean };

/** What `complete` did: sent (or given up for good), someone else sends it, retried later, or nothing to send. */
export type StepCompletion = 'sent' | 'failed' | 'busy' | 'retry' | 'gone';

/** What a step's `state` says of a PR Trunk never had in the queue (getSubmittedPullRequest: 404). */
export const NOT_IN_QUEUE = 'not_in_queue';
const LEFT_STATES: ReadonlySet<string> = new Set(['merged', 'failed', 'cancelled']);

/**
 * The state a waiting step completes with, given what Trunk says of the PR now: merged, failed or
 * cancelled, or NOT_IN_QUEUE; undefined while the PR is still in the queue (the wait goes on).
 */
export function leftStateOf(
  pr: { state?: unknown; isCurrentlySubmittedToQueue: boolean } | 'not_found',
): string | undefined {
  if (pr === 'not_found') return NOT_IN_QUEUE;
  const state = pr.state === undefined || pr.state === null ? undefined : String(pr.state).toLowerCase();
  if (state && LEFT_STATES.has(state)) return state;
  if (!pr.isCurrentlySubmittedToQueue && state === undefined) return NOT_IN_QUEUE;
  return undefined;
}

export const STEP_COMPLETE_LEASE = 'step.complete';
/** How long a claimed completion is this replica's; a send takes one Slack call. */
const COMPLETE_LEASE_MS = 30_000;
/** A failed send is tried again after this long (by the waits worker). */
const RETRY_AFTER_MS = 5_000;
/** A send failing this many times is given up (logged by the caller): the step fails in Slack on its own. */
export const MAX_SEND_ATTEMPTS = 20;

function toWait(r: Row): StepWait {
  const w: StepWait = {
    executionId: String(r['execution_id']),
    workspaceId: String(r['workspace_id']),
    callbackId: String(r['callback_id']),
    queueKey: String(r['queue_key']),
    target: {
      repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
      branch: String(r['branch']),
    },
    prNumber: Number(r['pr_number']),
    status: String(r['status']) as StepWaitStatus,
    deadlineAt: Number(r['deadline_at']),
    createdAt: Number(r['created_at']),
  };
  if (typeof r['channel_id'] === 'string' && r['channel_id']) w.channelId = r['channel_id'];
  if (typeof r['user_id'] === 'string' && r['user_id']) w.userId = r['user_id'];
  if (typeof r['outcome'] === 'string') w.outcome = JSON.parse(r['outcome']) as StepOutcome;
  return w;
}

const COLUMNS = `execution_id, workspace_id, callback_id, queue_key, repo_host, repo_owner, repo_name, branch,
  pr_number, channel_id, user_id, status, outcome, deadline_at, created_at`;

export class StepWaitRepository {
  readonly #db: Db;
  readonly #leases: Leases;
  constructor(store: LeaseStore) {
    this.#db = store.db;
    this.#leases = store.leases;
  }

  async get(executionId: string): Promise<StepWait | undefined> {
    const rows = await this.#db.query(`SELECT ${COLUMNS} FROM step_waits WHERE execution_id = $1`, [
      executionId,
    ]);
    return rows[0] ? toWait(rows[0]) : undefined;
  }

  /** The steps still waiting for this PR of this queue. */
  async waitingFor(workspaceId: string, queueKey: string, prNumber: number): Promise<StepWait[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM step_waits
       WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3 AND status = 'waiting'
       ORDER BY created_at, execution_id`,
      [workspaceId, queueKey, prNumber],
    );
    return rows.map(toWait);
  }

  /** The queues some step waits on (each once): they count as followed. */
  async followedQueues(): Promise<Array<{ workspaceId: string; target: QueueTarget }>> {
    const rows = await this.#db.query(
      `SELECT DISTINCT workspace_id, repo_host, repo_owner, repo_name, branch FROM step_waits WHERE status = 'waiting'`,
    );
    return rows.map((r) => ({
      workspaceId: String(r['workspace_id']),
      target: {
        repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
        branch: String(r['branch']),
      },
    }));
  }

  /** Waits whose time limit has passed, oldest deadline first. */
  async overdue(now: number, limit = 100): Promise<StepWait[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM step_waits WHERE status = 'waiting' AND deadline_at <= $1
       ORDER BY deadline_at, execution_id LIMIT $2`,
      [now, limit],
    );
    return rows.map(toWait);
  }

  /**
   * Waits whose PR is missing from a poll of its queue taken after the wait began, with no event deciding
   * them: the PR left before the queue's first poll set its baseline, so no event will come. With the
   * snapshot's `seq`, so a caller asks Trunk once per poll.
   */
  async unseenLeaving(limit = 50): Promise<Array<{ wait: StepWait; seq: number }>> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS.replaceAll(/(\w+)/g, 'w.$1')}, s.seq AS snapshot_seq, s.snapshot AS snapshot
       FROM step_waits w JOIN watch_snapshots s ON s.workspace_id = w.workspace_id AND s.queue_key = w.queue_key
       WHERE w.status = 'waiting' AND s.taken_at > w.created_at
       ORDER BY w.created_at, w.execution_id LIMIT $1`,
      [limit],
    );
    return rows
      .filter((r) => {
        const prs = (JSON.parse(String(r['snapshot'])) as { prs?: Array<{ number: number }> }).prs ?? [];
        return !prs.some((p) => p.number === Number(r['pr_number']));
      })
      .map((r) => ({ wait: toWait(r), seq: Number(r['snapshot_seq']) }));
  }

  /** Waits decided and not yet told to Slack, oldest decision first. */
  async undelivered(limit = 100): Promise<StepWait[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM step_waits WHERE status = 'decided' ORDER BY decided_at, execution_id LIMIT $1`,
      [limit],
    );
    return rows.map(toWait);
  }

  /** Records how the wait ended, if nothing was decided before: true for the one caller whose outcome counts. */
  async decide(executionId: string, outcome: StepOutcome, now: number): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE step_waits SET status = 'decided', outcome = $2, decided_at = $3
       WHERE execution_id = $1 AND status = 'waiting'`,
      [executionId, JSON.stringify(outcome), now],
    );
    return n === 1;
  }

  /**
   * Tells Slack the decided outcome, once across replicas: claims the send, calls `send`, and records it
   * done (or, when `send` failed and may work later, lets it go to be retried).
   */
  async complete(
    wait: Pick<StepWait, 'executionId' | 'workspaceId'>,
    holder: string,
    now: number,
    send: (w: StepWait) => Promise<StepSendResult>,
  ): Promise<StepCompletion> {
    const id = { kind: STEP_COMPLETE_LEASE, key: wait.executionId };
    const claim = await this.#leases.claim({
      ...id,
      workspaceId: wait.workspaceId,
      holder,
      ttlMs: COMPLETE_LEASE_MS,
      now,
    });
    if (!claim.acquired) return claim.lease?.state === 'finished' ? 'gone' : 'busy';
    const hold = { ...id, holder, fence: claim.fence };
    const current = await this.get(wait.executionId);
    if (current?.status !== 'decided' || !current.outcome) {
      // Nothing (left) to send: done already, or not decided yet (the claim is given back).
      if (current?.status === 'waiting') await this.#leases.release(hold);
      else await this.#leases.finish({ ...hold, now });
      return current?.status === 'waiting' ? 'retry' : 'gone';
    }
    const sent = await send(current).catch(
      (err: unknown): StepSendResult => ({ ok: false, error: String(err), final: false }),
    );
    const giveUp = !sent.ok && (sent.final || claim.attempts >= MAX_SEND_ATTEMPTS);
    if (sent.ok || giveUp) {
      await this.#leases.together(
        (tx) => this.#leases.finish({ ...hold, now, result: sent.ok ? 'sent' : 'failed' }, tx),
        (tx) =>
          tx.execute(
            `UPDATE step_waits SET status = 'done', done_at = $2, detail = $3
             WHERE execution_id = $1 AND status = 'decided'`,
            [wait.executionId, now, sent.ok ? null : sent.error.slice(0, 500)],
          ),
      );
      return sent.ok ? 'sent' : 'failed';
    }
    await this.#leases.release({ ...hold, availableAt: now + RETRY_AFTER_MS });
    return 'retry';
  }

  /** Forgets waits done before `before`, and their leases. */
  async prune(before: number): Promise<number> {
    const n = await this.#db.execute(`DELETE FROM step_waits WHERE status = 'done' AND done_at < $1`, [
      before,
    ]);
    await this.#leases.prune({ kind: STEP_COMPLETE_LEASE, before });
    return n;
  }
}
