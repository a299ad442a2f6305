/**
 * One Trunk pagination per (workspace, repository, kind, scheduled minute), however many digests and
 * replicas share it: ten team channels subscribing to one monorepo at 09:00 cost one pagination, not ten.
 *
 * Each digest's run asks for the pages of its key. The first to claim the key's lease (store/leases.ts)
 * collects: it streams the pages from Trunk to its own digest and stores each page (reduced to the fields
 * a digest reads) as it goes, renewing the lease. Every other digest of the key, on any replica, waits for
 * the row (migration 008) to be done and reads the stored pages, one at a time (memory stays bounded by a
 * page). A collector that dies stops renewing; the first waiter to see the lease expired takes it over,
 * with a new fence that is the pages' new generation, and collects again (older generations are ignored). A Trunk failure is stored
 * too, so the waiting digests tell their channels the same thing instead of each trying Trunk again.
 *
 * What is shared is the raw list. What changed since the last digest, the top N and an owner filter stay
 * per digest (collect.ts runs over the pages for each one), so every digest says exactly what it said
 * when it paginated alone.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/log.ts';
import { ClaimRows, type ClaimRowsSpec } from '../store/claim-rows.ts';
import { keepRenewed } from '../store/leases.ts';
import type { Db, LeaseStore } from '../store/types.ts';
import { type TrunkErrorRecord, trunkErrorFromRecord, trunkErrorRecord } from '../trunk/error-record.ts';
import { isTrunkError } from '../trunk/errors.ts';
import type { FailingTest, QuarantinedTest, Repo } from '../trunk/types.ts';
import type { DigestKind } from './types.ts';

export interface CollectionKey {
  workspaceId: string;
  kind: DigestKind;
  /** The organization and repository: `acme/github.com/acme/web`. */
  source: string;
  scheduledAt: number;
}

