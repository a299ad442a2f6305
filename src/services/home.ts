/**
 * The home service: everything the app's Home tab shows one person, read now — their PRs in the
 * workspace's queues, the queues (and why each is listed), digests, watches, freeze windows, operators and
 * the Trunk connection. Plain data out; slack/blocks/home.ts renders it and slack/home.ts publishes it.
 *
 * Trunk is asked within a small budget: a few queues read in parallel through the interactive client, each
 * call with a short deadline, so a slow or failing Trunk shows "could not read" for that queue instead of
 * failing the whole view. A person's PRs come from listPullRequests, one listing per queue, never one read
 * per PR.
 */
import { DEFAULT_BRANCH, type QueueRef, sameRepo } from '../core/target.ts';
import { type Subscription, SubscriptionRepository } from '../digest/index.ts';
import { type TestWatch, TestWatchRepository } from '../flaky/index.ts';
import { listWindows, type WindowView } from '../freeze/index.ts';
import { recordEtaShown } from '../history/repository.ts';
import { AutopilotRepository, ResubmissionClaims, WORKSPACE_WIDE } from '../kicks/repository.ts';
import type { EtaAnswer, StoryReader } from '../queue/story-reader.ts';
import type { DbExecutor, LeaseStore, Operator } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import type { EnqueuedPullRequest, Queue } from '../trunk/types.ts';
import {
  listWorkspaceQueues,
  PeopleRepository,
  queueKeyOf,
  type SlowQueue,
  SlowStateRepository,
  type Watch,
  WatchRepository,
  type WorkspaceQueue,
} from '../watch/index.ts';
import { InboxRepository } from '../webhooks/inbox.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import { queueKeyOfRef } from './stats.ts';
import { visibleTo } from './visibility.ts';

/** Deadline of each Trunk call made for the Home (the person is looking at a loading tab). */
export const HOME_TRUNK_DEADLINE_MS = 2_000;
/** Queues read from Trunk per Home: the rest are listed unread, so one Home costs a bounded number of calls. */
export const HOME_MAX_READS = 10;
/** Pages of listPullRequests read per queue for the person's PRs (100 PRs a page). */
const PR_PAGES = 2;
/** Concluded PRs (merged, failed, cancelled) stay on the Home this long. */
const RECENT_MS = 24 * 3_600_000;
const CONCLUDED = new Set(['merged', 'failed', 'cancelled']);

/** A queue as the Home read it: its state, or the error Trunk answered. */
export type HomeQueueRead = { ok: true; queue: Queue } | { ok: false; error: unknown };

export interface HomeQueueData {
  ref: QueueRef;
  /** Why it is listed: `workspace default`, `watch`, `digest`… */
  sources: string[];
  channels: string[];
  /** Absent when the Home did not read it (past its budget of Trunk reads, or Trunk is not connected). */
  reading?: HomeQueueRead;
  /** Set while the queue is slow (watch/slow.ts): since when, and the figures that said so. */
  slow?: SlowMark;
}

export interface SlowMark {
  since: number;
  recentMedianMs?: number;
  baselineMedianMs?: number;
}

export interface HomePrData {
  ref: QueueRef;
  pr: EnqueuedPullRequest;
  /** 1-based place in the queue, with the number of PRs in it; absent once the PR left the queue. */
  position?: { at: number; of: number };
  /** When it should merge and what it waits behind (Trunk v2), for the first few queued PRs. */
  eta?: Extract<EtaAnswer, { kind: 'eta' }>;
}

export interface HomeAutopilot {
  enabled: boolean;
  classes: string[];
  /** Queues whose own setting turns it on. */
  queuesOn: number;
  /** Re-submissions of the last 24 h, newest first (at most 5). */
  recent: Array<{ queueKey: string; prNumber: number; kickClass: string; status: string; at: number }>;
}

