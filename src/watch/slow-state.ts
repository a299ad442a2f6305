/**
 * The slow-queue state of each queue (migration 020) and the one evaluation that moves it (slow.ts says what
 * slow means). A transition is a conditional UPDATE from the state and episode this replica read, with its
 * event written in the same transaction, keyed by the new episode: entering and leaving are said once.
 */
import type { Db, DbExecutor } from '../store/types.ts';
import { eventId } from './diff.ts';
import { insertEvents } from './queue-state.ts';
import {
  BASELINE_MS,
  judgeSlow,
  type MergedStays,
  RECENT_MS,
  type SlowFigures,
  slowFigures,
} from './slow.ts';
import { type QueueTarget, queueKeyOf, type WatchEvent } from './types.ts';

export interface SlowState {
  slow: boolean;
  episode: number;
  changedAt?: number;
  figures?: SlowFigures;
}

/** A queue that is slow now, for the Home. */
export interface SlowQueue {
  queueKey: string;
  since: number;
  figures?: SlowFigures;
}

export class SlowStateRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async get(workspaceId: string, queueKey: string): Promise<SlowState> {
    const rows = await this.#db.query(
      'SELECT slow, episode, changed_at, figures FROM queue_slow_state WHERE workspace_id = $1 AND queue_key = $2',
      [workspaceId, queueKey],
    );
    const r = rows[0];
    if (!r) return { slow: false, episode: 0 };
    const s: SlowState = { slow: Number(r['slow']) === 1, episode: Number(r['episode']) };
    if (r['changed_at'] !== null && r['changed_at'] !== undefined) s.changedAt = Number(r['changed_at']);
    if (typeof r['figures'] === 'string') s.figures = JSON.parse(r['figures']) as SlowFigures;
    return s;
  }

  /** The workspace's queues that are slow now. */
  async slowQueues(workspaceId: string): Promise<SlowQueue[]> {
    const rows = await this.#db.query(
      'SELECT queue_key, changed_at, figures FROM queue_slow_state WHERE workspace_id = $1 AND slow = 1 ORDER BY queue_key',
      [workspaceId],
    );
    return rows.map((r) => {
      const q: SlowQueue = { queueKey: String(r['queue_key']), since: Number(r['changed_at'] ?? 0) };
      if (typeof r['figures'] === 'string') q.figures = JSON.parse(r['figures']) as SlowFigures;
      return q;
    });
  }

  /**
   * Moves the queue from `from` to slow = `toSlow` and writes `event` with it, in one transaction; false
   * (and nothing written) when another replica moved it first.
   */
  async transition(
    workspaceId: string,
    queueKey: string,
    from: SlowState,
    toSlow: boolean,
    figures: SlowFigures,
    event: (episode: number) => WatchEvent,
    now: number,
  ): Promise<boolean> {
    return this.#db.transaction(async (tx: DbExecutor) => {
      await tx.execute(
        `INSERT INTO queue_slow_state (workspace_id, queue_key, slow, episode) VALUES ($1, $2, 0, 0)
         ON CONFLICT (workspace_id, queue_key) DO NOTHING`,
        [workspaceId, queueKey],
      );
      const moved = await tx.execute(
        `UPDATE queue_slow_state SET slow = $3, episode = episode + 1, changed_at = $4, evaluated_at = $4, figures = $5
         WHERE workspace_id = $1 AND queue_key = $2 AND episode = $6 AND slow = $7`,
        [
          workspaceId,
          queueKey,
          toSlow ? 1 : 0,
          now,
          JSON.stringify(figures),
          from.episode,
          from.slow ? 1 : 0,
        ],
      );
      if (moved !== 1) return false;
      await insertEvents(tx, [event(from.episode + 1)], now);
      return true;
    });
  }

  /** Keeps the latest figures of a queue whose state did not change (the Home shows them). */
  async noteFigures(workspaceId: string, queueKey: string, figures: SlowFigures, now: number): Promise<void> {
    await this.#db.execute(
      `INSERT INTO queue_slow_state (workspace_id, queue_key, slow, episode, evaluated_at, figures) VALUES ($1, $2, 0, 0, $3, $4)
       ON CONFLICT (workspace_id, queue_key) DO UPDATE SET evaluated_at = $3, figures = $4`,
      [workspaceId, queueKey, now, JSON.stringify(figures)],
    );
  }

  /** Forgets the state of a queue nobody follows any more. */
  async forget(workspaceId: string, queueKey: string): Promise<void> {
    await this.#db.execute('DELETE FROM queue_slow_state WHERE workspace_id = $1 AND queue_key = $2', [
      workspaceId,
      queueKey,
    ]);
  }
}

export interface SlowEvaluation {
  figures: SlowFigures;
  /** `entered` / `left` when this call moved the queue (and wrote the event); undefined otherwise. */
  transition?: 'entered' | 'left';
}

/**
 * Evaluates one queue now: reads the merged stays of the last 6 h and the 14 days before, judges, and moves
 * the state (writing the event) when it changed. Safe to call from any replica at any time.
 */
export async function evaluateSlow(
  repo: SlowStateRepository,
  stays: MergedStays,
  q: { workspaceId: string; target: QueueTarget },
  now: number,
): Promise<SlowEvaluation> {
  const queueKey = queueKeyOf(q.target);
  const before = await repo.get(q.workspaceId, queueKey);
  const recentFrom = now - RECENT_MS;
  const [recent, baseline] = await Promise.all([
    stays(q.workspaceId, queueKey, recentFrom, now),
    stays(q.workspaceId, queueKey, recentFrom - BASELINE_MS, recentFrom),
  ]);
  const figures = slowFigures(recent, baseline, now);
  const slow = judgeSlow(before.slow, figures);
  if (slow === before.slow) {
    await repo.noteFigures(q.workspaceId, queueKey, figures, now);
    return { figures };
  }
  const phase = slow ? 'entered' : 'left';
  const moved = await repo.transition(
    q.workspaceId,
    queueKey,
    before,
    slow,
    figures,
    (episode) => ({
      id: eventId({ workspaceId: q.workspaceId, queueKey, seq: 0 }, 'slow', String(episode)),
      workspaceId: q.workspaceId,
      queueKey,
      target: q.target,
      seq: 0,
      at: now,
      kind: 'slow',
      phase,
      figures,
      ...(before.changedAt !== undefined && phase === 'left' ? { since: before.changedAt } : {}),
    }),
    now,
  );
  return moved ? { figures, transition: phase } : { figures };
}