export function collectionSource(orgSlug: string, repo: Repo): string {
  return `${orgSlug}/${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

type Role =
  | { role: 'collect'; generation: number }
  | { role: 'read'; generation: number; pages: number }
  | { role: 'failed'; failure: TrunkErrorRecord }
  | { role: 'wait' };

const KEY_WHERE = 'workspace_id = $1 AND kind = $2 AND source = $3 AND scheduled_at = $4';
const keyParams = (k: CollectionKey) => [k.workspaceId, k.kind, k.source, k.scheduledAt];

/** Who collects is a lease in the store's lease table (store/leases.ts); its fence is the generation. */
export const COLLECTION_LEASE = 'digest.collection';
const keyValues = (k: CollectionKey) => [k.workspaceId, k.kind, k.scheduledAt, k.source];
export const collectionLease = (k: CollectionKey) => ({
  kind: COLLECTION_LEASE,
  key: keyValues(k).join('|'),
});
/** One row per collection in `digest_collections`, its lease `digest.collection` (the fence is the generation). */
const COLLECTION_ROWS: ClaimRowsSpec = {
  kind: COLLECTION_LEASE,
  table: 'digest_collections',
  // In the lease key's order.
  key: ['workspace_id', 'kind', 'scheduled_at', 'source'],
  columns: ['workspace_id', 'kind', 'scheduled_at', 'source', 'status', 'generation', 'pages', 'failure'],
};

/**
 * The collection's record in `digest_collections`: collecting, or done (which generation's pages, how
 * many, who collected them), or failed (the Trunk error). Who collects now is the lease's business.
 */
export class CollectionRepository {
  readonly #db: Db;
  readonly #rows: ClaimRows;
  constructor(store: LeaseStore) {
    this.#db = store.db;
    this.#rows = new ClaimRows(store, COLLECTION_ROWS);
  }

  /** Collect (the lease is ours), read (done), failed, or wait (someone is collecting). */
  async acquire(key: CollectionKey, owner: string, now: number, leaseMs: number): Promise<Role> {
    const mine = await this.#rows.claim(
      { key: keyValues(key), workspaceId: key.workspaceId, holder: owner, ttlMs: leaseMs, now },
      // A takeover (the collector stopped renewing) collects again, as a new generation. Refused when the
      // row exists without a live lease (written before migration 009): wait for it.
      (tx, c) =>
        c.takenOver
          ? this.#rows.update(tx, keyValues(key), { pages: 0 }, { whileStatus: ['collecting'] })
          : this.#rows.insert(
              {
                workspace_id: key.workspaceId,
                kind: key.kind,
                source: key.source,
                scheduled_at: key.scheduledAt,
                status: 'collecting',
                owner,
                generation: c.fence,
                created_at: now,
              },
              { tx },
            ),
    );
    if (mine) return { role: 'collect', generation: mine.fence };
    const row = (await this.#rows.get(keyValues(key)))?.row;
    if (!row) return { role: 'wait' }; // pruned meanwhile: the next try claims it
    if (row['status'] === 'done')
      return { role: 'read', generation: Number(row['generation']), pages: Number(row['pages']) };
    if (row['status'] === 'failed' && typeof row['failure'] === 'string')
      return { role: 'failed', failure: JSON.parse(row['failure']) as TrunkErrorRecord };
    return { role: 'wait' };
  }

  async savePage(key: CollectionKey, generation: number, pageNo: number, body: string): Promise<void> {
    await this.#db.execute(
      `INSERT INTO digest_collection_pages (workspace_id, kind, source, scheduled_at, generation, page_no, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id, kind, source, scheduled_at, generation, page_no) DO UPDATE SET body = $7`,
      [...keyParams(key), generation, pageNo, body],
    );
  }

  async page(key: CollectionKey, generation: number, pageNo: number): Promise<string | undefined> {
    const rows = await this.#db.query<{ body: unknown }>(
      `SELECT body FROM digest_collection_pages WHERE ${KEY_WHERE} AND generation = $5 AND page_no = $6`,
      [...keyParams(key), generation, pageNo],
    );
    const body = rows[0]?.body;
    return typeof body === 'string' ? body : undefined;
  }

  /** Every write of a collector is fenced by owner and generation: a replaced collector changes nothing. */
  renew(key: CollectionKey, owner: string, generation: number, leaseUntil: number): Promise<boolean> {
    return this.#rows.heartbeat(keyValues(key), owner, leaseUntil, generation);
  }

  finish(
    key: CollectionKey,
    owner: string,
    generation: number,
    pages: number,
    now: number,
  ): Promise<boolean> {
    return this.#settle(key, owner, generation, now, { status: 'done', pages, owner, generation });
  }

  async fail(key: CollectionKey, owner: string, generation: number, failure: TrunkErrorRecord, now: number) {
    await this.#settle(key, owner, generation, now, { status: 'failed', failure: JSON.stringify(failure) });
  }

  /** Gives the lease up at once (not a Trunk failure: the store or this process), so a waiter collects. */
  async release(key: CollectionKey, owner: string, generation: number): Promise<void> {
    await this.#rows.release(keyValues(key), owner, generation);
  }

  /**
   * Forgets collections (their leases, rows and pages) scheduled before `before`. A row goes only once its
   * lease has: a finished lease without its row would leave the minute's digests waiting for nothing.
   */
  async prune(before: number): Promise<number> {
    const n = await this.#rows.pruneUnleased(before, 'scheduled_at < $1', [before]);
    await this.#db.execute(
      `DELETE FROM digest_collection_pages WHERE scheduled_at < $1 AND NOT EXISTS (
         SELECT 1 FROM digest_collections c WHERE c.workspace_id = digest_collection_pages.workspace_id
           AND c.kind = digest_collection_pages.kind AND c.source = digest_collection_pages.source
           AND c.scheduled_at = digest_collection_pages.scheduled_at)`,
      [before],
    );
    return n;
  }

  /** Finishes the lease and records the outcome on the row, together; false when fenced off. */
  #settle(
    key: CollectionKey,
    owner: string,
    generation: number,
    now: number,
    values: Record<string, number | string>,
  ): Promise<boolean> {
    return this.#rows.write(
      keyValues(key),
      owner,
      { step: 'finish', now },
      { ...values, finished_at: now },
      { fence: generation },
    );
  }
}

/** Thrown to a waiting digest when its service stops (the run's claim is left for another replica). */
export class CollectionAbandoned extends Error {}

export interface SharedEnv {
  collections: CollectionRepository;
  owner: string;
  now: () => number;
  leaseMs: number;
  /** True once the waiting digest should give up (service stopping, claim lost). */
  abandoned: () => boolean;
  logger: Logger;
}

/** A waiting digest looks at the row after 100 ms, then less and less often, up to once a second. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 1_000;

/**
 * The pages of `key`: from Trunk through `fetch` when this digest is the collector (storing each page), or
 * from the store when another digest collected them. `slim` reduces a row to what a digest reads.
 */
export async function* sharedPages<T>(
  env: SharedEnv,
  key: CollectionKey,
  fetch: () => AsyncIterable<T[]>,
  slim: (row: T) => T,
): AsyncGenerator<T[], void, undefined> {
  let pollMs = FIRST_POLL_MS;
  let waited = false;
  for (;;) {
    const got = await env.collections.acquire(key, env.owner, env.now(), env.leaseMs);
    if (got.role === 'collect') {
      env.logger.info(
        { generation: got.generation },
        got.generation > 1
          ? 'collecting for the digests of this minute (the previous collector stopped renewing its lease)'
          : 'collecting for the digests of this minute',
      );
      yield* collectAndStore(env, key, got.generation, fetch, slim);
      return;
    }
    if (got.role === 'read') {
      env.logger.info({ pages: got.pages, waited }, 'reading the pages another digest collected this minute');
      for (let i = 0; i < got.pages; i++) {
        const body = await env.collections.page(key, got.generation, i);
        // A page can only be missing if the collection was pruned while being read: start over.
        if (body === undefined) throw new Error(`digest collection page ${i} is missing`);
        yield JSON.parse(body) as T[];
      }
      return;
    }
    if (got.role === 'failed') throw trunkErrorFromRecord(got.failure);
    if (env.abandoned()) throw new CollectionAbandoned();
    waited = true;
    await sleep(pollMs);
    pollMs = Math.min(MAX_POLL_MS, pollMs * 2);
  }
}

async function* collectAndStore<T>(
  env: SharedEnv,
  key: CollectionKey,
  generation: number,
  fetch: () => AsyncIterable<T[]>,
  slim: (row: T) => T,
): AsyncGenerator<T[], void, undefined> {
  const { collections, owner } = env;
  let settled = false;
  // A failed renewal is settled by the next one or by the waiters' takeover.
  const heartbeat = keepRenewed(
    () => collections.renew(key, owner, generation, env.now() + env.leaseMs),
    env.leaseMs / 3,
  );
  try {
    let n = 0;
    for await (const page of fetch()) {
      await collections.savePage(key, generation, n, JSON.stringify(page.map(slim)));
      n++;
      yield page;
    }
    await collections.finish(key, owner, generation, n, env.now());
    settled = true;
  } catch (err) {
    if (isTrunkError(err)) {
      await collections.fail(key, owner, generation, trunkErrorRecord(err), env.now()).catch(() => undefined);
      settled = true;
    }
    throw err;
  } finally {
    await heartbeat.stop();
    // Stopped early or by something other than Trunk: let a waiter collect now rather than after the lease.
    if (!settled) await collections.release(key, owner, generation).catch(() => undefined);
  }
}

/** A failing test reduced to the fields a digest reads (collect.ts), for storing. */
export function slimFailing(t: FailingTest): FailingTest {
  const out = {
    id: t.id,
    name: t.name,
    parent: t.parent,
    classname: t.classname,
    html_url: t.html_url,
    failure_rate_last_24h: t.failure_rate_last_24h,
    failure_rate_last_7d: t.failure_rate_last_7d,
    pull_requests_impacted_last_7d: t.pull_requests_impacted_last_7d,
    codeowners: t.codeowners,
    quarantined: t.quarantined,
    ...(t.ticket?.html_url ? { ticket: { html_url: t.ticket.html_url } } : {}),
  };
  return out as FailingTest;
}

/** A quarantined test reduced to the fields a digest reads (collect.ts), for storing. */
export function slimQuarantined(t: QuarantinedTest): QuarantinedTest {
  const out = {
    test_case_id: t.test_case_id,
    file: t.file,
    classname: t.classname,
    name: t.name,
    variant: t.variant,
    parent: t.parent,
    codeowners: t.codeowners,
    quarantined_at: t.quarantined_at,
  };
  return out as QuarantinedTest;
}
