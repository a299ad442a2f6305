/**
 * One short cache of Trunk reads for the whole process, shared by every surface (the Home, listings, and
 * later unfurls): what any client of the same Trunk connection read a few seconds ago, or is reading now,
 * answers a read that prefers it, so twenty people opening the Home at once cost one getQueue per queue,
 * and one person opening it again within seconds costs nothing.
 *
 * Every client of a connection records what it reads (getQueue, listPullRequests, getSubmittedPullRequest):
 * the queue watcher's polls are kept for one watch interval, so the Home shows what the watcher last saw
 * of a followed queue instead of asking again. Only clients wrapped with `prefer` answer from the cache;
 * commands that act on a queue read it fresh (ADR 0002). A change to a queue through any client (updateQueue,
 * a PR submitted, cancelled or restarted) forgets that queue's entries, and a read that started before the
 * change is not recorded after it. Failures are never cached.
 */
import { answersFirst } from '../observability/answers-first.ts';
import type { CallOptions, PaginateOptions, TrunkApi, TrunkOperation } from './api.ts';
import { paginate, pagingLimits } from './pagination.ts';
import type { QueueAddress } from './types.ts';
import { validatePullRequestFilter } from './validate.ts';

/** How long a read is reused by default: seconds, so a person sees a change they did not make soon enough. */
export const READ_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 5_000;

export interface ReadCacheWrap {
  /** Answer reads from a fresh entry, or join an identical read in flight, before asking Trunk. */
  prefer?: boolean;
  /** How long what this client reads is kept for others; default the cache's TTL. */
  keepMs?: number;
}

export interface TrunkReadCache {
  /**
   * `api` with its reads recorded under `scope` (one Trunk connection: organization and credentials, so
   * nothing read with one token answers another's read).
   */
  wrap(api: TrunkApi, scope: string, how?: ReadCacheWrap): TrunkApi;
  /** Forgets everything (tests; a replaced token is another scope anyway). */
  clear(): void;
  readonly size: number;
}

interface Entry {
  value: Promise<unknown>;
  /** Infinity while in flight. */
  expires: number;
  queue: string;
}

type CachedRead = 'getQueue' | 'listPullRequests' | 'getSubmittedPullRequest';

export function createTrunkReadCache(opts: { ttlMs?: number; now?: () => number } = {}): TrunkReadCache {
  const ttl = opts.ttlMs ?? READ_CACHE_TTL_MS;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  /** Bumped by each change to a queue: a read begun before it is not recorded. */
  const generations = new Map<string, number>();

  function evict(): void {
    if (entries.size < MAX_ENTRIES) return;
    const t = now();
    for (const [k, e] of entries) if (e.expires <= t) entries.delete(k);
    if (entries.size >= MAX_ENTRIES) entries.clear();
    if (generations.size >= MAX_ENTRIES) generations.clear();
  }

  function forgetQueue(queue: string): void {
    generations.set(queue, (generations.get(queue) ?? 0) + 1);
    for (const [k, e] of entries) if (e.queue === queue) entries.delete(k);
  }

  function wrap(api: TrunkApi, scope: string, how: ReadCacheWrap = {}): TrunkApi {
    const keep = how.keepMs ?? ttl;
    const queueOf = (req: QueueAddress) =>
      `${scope}\n${req.repo.host}/${req.repo.owner}/${req.repo.name}:${req.targetBranch}`.toLowerCase();

    function read<R extends QueueAddress, T>(
      op: CachedRead,
      req: R,
      opts: CallOptions | undefined,
      send: (req: R, opts?: CallOptions) => Promise<T>,
    ): Promise<T> {
      const queue = queueOf(req);
      const key = `${queue}\n${op}\n${stableJson(req)}`;
      const hit = entries.get(key);
      // Each reader of a shared answer goes on in its own turn, after the requests waiting for theirs.
      if (how.prefer && hit && hit.expires > now()) return afterAnswers(hit.value as Promise<T>);
      const generation = generations.get(queue) ?? 0;
      const value = send(req, opts);
      if (how.prefer) {
        evict();
        entries.set(key, { value, expires: Infinity, queue });
      }
      value.then(
        () => {
          if ((generations.get(queue) ?? 0) !== generation) return;
          evict();
          entries.set(key, { value, expires: now() + keep, queue });
        },
        () => {
          if (entries.get(key)?.value === value) entries.delete(key);
        },
      );
      return afterAnswers(value);
    }

    function change<R extends QueueAddress, T>(
      req: R,
      send: (req: R, opts?: CallOptions) => Promise<T>,
      opts?: CallOptions,
    ): Promise<T> {
      const queue = queueOf(req);
      forgetQueue(queue);
      // Forgotten again when it is done: a read that overlapped the change is not kept either.
      return send(req, opts).finally(() => forgetQueue(queue));
    }

    const cached: TrunkApi = {
      getQueue: (req, o) => read('getQueue', req, o, api.getQueue.bind(api)),
      listPullRequests: (req, o) => read('listPullRequests', req, o, api.listPullRequests.bind(api)),
      getSubmittedPullRequest: (req, o) =>
        read('getSubmittedPullRequest', req, o, api.getSubmittedPullRequest.bind(api)),
      updateQueue: (req, o) => change(req, api.updateQueue.bind(api), o),
      submitPullRequest: (req, o) => change(req, api.submitPullRequest.bind(api), o),
      cancelPullRequest: (req, o) => change(req, api.cancelPullRequest.bind(api), o),
      restartTestsOnPullRequest: (req, o) => change(req, api.restartTestsOnPullRequest.bind(api), o),
      getMergeQueueTestingDetails: (req, o) => api.getMergeQueueTestingDetails(req, o),
      listFailingTests: (req, o) => api.listFailingTests(req, o),
      listQuarantinedTests: (req, o) => api.listQuarantinedTests(req, o),
      failingTestPages: (req, o) => api.failingTestPages(req, o),
      quarantinedTestPages: (req, o) => api.quarantinedTestPages(req, o),
      // Page by page through the cache, so identical listings share their pages too.
      async *pullRequestPages(req, o: PaginateOptions = {}) {
        const operation: TrunkOperation = 'listPullRequests';
        const { pageSize, maxPages } = pagingLimits(operation, o);
        validatePullRequestFilter(req);
        const callOpts: CallOptions = {
          ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        };
        yield* paginate(
          operation,
          maxPages,
          (cursor) =>
            cached.listPullRequests(
              { ...req, take: pageSize, ...(cursor === '' ? {} : { cursor }) },
              callOpts,
            ),
          { next: (page) => page.nextCursor, field: 'nextCursor' },
        );
      },
    };
    return cached;
  }

  return {
    wrap,
    clear() {
      entries.clear();
      generations.clear();
    },
    get size() {
      return entries.size;
    },
  };
}

/** JSON with object keys sorted at every level, so equal requests make equal keys. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** `value`, resolved in a turn of its own once no request awaits its answer (answers-first.ts). */
async function afterAnswers<T>(value: Promise<T>): Promise<T> {
  const v = await value;
  await answersFirst();
  return v;
}