export interface HomeData {
  userId: string;
  renderedAt: number;
  /** The person may change queues and connect Trunk. */
  operator: boolean;
  trunk: { connected: boolean; orgSlug?: string };
  /** Whether the workspace reads Trunk v2 (why, eta, reasons in notes) and where its key comes from. */
  v2: { has: false } | { has: true; source: 'connect' | 'environment' };
  /** False when secrets cannot be stored here (no ENCRYPTION_KEY), so Connect cannot work from Slack. */
  canConnect: boolean;
  /** Trunk's webhooks: when the workspace's latest delivery arrived (epoch ms), if one is remembered. */
  webhooks: { lastDeliveryAt?: number };
  /** The autopilot (issue 29): the workspace's setting, queues with their own, its last day's re-submissions. */
  autopilot?: HomeAutopilot;
  /** The person's GitHub login, when linked. */
  login?: string;
  prs: HomePrData[];
  /** Queues whose PR list could not be read (their state could), with Trunk's error. */
  prProblems: Array<{ ref: QueueRef; error: unknown }>;
  queues: HomeQueueData[];
  digests: Subscription[];
  watches: Watch[];
  /** Flaky-test feeds (`tests watch`) of channels the person can see. */
  testWatches?: TestWatch[];
  freezes: WindowView[];
  operators: Operator[];
  installerUserId?: string;
}

export interface HomeService {
  /** What the actor's Home shows now. */
  gather(actor: Actor): Promise<HomeData>;
}

export function createHomeService(deps: Pick<ServiceDeps, 'store' | 'trunk' | 'defaults'>): HomeService {
  return {
    async gather(actor) {
      const workspaceId = actor.workspace.id;
      const now = actor.now();
      const db = deps.store.db;
      const defaults = deps.defaults();
      const defaultTarget = defaults.defaultTarget ? { defaultTarget: defaults.defaultTarget } : {};
      const [
        ws,
        operators,
        decision,
        trunk,
        link,
        allQueues,
        allDigests,
        allWatches,
        allFreezes,
        allTestWatches,
        lastDelivery,
      ] = await Promise.all([
        deps.store.getWorkspace(workspaceId),
        deps.store.listOperators(workspaceId),
        actor.operator(),
        // The Home only shows: its reads come through the process's short cache (the watcher's last poll,
        // or a read of the last seconds), so twenty people opening it cost one read per queue.
        deps.trunk.readsFor(workspaceId),
        new PeopleRepository(db).get(workspaceId, actor.userId),
        listWorkspaceQueues(db, workspaceId, now, defaultTarget),
        new SubscriptionRepository(db).list(workspaceId),
        new WatchRepository(db).listWorkspace(workspaceId),
        listWindows(db, workspaceId, now),
        new TestWatchRepository(db).listWorkspace(workspaceId),
        new InboxRepository(db).lastReceived(workspaceId),
      ]);
      const slowNow = new Map(
        (await new SlowStateRepository(db).slowQueues(workspaceId)).map((s) => [s.queueKey, s]),
      );
      // Only what belongs to channels the person can see, by the rule `digest list` uses (a guest: their own).
      const [digests, watches, freezes, queues, testWatches] = await Promise.all([
        visibleTo(actor, allDigests, (d) => d.channelId),
        visibleTo(actor, allWatches, (w) => w.channelId),
        visibleTo(actor, allFreezes, (v) => v.window.channelId),
        visibleQueues(actor, allQueues),
        visibleTo(actor, allTestWatches, (w) => w.channelId),
      ]);
      // A digest's repository is a queue of this workspace too; its branch is the one a default names, else main.
      for (const d of digests) {
        const known = queues.find((q) => sameRepo(q.ref.repo, d.repo));
        if (known) {
          if (!known.sources.includes('digest')) known.sources.push('digest');
          continue;
        }
        queues.push({
          ref: { repo: d.repo, branch: DEFAULT_BRANCH },
          sources: ['digest'],
          channels: [d.channelId],
        });
      }

      const login = link?.githubLogin;
      const readings = await Promise.all(
        queues.map((q, i) =>
          i < HOME_MAX_READS && trunk
            ? readQueueFor(trunk.api, q.ref, login, now)
            : Promise.resolve(undefined),
        ),
      );
      const orgSlug = trunk?.orgSlug ?? ws?.trunkOrgSlug;
      const prs = readings.flatMap((r) => r?.prs ?? []);
      const v2 = trunk ? await deps.trunk.v2For(workspaceId, 'view').catch(() => undefined) : undefined;
      if (v2) await addEtas(v2.reader, prs);
      await keepEtasShown(db, workspaceId, now, prs);
      return {
        userId: actor.userId,
        renderedAt: now,
        operator: decision.allowed,
        trunk: { connected: trunk !== undefined, ...(orgSlug ? { orgSlug } : {}) },
        v2: v2 ? { has: true, source: v2.source } : { has: false },
        canConnect: defaults.canStoreSecrets,
        webhooks: lastDelivery === undefined ? {} : { lastDeliveryAt: lastDelivery },
        autopilot: await autopilotOf(deps.store, workspaceId, now),
        ...(login ? { login } : {}),
        prs,
        // A queue that could not be read at all says so itself; only a listing that failed alone is named here.
        prProblems: readings.flatMap((r, i) =>
          r && 'prError' in r && r.reading.ok && queues[i] ? [{ ref: queues[i].ref, error: r.prError }] : [],
        ),
        queues: queues.map((q, i) => {
          const r = readings[i];
          const slow = slowMark(slowNow.get(queueKeyOf(q.ref)));
          return { ...q, ...(r ? { reading: r.reading } : {}), ...(slow ? { slow } : {}) };
        }),
        digests,
        watches,
        testWatches,
        freezes,
        operators,
        ...(ws?.installerUserId ? { installerUserId: ws.installerUserId } : {}),
      };
    },
  };
}

