/**
 * Which queues are followed: a queue is followed while a channel watches it, a live status message shows
 * it, a Workflow Builder step waits for one of its PRs (waits.ts), a channel's dashboard shows it, or it is a
 * channel's or the workspace's default queue. Read from the database, so every replica
 * agrees on the list.
 */
import { parseTarget, resolveTarget, type TargetSpec } from '../core/target.ts';
import type { Db, LeaseStore } from '../store/types.ts';
import { type QueueTarget, queueKeyOf } from './types.ts';
import { StepWaitRepository } from './waits.ts';

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
 * Every followed queue, once each. `defaultTarget` (DEFAULT_REPO) counts as the default queue of every
 * workspace the app knows: one with settings stored, an installation, or one where someone linked their
 * GitHub login (in single-workspace mode with DEFAULT_REPO alone, nothing else names the workspace, and its
 * linked authors must still hear that their PR failed).
 */
export async function listFollowedQueues(
  store: LeaseStore,
  now: number,
  opts: { defaultTarget?: TargetSpec } = {},
): Promise<FollowedQueue[]> {
  const { db } = store;
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

  for (const w of await new StepWaitRepository(store).followedQueues()) add(w.workspaceId, w.target);
  // A dashboard's canvas is drawn from the watcher's snapshot of its queue.
  for (const r of await db.query(
    'SELECT DISTINCT workspace_id, repo_host, repo_owner, repo_name, branch FROM dashboards',
  ))
    add(String(r['workspace_id']), fromRows(r));

  const workspaceDefaults = new Map<string, TargetSpec | undefined>();
  for (const r of await db.query('SELECT workspace_id, default_target FROM workspace_settings')) {
    const ws = String(r['workspace_id']);
    workspaceDefaults.set(ws, spec(r['default_target']));
    add(ws, resolveTarget(spec(r['default_target']), opts.defaultTarget));
  }
  if (opts.defaultTarget) {
    const known = await db.query(
      'SELECT workspace_id FROM watch_people UNION SELECT workspace_id FROM slack_installations',
    );
    for (const r of known) {
      const ws = String(r['workspace_id']);
      if (!workspaceDefaults.has(ws)) add(ws, resolveTarget(undefined, opts.defaultTarget));
    }
  }
  for (const r of await db.query('SELECT workspace_id, target FROM channel_defaults')) {
    const ws = String(r['workspace_id']);
    add(ws, resolveTarget(spec(r['target']), workspaceDefaults.get(ws), opts.defaultTarget));
  }
  return [...out.values()];
}

/** Why a queue belongs to a workspace's list (the Home tab names it). */
export type QueueSource = 'workspace default' | 'channel default' | 'watch' | 'live status';

export interface WorkspaceQueue {
  target: QueueTarget;
  /** Each reason once, in the order above. */
  sources: QueueSource[];
  /** Channels whose default, watch or live status message names it. */
  channels: string[];
  /** Each reason with its channel (none for the workspace default), so a reader can keep only what they may see. */
  via: Array<{ source: QueueSource; channel?: string }>;
}

/**
 * One workspace's queues: its default (or `defaultTarget`), its channels' defaults, the queues its channels
 * watch and those its live status messages show. Ordered with the workspace default first, then by name.
 */
export async function listWorkspaceQueues(
  db: Db,
  workspaceId: string,
  now: number,
  opts: { defaultTarget?: TargetSpec } = {},
): Promise<WorkspaceQueue[]> {
  const out = new Map<string, WorkspaceQueue>();
  const add = (target: QueueTarget | undefined, source: QueueSource, channel?: string) => {
    if (!target) return;
    const key = queueKeyOf(target);
    const q = out.get(key) ?? { target, sources: [], channels: [], via: [] };
    if (!q.via.some((v) => v.source === source && v.channel === channel))
      q.via.push(channel ? { source, channel } : { source });
    if (!q.sources.includes(source)) q.sources.push(source);
    if (channel && !q.channels.includes(channel)) q.channels.push(channel);
    out.set(key, q);
  };
  const fromRow = (r: Record<string, unknown>): QueueTarget => ({
    repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
    branch: String(r['branch']),
  });
  const [settings, channelDefaults, watches, live] = await Promise.all([
    db.query('SELECT default_target FROM workspace_settings WHERE workspace_id = $1', [workspaceId]),
    db.query('SELECT channel_id, target FROM channel_defaults WHERE workspace_id = $1', [workspaceId]),
    db.query(
      'SELECT channel_id, repo_host, repo_owner, repo_name, branch FROM watch_channels WHERE workspace_id = $1',
      [workspaceId],
    ),
    db.query(
      'SELECT channel_id, repo_host, repo_owner, repo_name, branch FROM watch_live_messages WHERE workspace_id = $1 AND live_until > $2',
      [workspaceId, now],
    ),
  ]);
  const workspaceDefault = spec(settings[0]?.['default_target']);
  add(resolveTarget(workspaceDefault, opts.defaultTarget), 'workspace default');
  for (const r of channelDefaults)
    add(
      resolveTarget(spec(r['target']), workspaceDefault, opts.defaultTarget),
      'channel default',
      String(r['channel_id']),
    );
  for (const r of watches) add(fromRow(r), 'watch', String(r['channel_id']));
  for (const r of live) add(fromRow(r), 'live status', String(r['channel_id']));
  const [first, ...rest] = [...out.values()];
  if (!first) return [];
  const byName = (a: WorkspaceQueue, b: WorkspaceQueue) =>
    queueKeyOf(a.target).localeCompare(queueKeyOf(b.target));
  return first.sources.includes('workspace default')
    ? [first, ...rest.sort(byName)]
    : [first, ...rest].sort(byName);
}
