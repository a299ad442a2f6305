/**
 * Who hears of a PR besides its author (issue 29): the person who last submitted it from Slack (a command,
 * a button or a Workflow Builder step), kept per (workspace, queue, PR) in `pr_submitters` (migration 019).
 * Their notes follow the author's rules: once per transition (one destination per person, so an author who
 * submitted their own PR hears once), and `me notify off` stops them; a person with no GitHub link keeps that
 * choice in `notify_optouts`.
 */
import { AUTOPILOT_SUBMITTER } from '../history/types.ts';
import type { Db, DbExecutor } from '../store/types.ts';

export type SubmitVia = 'command' | 'button' | 'step' | 'autopilot';

export interface PrSubmitter {
  userId: string;
  via: SubmitVia;
  submittedAt: number;
}

/** The `submitted_by` of the app's own re-submissions (history rows, the Home, stats). */
export { AUTOPILOT_SUBMITTER };

export class SubmitterRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async record(
    workspaceId: string,
    queueKey: string,
    prNumber: number,
    userId: string,
    via: SubmitVia,
    now: number,
  ): Promise<void> {
    await this.#db.execute(
      `INSERT INTO pr_submitters (workspace_id, queue_key, pr_number, user_id, via, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (workspace_id, queue_key, pr_number) DO UPDATE SET user_id = excluded.user_id,
         via = excluded.via, submitted_at = excluded.submitted_at`,
      [workspaceId, queueKey, prNumber, userId, via, now],
    );
  }

  async get(workspaceId: string, queueKey: string, prNumber: number): Promise<PrSubmitter | undefined> {
    const rows = await this.#db.query(
      'SELECT user_id, via, submitted_at FROM pr_submitters WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3',
      [workspaceId, queueKey, prNumber],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      userId: String(r['user_id']),
      via: String(r['via']) as SubmitVia,
      submittedAt: Number(r['submitted_at']),
    };
  }

  /** `me notify on|off` of a person with no GitHub link. */
  async setOptOut(workspaceId: string, userId: string, off: boolean, now: number): Promise<void> {
    if (off)
      await this.#db.execute(
        `INSERT INTO notify_optouts (workspace_id, user_id, at) VALUES ($1, $2, $3)
         ON CONFLICT (workspace_id, user_id) DO UPDATE SET at = excluded.at`,
        [workspaceId, userId, now],
      );
    else
      await this.#db.execute('DELETE FROM notify_optouts WHERE workspace_id = $1 AND user_id = $2', [
        workspaceId,
        userId,
      ]);
  }

  async optedOut(workspaceId: string, userId: string): Promise<boolean> {
    const rows = await this.#db.query(
      'SELECT 1 AS one FROM notify_optouts WHERE workspace_id = $1 AND user_id = $2',
      [workspaceId, userId],
    );
    return rows.length > 0;
  }
}

/** How long after a submit from Slack the queue's `submitted` transition is taken to be that submit. */
export const SUBMIT_MATCH_MS = 10 * 60_000;

/** Who submitted the PR from Slack (or `app:autopilot`) within SUBMIT_MATCH_MS before `now`, if anyone. */
export async function submittedFromSlack(
  tx: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
  now: number,
): Promise<string | undefined> {
  const rows = await tx.query(
    `SELECT user_id FROM pr_submitters WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3
       AND submitted_at >= $4`,
    [workspaceId, queueKey, prNumber, now - SUBMIT_MATCH_MS],
  );
  return rows[0] ? String(rows[0]['user_id']) : undefined;
}