function slowMark(s: SlowQueue | undefined): SlowMark | undefined {
  if (!s) return undefined;
  const mark: SlowMark = { since: s.since };
  if (s.figures?.recentMedianMs !== undefined) mark.recentMedianMs = s.figures.recentMedianMs;
  if (s.figures?.baselineMedianMs !== undefined) mark.baselineMedianMs = s.figures.baselineMedianMs;
  return mark;
}

/**
 * The workspace's queues with only the reasons the actor may see: a channel's default, watch or live
 * message counts only if they can see the channel; a queue left with no reason is not listed.
 */
async function visibleQueues(actor: Actor, queues: WorkspaceQueue[]): Promise<HomeQueueData[]> {
  const out: HomeQueueData[] = [];
  for (const q of queues) {
    const seen = await Promise.all(q.via.map((v) => (v.channel ? actor.canSee(v.channel) : true)));
    const via = q.via.filter((_, i) => seen[i]);
    if (via.length === 0) continue;
    const sources: string[] = [];
    const channels: string[] = [];
    for (const v of via) {
      if (!sources.includes(v.source)) sources.push(v.source);
      if (v.channel && !channels.includes(v.channel)) channels.push(v.channel);
    }
    out.push({ ref: q.target, sources, channels });
  }
  return out;
}

interface QueueRead {
  reading: HomeQueueRead;
  prs: HomePrData[];
  prError?: unknown;
}

/** One queue: its state (getQueue) and, for a linked person, their PRs in it (listPullRequests). */
async function readQueueFor(
  api: TrunkApi,
  ref: QueueRef,
  login: string | undefined,
  now: number,
): Promise<QueueRead> {
  const address = { repo: ref.repo, targetBranch: ref.branch };
  const [state, listing] = await Promise.allSettled([
    api.getQueue(address, { deadlineMs: HOME_TRUNK_DEADLINE_MS }),
    login ? listAuthorPrs(api, ref, login, now) : Promise.resolve(undefined),
  ]);
  const reading: HomeQueueRead =
    state.status === 'fulfilled' ? { ok: true, queue: state.value } : { ok: false, error: state.reason };
  if (listing.status === 'rejected') return { reading, prs: [], prError: listing.reason };
  if (!listing.value) return { reading, prs: [] };
  // The queue's own order (getQueue) places a PR; without it, the listing's order of open PRs does.
  const order =
    reading.ok && reading.queue.enqueuedPullRequests
      ? reading.queue.enqueuedPullRequests.map((p) => p.prNumber)
      : listing.value.openOrder;
  const prs = listing.value.mine.map((pr): HomePrData => {
    const at = order.indexOf(pr.prNumber);
    return at >= 0 ? { ref, pr, position: { at: at + 1, of: order.length } } : { ref, pr };
  });
  return { reading, prs };
}

