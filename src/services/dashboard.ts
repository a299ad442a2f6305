/**
 * The dashboard service: `dashboard [target]` makes a canvas in the channel that keeps the queue's state, its
 * PRs in order and its last 7 days current (src/workers/dashboards.ts edits it); `dashboard off [target]`
 * stops it. As `(actor, request, ports) → DashboardAnswer`.
 *
 * Rights follow the feeds' rule (services/watch.ts, refuseFeedChange): the workspace's own people, never a
 * guest or a person of another organization; in a channel shared with another organization, operators.
 * Every change or refusal is audited. The canvas itself is made through the Slack side's port (`canvases`):
 * the channel's own canvas where it has none yet, else a standalone canvas shared with the channel.
 */
import { formatQueueRef, type TargetSpec } from '../core/target.ts';
import { type Dashboard, DashboardRepository, MAX_DASHBOARDS_PER_CHANNEL } from '../dashboard/index.ts';
import { readQueue } from '../queue/operations.ts';
import { queueKeyOf } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueService } from './queue.ts';
import { type FeedRefusal, refuseFeedChange, type SharedChannels } from './watch.ts';

export type DashboardRequest =
  | { kind: 'create'; channelId: string; target?: TargetSpec }
  | { kind: 'off'; channelId: string; target?: TargetSpec };

/** What making a canvas came to: its id and whether it is the channel's own canvas, or Slack's error code. */
export type CanvasMade = { ok: true; canvasId: string; channelCanvas: boolean } | { ok: false; code: string };

/** The Slack side's canvases (slack/dashboard-canvases.ts). */
export interface DashboardCanvases {
  /** Makes the channel's canvas, or a standalone one shared with the channel when it has one already. */
  create(channelId: string, title: string, markdown: string): Promise<CanvasMade>;
}

export interface DashboardPorts {
  canvases: DashboardCanvases;
  shared?: SharedChannels;
  /** Fills a new dashboard in at once (the dashboards worker), instead of at its next pass. */
  refresh?: (dashboardId: string) => Promise<void>;
}

export type DashboardAnswer =
  | { answer: 'no_target' }
  | { answer: 'not_connected' }
  | FeedRefusal
  | { answer: 'queue_unreadable'; error: unknown }
  | { answer: 'exists'; dashboard: Dashboard }
  | { answer: 'too_many'; max: number }
  /** Slack would not make the canvas (`missing_scope`: the app needs re-authorising for canvases:write). */
  | { answer: 'canvas_refused'; code: string; target: string }
  | { answer: 'created'; dashboard: Dashboard }
  | { answer: 'none'; target: string }
  | { answer: 'stopped'; dashboard: Dashboard };

export interface DashboardService {
  handle(actor: Actor, request: DashboardRequest, ports: DashboardPorts): Promise<DashboardAnswer>;
}

/** What the canvas says until the dashboards worker has drawn the queue (a second or so). */
export const PLACEHOLDER = 'Reading the queue…';

export function createDashboardService(
  deps: Pick<ServiceDeps, 'store' | 'trunk'>,
  queue: QueueService,
): DashboardService {
  const repo = new DashboardRepository(deps.store.db);

  async function create(
    actor: Actor,
    r: Extract<DashboardRequest, { kind: 'create' }>,
    ports: DashboardPorts,
  ): Promise<DashboardAnswer> {
    const workspaceId = actor.workspace.id;
    const [ref, trunk] = await Promise.all([
      queue.resolveRef(actor, r.channelId, r.target),
      deps.trunk.trunkFor(workspaceId),
    ]);
    if (!ref) return { answer: 'no_target' };
    const target = formatQueueRef(ref);
    const refused = await refuseFeedChange(actor, ports.shared, {
      channelId: r.channelId,
      action: 'dashboard',
      target,
      what: `start a dashboard of ${target} in this channel`,
    });
    if (refused) return refused;
    const existing = await repo.get(workspaceId, r.channelId, queueKeyOf(ref));
    if (existing) return { answer: 'exists', dashboard: existing };
    if ((await repo.listChannel(workspaceId, r.channelId)).length >= MAX_DASHBOARDS_PER_CHANNEL)
      return { answer: 'too_many', max: MAX_DASHBOARDS_PER_CHANNEL };
    if (!trunk) return { answer: 'not_connected' };
    try {
      await readQueue({ trunk: trunk.api }, ref);
    } catch (error) {
      return { answer: 'queue_unreadable', error };
    }
    const made = await ports.canvases.create(r.channelId, `Merge queue · ${target}`, PLACEHOLDER);
    if (!made.ok) {
      await actor.audit('dashboard', target, 'refused', { channel: r.channelId, slackError: made.code });
      return { answer: 'canvas_refused', code: made.code, target };
    }
    const dashboard = await repo.insert({
      workspaceId,
      channelId: r.channelId,
      queueKey: queueKeyOf(ref),
      target: ref,
      canvasId: made.canvasId,
      channelCanvas: made.channelCanvas,
      createdBy: actor.userId,
      createdAt: actor.now(),
    });
    // Two people asking at once: the other's dashboard stands (this canvas stays, unedited, as Slack made it).
    if (!dashboard) {
      const winner = await repo.get(workspaceId, r.channelId, queueKeyOf(ref));
      if (winner) return { answer: 'exists', dashboard: winner };
      throw new Error('the dashboard could not be stored');
    }
    await actor.audit('dashboard', target, 'ok', {
      channel: r.channelId,
      canvas: made.canvasId,
      channelCanvas: made.channelCanvas,
    });
    await ports.refresh?.(dashboard.id).catch(() => undefined);
    return { answer: 'created', dashboard };
  }

  async function off(
    actor: Actor,
    r: Extract<DashboardRequest, { kind: 'off' }>,
    ports: DashboardPorts,
  ): Promise<DashboardAnswer> {
    const workspaceId = actor.workspace.id;
    const here = await repo.listChannel(workspaceId, r.channelId);
    // With nothing typed and one dashboard here, that one is meant.
    const only = !r.target && here.length === 1 ? here[0]!.target : undefined;
    const ref = only ?? (await queue.resolveRef(actor, r.channelId, r.target));
    if (!ref) return { answer: 'no_target' };
    const target = formatQueueRef(ref);
    const found = here.find((d) => d.queueKey === queueKeyOf(ref));
    if (!found) return { answer: 'none', target };
    const refused = await refuseFeedChange(actor, ports.shared, {
      channelId: r.channelId,
      action: 'dashboard.off',
      target,
      what: `stop the dashboard of ${target} in this channel`,
    });
    if (refused) return refused;
    await repo.remove(found.id);
    await actor.audit('dashboard.off', target, 'ok', { channel: r.channelId, canvas: found.canvasId });
    return { answer: 'stopped', dashboard: found };
  }

  return {
    handle(actor, request, ports) {
      return request.kind === 'create' ? create(actor, request, ports) : off(actor, request, ports);
    },
  };
}
