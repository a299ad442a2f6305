/**
 * The queue-addressing seam: how a queue (repository + target branch) is named in a request body.
 * v1 puts `repo` and `targetBranch` in every body; a v2 client could map the same address differently
 * (for example to a queue id) without touching callers.
 */
import type { QueueAddress, Repo } from './types.ts';

export type QueueAddressing = (address: QueueAddress) => Record<string, unknown>;

/** Trunk API v1: `{ repo: { host, owner, name }, targetBranch }`. */
export const v1QueueAddressing: QueueAddressing = (address) => ({
  repo: repoBody(address.repo),
  targetBranch: address.targetBranch,
});

/** Only the three fields of the contract, so nothing else a caller's object carries goes on the wire. */
export function repoBody(repo: Repo): Repo {
  return { host: repo.host, owner: repo.owner, name: repo.name };
}