/** The person's PRs in a queue (open, or concluded in the last day), and the order of its open PRs. */
async function listAuthorPrs(
  api: TrunkApi,
  ref: QueueRef,
  login: string,
  now: number,
): Promise<{ mine: EnqueuedPullRequest[]; openOrder: number[] }> {
  const mine: EnqueuedPullRequest[] = [];
  const openOrder: number[] = [];
  const lc = login.toLowerCase();
  const pages = api.pullRequestPages(
    { repo: ref.repo, targetBranch: ref.branch },
    {
      pageSize: 100,
      // One more than is read, so the iteration never stops with its own "too many pages" error.
      maxPages: PR_PAGES + 1,
      deadlineMs: HOME_TRUNK_DEADLINE_MS,
      signal: AbortSignal.timeout(HOME_TRUNK_DEADLINE_MS),
    },
  );
  let read = 0;
  for await (const page of pages) {
    for (const pr of page.pullRequests) {
      const state = String(pr.state ?? '').toLowerCase();
      const open = !CONCLUDED.has(state);
      if (open) openOrder.push(pr.prNumber);
      if (String(pr.prAuthor ?? '').toLowerCase() !== lc) continue;
      const changed = Date.parse(pr.stateChangedAt);
      if (open || (Number.isFinite(changed) && now - changed < RECENT_MS)) mine.push(pr);
    }
    // A longer queue is cut here: the Home shows what these pages hold.
    if (++read >= PR_PAGES) break;
  }
  return { mine, openOrder };
}

/** ETA truth: the Home's estimates are kept like `eta`'s (history/); a store error only leaves them out. */
async function keepEtasShown(
  db: DbExecutor,
  workspaceId: string,
  now: number,
  prs: HomePrData[],
): Promise<void> {
  for (const p of prs) {
    const e = p.eta?.estimate;
    const at = e?.estimatedAt ? Date.parse(e.estimatedAt) : Number.NaN;
    if (e?.status !== 'available' || e.kind === 'pendingFailureResolution' || !Number.isFinite(at)) continue;
    await recordEtaShown(db, {
      workspaceId,
      queueKey: queueKeyOfRef(p.ref),
      prNumber: p.pr.prNumber,
      shownAt: now,
      estimatedAt: at,
      source: 'trunk',
      surface: 'home',
    }).catch(() => false);
  }
}

/** ETAs cost a PR read each at Trunk (5 a second per key): the Home asks for its first few queued PRs only. */
export const HOME_MAX_ETAS = 3;
const HOME_ETA_DEADLINE_MS = 2_500;

/** Adds an ETA to the first few PRs still in their queue; one that cannot be read is simply left without. */
async function addEtas(reader: StoryReader, prs: HomePrData[]): Promise<void> {
  const queued = prs.filter((p) => p.position !== undefined).slice(0, HOME_MAX_ETAS);
  await Promise.all(
    queued.map(async (p) => {
      try {
        const answer = await reader.eta({ repo: p.ref.repo, targetBranch: p.ref.branch }, p.pr.prNumber, {
          deadlineMs: HOME_ETA_DEADLINE_MS,
        });
        if (answer.kind === 'eta') p.eta = answer;
      } catch {
        // The Home shows the PR without its ETA; `/mergequeue eta` tells the person why.
      }
    }),
  );
}

/** What the Home says of the autopilot; undefined when it is off everywhere and never acted. */
async function autopilotOf(
  store: LeaseStore,
  workspaceId: string,
  now: number,
): Promise<HomeAutopilot | undefined> {
  const settings = new AutopilotRepository(store.db);
  const ws = await settings.effective(workspaceId, WORKSPACE_WIDE);
  const queuesOn = (await settings.list(workspaceId)).filter(
    (r) => r.queueKey !== WORKSPACE_WIDE && r.enabled === true,
  ).length;
  const recent = (await new ResubmissionClaims(store).list(workspaceId, undefined, now - 86_400_000, 5)).map(
    (r) => ({
      queueKey: r.queueKey,
      prNumber: r.prNumber,
      kickClass: r.kickClass,
      status: r.status,
      at: r.createdAt,
    }),
  );
  if (!ws.enabled && queuesOn === 0 && recent.length === 0) return undefined;
  return { enabled: ws.enabled, classes: ws.classes, queuesOn, recent };
}
