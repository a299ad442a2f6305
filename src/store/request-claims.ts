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
/** At most this many claims in one statement (3 parameters each). */
const BATCH_MAX = 64;

/** Statement sizes are powers of two, so a busy turn adds at most seven prepared statements, not one a size. */
function partSize(left: number): number {
  let n = 1;
  while (n * 2 <= Math.min(left, BATCH_MAX)) n *= 2;
  return n;
}

interface Waiting {
  key: string;
  now: number;
  expires: number;
  settle: (won: boolean) => void;
  fail: (err: unknown) => void;
}

export class SqlRequestClaims {
  readonly #db: Db;
  readonly #now: () => number;
  #claims = 0;
  /** SQLite: the claims asked for in this turn of the event loop, written in one statement at its end. */
  #batch: Waiting[] = [];
  constructor(db: Db, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    if (!key) throw new InvalidStoreInputError(['claimOnce needs a non-empty key.']);
    if (!Number.isFinite(ttlMs) || ttlMs <= 0)
      throw new InvalidStoreInputError(['claimOnce needs a positive ttlMs.']);
    const now = this.#now();
    const expires = now + Math.ceil(ttlMs);
    let won: boolean;
    if (this.#db.dialect === 'sqlite') {
      // Every Slack request claims its signature before its ack; on SQLite each statement is a commit of
      // its own, which measured a third of a request's CPU before its ack (ADR 0007, fourth round). The
      // claims of one loop turn go in one statement instead: still the database's answer, so processes
      // sharing the file still split claims between them (test/store/processes.test.ts).
      won = await new Promise<boolean>((settle, fail) => {
        if (this.#batch.push({ key, now, expires, settle, fail }) === 1) setImmediate(() => this.#flush());
      });
    } else {
      won = (await this.#claimRows([{ key, now, expires }])).has(key);
    }
    if (++this.#claims % PURGE_EVERY === 0)
      await this.#db
        .execute('DELETE FROM idempotency_claims WHERE expires_at <= $1', [now])
        .catch(() => undefined);
    return won;
  }

  /** Writes the turn's claims; a key asked for twice in one turn is won by its first asker only. */
  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    for (let i = 0; i < batch.length; ) {
      const part = batch.slice(i, i + partSize(batch.length - i));
      i += part.length;
      const firsts = new Map<string, Waiting>();
      for (const w of part) if (!firsts.has(w.key)) firsts.set(w.key, w);
      try {
        const won = await this.#claimRows([...firsts.values()]);
        for (const w of part) w.settle(firsts.get(w.key) === w && won.has(w.key));
      } catch (err) {
        for (const w of part) w.fail(err);
      }
    }
  }

  /**
   * One statement, atomic on both engines: insert each claim, or take over one that has expired; answers the
   * keys won. Keys must be distinct (a row cannot be claimed twice in one statement).
   */
  async #claimRows(claims: ReadonlyArray<Pick<Waiting, 'key' | 'now' | 'expires'>>): Promise<Set<string>> {
    const values = claims.map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3})`).join(', ');
    const rows = await this.#db.query(
      `INSERT INTO idempotency_claims (claim_key, claimed_at, expires_at) VALUES ${values}
       ON CONFLICT (claim_key) DO UPDATE SET claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
       WHERE idempotency_claims.expires_at <= excluded.claimed_at
       RETURNING claim_key`,
      claims.flatMap((c) => [c.key, c.now, c.expires]),
    );
    return new Set(rows.map((r) => String(r['claim_key'])));
  }

  async releaseClaim(key: string): Promise<void> {
    await this.#db.execute('DELETE FROM idempotency_claims WHERE claim_key = $1', [key]);
  }
}
