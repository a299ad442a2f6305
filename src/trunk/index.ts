/** The Trunk client's public surface, for callers that prefer one import. */
export { type QueueAddressing, v1QueueAddressing } from './addressing.ts';
export {
  closeSharedTrunkAgent,
  createTrunkAgent,
  sharedTrunkAgent,
  type TrunkAgentOptions,
} from './agent.ts';
export type { CallOptions, PaginateOptions, TrunkApi, TrunkOperation } from './api.ts';
export { apiTokenAuth, type TrunkAuth } from './auth.ts';
export {
  type AttemptEvent,
  createTrunkClient,
  DEFAULT_DEADLINE_MS,
  type TrunkClientOptions,
} from './client.ts';
export * from './errors.ts';
export { DEFAULT_MAX_PAGES, DEFAULT_PAGE_SIZE } from './pagination.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.ts';
export * from './types.ts';
