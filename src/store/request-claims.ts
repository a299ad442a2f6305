/**
 * Request-dedupe claims (`idempotency_claims`, migration 001): `Store.claimOnce` and `Store.releaseClaim`.
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
