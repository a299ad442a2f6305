/**
 * v2 addresses everything by id (a repository uuid, a queue id, a PR uuid) where v1 and people use
 * `owner/repo:branch` and `#123`. Ids never change, so each is looked up once and kept: after the first read
 * of a queue, explaining 50 failed PRs costs one PR lookup and one history batch, not 50 reads.
 */

import type { CallOptions } from '../api.ts';
import type { QueueAddress } from '../types.ts';
import type { TrunkV2Api } from './client.ts';
import { RESOLVE_NUMBERS_MAX } from './client.ts';

export interface QueueIds {
  repositoryId: string;
  /** Undefined when Trunk has no queue on that branch. */
  queueId: string | undefined;
}

export interface V2Ids {
  /** The repository and queue ids of a v1 address; undefined when Trunk does not know the repository. */
  queue(address: QueueAddress, opts?: CallOptions): Promise<QueueIds | undefined>;
  /** PR ids by number for one repository; numbers Trunk does not know are absent from the map. */
  pullRequests(
    repositoryId: string,
    numbers: readonly number[],
    opts?: CallOptions,
  ): Promise<Map<number, string>>;
}

/** Bounds the memory of a long-running process that follows many repositories. */
const MAX_PR_IDS = 50_000;

export function createV2Ids(api: TrunkV2Api): V2Ids {
  const repos = new Map<string, Promise<string | undefined>>();
  const queues = new Map<string, Promise<string | undefined>>();
  const prs = new Map<string, string>();

  function repositoryId(address: QueueAddress, opts?: CallOptions): Promise<string | undefined> {
    const { host, owner, name } = address.repo;
    const url = `https://${host}/${owner}/${name}`;
    let p = repos.get(url.toLowerCase());
    if (!p) {
      p = api.findRepository(url, opts).then((r) => r?.id);
      // A failed lookup is not remembered: the next ask tries again.
      p.catch(() => repos.delete(url.toLowerCase()));
      repos.set(url.toLowerCase(), p);
    }
    return p;
  }

  return {
    async queue(address, opts) {
      const repoId = await repositoryId(address, opts);
      if (!repoId) return undefined;
      const key = `${repoId}\u0000${address.targetBranch}`;
      let p = queues.get(key);
      if (!p) {
        p = api
          .listMergeQueues({ repositoryId: repoId, targetBranch: address.targetBranch }, opts)
          .then((qs) => qs.find((q) => q.targetBranch === address.targetBranch)?.id);
        p.catch(() => queues.delete(key));
        queues.set(key, p);
      }
      return { repositoryId: repoId, queueId: await p };
    },
    async pullRequests(repositoryId, numbers, opts) {
      const out = new Map<number, string>();
      const missing: number[] = [];
      for (const n of new Set(numbers)) {
        const known = prs.get(`${repositoryId}#${n}`);
        if (known) out.set(n, known);
        else missing.push(n);
      }
      for (let i = 0; i < missing.length; i += RESOLVE_NUMBERS_MAX) {
        const found = await api.resolvePullRequests(
          { repositoryId, numbers: missing.slice(i, i + RESOLVE_NUMBERS_MAX) },
          opts,
        );
        for (const pr of found) {
          if (prs.size >= MAX_PR_IDS) prs.delete(prs.keys().next().value as string);
          prs.set(`${repositoryId}#${pr.number}`, pr.id);
          out.set(pr.number, pr.id);
        }
      }
      return out;
    },
  };
}
