/**
 * Dashboards kept current: every pass draws each dashboard's canvas (the queue as the watcher last saw it,
 * its PRs in order, the last 7 days from the queue history, whether it is slow) and edits the canvas when
 * what it would say changed, at most once a minute per canvas (DashboardRepository.claimEdit, across
 * replicas), through the Slack outbox's pacing. A dashboard's queue is followed (watch/followed.ts), so its
 * state costs no Trunk read beyond the watcher's poll; only a queue not polled yet is read once here.
 */
import { createHash } from 'node:crypto';
import { PeriodicPasses } from '../core/periodic-passes.ts';
import { type Dashboard, DashboardRepository } from '../dashboard/index.ts';
import type { Worker } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import {
  type CanvasInput,
  type CanvasPr,
  type CanvasWeek,
  renderDashboardMarkdown,
} from '../slack/blocks/dashboard.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import { SlowStateRepository } from '../watch/index.ts';
import { SnapshotRepository } from '../watch/queue-state.ts';

const WEEK_MS = 7 * 24 * 3_600_000;

export interface DashboardsOptions {
  store: Store;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor'>;
  outbox: Pick<SlackOutbox, 'editCanvas'>;
  /** The last 7 days' figures from the queue history (history/stats.ts's computeQueueStats). */
  week: (workspaceId: string, queueKey: string, from: number, to: number) => Promise<CanvasWeek>;
  now: () => number;
  logger: Logger;
  appUrl?: string;
  /** The organization slug for links when the workspace stored none (TRUNK_ORG_SLUG). */
  orgSlug?: string;
  /** How often every dashboard is looked at; default 20 s. */
  everyMs?: number;
}

export interface DashboardsWorker extends Worker {
  /** Draws one dashboard now (a new one: filled in at once). */
  refresh(dashboardId: string): Promise<void>;
  /** One pass over every dashboard (tests move the clock and call this); answers how many were edited. */
  tick(): Promise<number>;
}

export function createDashboardsWorker(o: DashboardsOptions): DashboardsWorker {
  const logger = o.logger.child({ component: 'dashboards' });
  const repo = new DashboardRepository(o.store.db);
  const snapshots = new SnapshotRepository(o.store);
  const slow = new SlowStateRepository(o.store.db);

  async function queueNow(d: Dashboard): Promise<{ state?: string; prs: CanvasPr[] }> {
    const stored = await snapshots.get(d.workspaceId, d.queueKey);
    if (stored) return { state: stored.snapshot.state, prs: stored.snapshot.prs };
    const trunk = await o.workspaces.backgroundTrunkFor(d.workspaceId, 'watch');
    if (!trunk) return { prs: [] };
    const q = await trunk.api.getQueue({ repo: d.target.repo, targetBranch: d.target.branch });
    return {
      state: String(q.state),
      prs: (q.enqueuedPullRequests ?? []).map((p) => ({
        number: p.prNumber,
        title: p.prTitle,
        author: p.prAuthor,
        ...(p.state !== undefined ? { state: String(p.state) } : {}),
      })),
    };
  }

  async function draw(d: Dashboard): Promise<CanvasInput> {
    const now = o.now();
    const [queue, week, slowState, ws] = await Promise.all([
      queueNow(d),
      o.week(d.workspaceId, d.queueKey, now - WEEK_MS, now),
      slow.get(d.workspaceId, d.queueKey),
      o.store.getWorkspace(d.workspaceId),
    ]);
    const orgSlug = ws?.trunkOrgSlug ?? o.orgSlug;
    return {
      target: d.target,
      ...(queue.state !== undefined ? { state: queue.state } : {}),
      prs: queue.prs,
      week,
      ...(slowState.slow
        ? {
            slow: {
              since: slowState.changedAt ?? now,
              ...(slowState.figures?.recentMedianMs !== undefined
                ? { recentMedianMs: slowState.figures.recentMedianMs }
                : {}),
              ...(slowState.figures?.baselineMedianMs !== undefined
                ? { baselineMedianMs: slowState.figures.baselineMedianMs }
                : {}),
            },
          }
        : {}),
      ...(o.appUrl ? { appUrl: o.appUrl } : {}),
      ...(orgSlug ? { orgSlug } : {}),
    };
  }

  /** Edits the canvas when its content changed and its minute has passed; true when Slack took the edit. */
  async function keepCurrent(d: Dashboard): Promise<boolean> {
    const markdown = renderDashboardMarkdown(await draw(d));
    const hash = createHash('sha256').update(markdown).digest('base64url');
    if (hash === d.lastHash) return false;
    if (!(await repo.claimEdit(d.id, hash, o.now()))) return false;
    const r = await o.outbox.editCanvas(
      { workspaceId: d.workspaceId, channel: d.channelId },
      d.canvasId,
      markdown,
    );
    if (r.ok) return true;
    const log = logger.child({ dashboard: d.id, workspace: d.workspaceId, slackError: r.code });
    if (r.final && (r.refusal === 'message' || r.refusal === 'channel')) {
      // The canvas (or its channel) is gone: nothing more can be kept current there.
      await repo.remove(d.id);
      log.warn('dashboard canvas gone; the dashboard is stopped');
    } else {
      await repo.giveBack(d.id, hash, r.code);
      log.warn('dashboard edit failed; tried again after a minute');
    }
    return false;
  }

  async function pass(): Promise<number> {
    let edited = 0;
    for (const d of await repo.listAll()) {
      try {
        if (await keepCurrent(d)) edited++;
      } catch (err) {
        logger.warn({ err, dashboard: d.id }, 'could not draw a dashboard; trying again next pass');
      }
    }
    return edited;
  }

  const passes = new PeriodicPasses({
    every: o.everyMs ?? 20_000,
    pass: async () => void (await pass()),
    onError: (err) => logger.error({ err }, 'keeping dashboards current failed'),
  });

  return {
    name: 'dashboards',
    start: () => void passes.start(),
    stop: (deadline) => passes.stop(deadline),
    async refresh(id) {
      const d = await repo.byId(id);
      if (d) await keepCurrent(d);
    },
    tick: pass,
  };
}
