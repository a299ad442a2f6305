/**
 * A workspace's access to Trunk v2: its key (one stored with `/mergequeue connect` wins over TRUNK_API_KEY,
 * which counts only in single-workspace mode), and a story reader per key and caller, kept so the ids it
 * looked up are looked up once. Requests wait on the organization's budget like v1's, and `GET
 * /v2/pull-requests…` reads on the key's own (Trunk allows 5 a second per key, besides the organization's
 * 100; two workspaces may share a key's organization, so the bucket is keyed by the key, not the workspace).
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Store } from '../store/types.ts';
import { createTrunkBudget, type TrunkBudget, type TrunkCaller } from '../trunk/budget.ts';
import { apiKeyAuth } from '../trunk/v2/auth.ts';
import { createTrunkV2Client, type TrunkV2Api, type V2AttemptEvent } from '../trunk/v2/client.ts';
import { createV2Ids } from '../trunk/v2/ids.ts';
import { createStoryReader, type StoryReader } from './story-reader.ts';

/** Trunk's limit on `GET /v2/pull-requests…` per API key. */
export const V2_PULL_REQUEST_READS_PER_SECOND = 5;
/** A replaced or removed key takes effect within this time on every replica. */
export const V2_KEY_TTL_MS = 2_000;

export interface V2Workspace {
  reader: StoryReader;
  /** The v2 client itself, for reads and writes the story reader does not make (flaky tests). */
  api: TrunkV2Api;
  /** Where the key came from, for the Home and `connect`. */
  source: 'connect' | 'environment';
}

export interface V2Access {
  /** The workspace's v2 reader for `caller`; undefined when it has no v2 key. */
  forWorkspace(workspaceId: string, orgSlug: string, caller: TrunkCaller): Promise<V2Workspace | undefined>;
  /** Forget a workspace's cached key (after connect stored or removed one). */
  invalidate(workspaceId: string): void;
}

export interface V2AccessOptions {
  store: Pick<Store, 'getTrunkV2Key'>;
  apiUrl: string;
  /** TRUNK_API_KEY, for single-workspace mode only (undefined with OAuth). */
  environmentKey: string | undefined;
  /** The organization's budget every Trunk client of the app shares. */
  budget: TrunkBudget;
  /** The per-key budget of PR reads; default one of 5 per second made here. */
  pullRequestReads?: TrunkBudget;
  dispatcher?: Dispatcher;
  onAttempt?: (event: V2AttemptEvent, caller: TrunkCaller) => void;
  interactiveDeadlineMs?: number;
  now?: () => number;
}

export function createV2Access(opts: V2AccessOptions): V2Access {
  const now = opts.now ?? Date.now;
  // Trunk refuses a sixth PR read in a second with 429. Trunk counts arrivals; a wider guard than the
  // organization's default absorbs more network jitter, since a 429 here costs a person more than a tenth of
  // a second. A person's `why` may wait a little longer for this bucket than for the organization's (a few
  // people asking at once share 5 reads a second) before being told Trunk is busy.
  const prReads =
    opts.pullRequestReads ??
    createTrunkBudget({
      maxPerSecond: V2_PULL_REQUEST_READS_PER_SECOND,
      readMaxWaitMs: 8_000,
      guardMs: 150,
    });
  const keys = new Map<
    string,
    { value: Promise<{ key: string; source: V2Workspace['source'] } | undefined>; expires: number }
  >();
  const readers = new Map<string, { reader: StoryReader; api: TrunkV2Api }>();

  function keyOf(workspaceId: string) {
    const hit = keys.get(workspaceId);
    if (hit && hit.expires > now()) return hit.value;
    const value = opts.store.getTrunkV2Key(workspaceId).then((stored) => {
      if (stored) return { key: stored, source: 'connect' as const };
      return opts.environmentKey ? { key: opts.environmentKey, source: 'environment' as const } : undefined;
    });
    if (keys.size > 10_000) keys.clear();
    keys.set(workspaceId, { value, expires: now() + V2_KEY_TTL_MS });
    value.catch(() => keys.delete(workspaceId));
    return value;
  }

  function readerFor(
    key: string,
    orgSlug: string,
    caller: TrunkCaller,
  ): { reader: StoryReader; api: TrunkV2Api } {
    // The key's digest names its bucket and cache entry, so the key itself is kept in one place only.
    const keyId = createHash('sha256').update(key).digest('hex').slice(0, 24);
    const cacheKey = `${keyId}:${orgSlug}:${caller}`;
    let reader = readers.get(cacheKey);
    if (!reader) {
      const api = createTrunkV2Client({
        baseUrl: opts.apiUrl,
        auth: apiKeyAuth(key),
        ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
        defaultDeadlineMs: caller === 'interactive' ? (opts.interactiveDeadlineMs ?? 30_000) : 30_000,
        budget: opts.budget.gate(orgSlug, caller),
        pullRequestReads: prReads.gate(`v2key:${keyId}`, caller),
        onAttempt: (e) => opts.onAttempt?.(e, caller),
      });
      reader = { reader: createStoryReader(api, createV2Ids(api), now), api };
      if (readers.size > 1_000) readers.clear();
      readers.set(cacheKey, reader);
    }
    return reader;
  }

  return {
    async forWorkspace(workspaceId, orgSlug, caller) {
      const found = await keyOf(workspaceId);
      if (!found) return undefined;
      return { ...readerFor(found.key, orgSlug, caller), source: found.source };
    },
    invalidate(workspaceId) {
      keys.delete(workspaceId);
    },
  };
}
