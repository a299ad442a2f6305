/**
 * Request-dedupe claims (`idempotency_claims`, migration 001): `Store.claimOnce` and `Store.releaseClaim`.
 * A once-marker on the request path, not a lease (ADR 0008): the first caller of a key wins until the TTL
 * passes, in one statement, and that is all. It names no holder and has no fence, heartbeat, takeover,
 * record or result: nothing is worked on under it, it only says "this request (a signature, an Events API
 * event_id, a click) was seen". Users: slack/replay-guard.ts (replayed signatures, Events API retries) and
 * queue/operations.ts (a button delivered twice counts once; released when the click's work was not done).
 *
 * Work that runs, can die half-way and must be taken over is a lease (store/leases.ts), never one of these.
 * They stay apart because the request path answers within Slack's 3 s from a budget of milliseconds: one
 * round trip, and expired markers purged every PURGE_EVERY claims instead of by a background pass.
 */
import { InvalidStoreInputError } from './trunk-credentials.ts';
import type { Db } from './types.ts';

const PURGE_EVERY = 200;

export class SqlRequestClaims {
  readonly #db: Db;
  readonly #now: () => number;
  #claims = 0;
  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    if (!key) throw new InvalidStoreInputError(['claimOnce needs a non-empty key.']);
    if (!Number.isFinite(ttlMs) || ttlMs <= 0)
      throw new InvalidStoreInputError(['claimOnce needs a positive ttlMs.']);
    const now = this.#now();
    // One statement, atomic on both engines: insert, or take over a claim that has expired.
    const rows = await this.#db.query(
      `INSERT INTO idempotency_claims (claim_key, claimed_at, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (claim_key) DO UPDATE SET claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
       WHERE idempotency_claims.expires_at <= $2
       RETURNING claim_key`,
      [key, now, now + Math.ceil(ttlMs)],
    );
    if (++this.#claims % PURGE_EVERY === 0)
      await this.#db
        .execute('DELETE FROM idempotency_claims WHERE expires_at <= $1', [now])
        .catch(() => undefined);
    return rows.length === 1;
  }

  async releaseClaim(key: string): Promise<void> {
    await this.#db.execute('DELETE FROM idempotency_claims WHERE claim_key = $1', [key]);
  }
}
