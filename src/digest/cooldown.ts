/**
 * The cooldown of manual runs (`digest run <id>`): at most one per digest per window, across every replica
 * sharing the database. Without it eight concurrent `digest run`s posted sixteen times and cost 160 Trunk
 * requests. The claim is one conditional upsert (table from migration 003): it wins only when the digest
 * has no row or its last manual run is older than the window.
 */
import type { Db } from '../store/types.ts';

/** Default window between two manual runs of one digest. */
export const MANUAL_RUN_COOLDOWN_MS = 5 * 60_000;

export type CooldownClaim =
  | { ok: true; startedAt: number }
  | { ok: false; lastStartedAt: number; lastStartedBy: string; nextAllowedAt: number };

export class ManualRunCooldown {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async claim(
    key: { subscriptionId: string; workspaceId: string },
    userId: string,
    now: number,
    cooldownMs: number,
  ): Promise<CooldownClaim> {
    const won = await this.#db.query<{ subscription_id: string }>(
      `INSERT INTO digest_manual_runs (subscription_id, workspace_id, started_at, started_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (subscription_id) DO UPDATE SET started_at = excluded.started_at, started_by = excluded.started_by
       WHERE digest_manual_runs.started_at <= $5
       RETURNING subscription_id`,
      [key.subscriptionId, key.workspaceId, now, userId, now - cooldownMs],
    );
    if (won.length > 0) return { ok: true, startedAt: now };
    const rows = await this.#db.query<{ started_at: number; started_by: string }>(
      'SELECT started_at, started_by FROM digest_manual_runs WHERE subscription_id = $1',
      [key.subscriptionId],
    );
    const last = rows[0];
    // The row was removed in between (the digest was removed): report a window ending now.
    const lastStartedAt = last ? Number(last.started_at) : now;
    return {
      ok: false,
      lastStartedAt,
      lastStartedBy: last?.started_by ?? '',
      nextAllowedAt: lastStartedAt + cooldownMs,
    };
  }

  /** Gives a claim back (the run could not start), so the next attempt is not told to wait. */
  async release(subscriptionId: string, startedAt: number): Promise<void> {
    await this.#db.execute('DELETE FROM digest_manual_runs WHERE subscription_id = $1 AND started_at = $2', [
      subscriptionId,
      startedAt,
    ]);
  }

  /** Drops the digest's row (the digest was removed). */
  async forget(subscriptionId: string): Promise<void> {
    await this.#db.execute('DELETE FROM digest_manual_runs WHERE subscription_id = $1', [subscriptionId]);
  }
}
