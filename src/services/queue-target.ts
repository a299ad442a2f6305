/**
 * Which queue a request means, as every command resolves it: the target typed, then the channel's default,
 * the workspace's default, then DEFAULT_REPO. Used by the services that take an optional target.
 */
import { type QueueRef, resolveTarget, type TargetSpec } from '../core/target.ts';
import type { Store } from '../store/types.ts';

export interface QueueTargetEnv {
  store: Pick<Store, 'getChannelDefault' | 'getWorkspace'>;
  /** DEFAULT_REPO. */
  config: { defaultTarget?: TargetSpec | undefined };
}

export async function resolveQueue(
  env: QueueTargetEnv,
  workspaceId: string,
  channelId: string | undefined,
  typed: TargetSpec | undefined,
): Promise<QueueRef | undefined> {
  if (typed?.repo && typed.branch !== undefined) return resolveTarget(typed);
  const [channelDefault, ws] = await Promise.all([
    channelId ? env.store.getChannelDefault(workspaceId, channelId) : Promise.resolve(undefined),
    env.store.getWorkspace(workspaceId),
  ]);
  return resolveTarget(typed, channelDefault, ws?.defaultTarget, env.config.defaultTarget);
}
