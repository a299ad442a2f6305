/**
 * Which queues are followed: a queue is followed while a channel watches it, a live status message shows
 * it, or it is a channel's or the workspace's default queue. Read from the database, so every replica
 * agrees on the list.
 */
import { parseTarget, resolveTarget, type TargetSpec } from '../core/target.ts';
import type { Db } from '../store/types.ts';
import { type QueueTarget, queueKeyOf } from './types.ts';

export interface FollowedQueue {
  workspaceId: string;
  target: QueueTarget;
}

function spec(text: unknown): TargetSpec | undefined {
  if (typeof text !== 'string' || !text) return undefined;
  const p = parseTarget(text);
  return p.ok ? p.value : undefined;
}

/**
 * Every followed queue, once each. `defaultTarget` (DEFAULT_REPO) counts as the default queue of each
 * workspace that has settings stored.
 */
export async function listFollowedQueues(
  db: Db,
  now: number,
  opts: { defaultTarget?: TargetSpec } = {},
): Promise<FollowedQueue[]> {
  const out = new Map<string, FollowedQueue>();
  const add = (workspaceId: string, target: QueueTarget | undefined) => {
    if (target) out.set(`${workspaceId}|${queueKeyOf(target)}`, { workspaceId, target });
  };
  const fromRows = (r: Record<string, unknown>): QueueTarget => ({
    repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
    branch: String(r['branch']),
  });
  for (const r of await db.query(
    'SELECT DISTINCT workspace_id, repo_host, repo_owner, repo_name, branch FROM watch_channels',
  ))
    add(String(r['workspace_id']), fromRows(r));
  for (const r of await db.query(
    'SELECT DISTINCT workspace_id, repo_host, repo_owner, repo_name, branch FROM watch_live_messages WHERE live_until > $1',
    [now],
  ))
    add(String(r['workspace_id']), fromRows(r));

  const workspaceDefaults = new Map<string, TargetSpec | undefined>();
  for (const r of await db.query('SELECT workspace_id, default_target FROM workspace_settings')) {
    const ws = String(r['workspace_id']);
    workspaceDefaults.set(ws, spec(r['default_target']));
    add(ws, resolveTarget(spec(r['default_target']), opts.defaultTarget));
  }
  for (const r of await db.query('SELECT workspace_id, target FROM channel_defaults')) {
    const ws = String(r['workspace_id']);
    add(ws, resolveTarget(spec(r['target']), workspaceDefaults.get(ws), opts.defaultTarget));
  }
  return [...out.values()];
}
