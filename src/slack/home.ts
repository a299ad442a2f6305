/**
 * The Home tab's data, gathered fresh each time it is built, and its publication (views.publish for one
 * person). Trunk is asked within a small budget: a few queues read in parallel through the process's read
 * cache (workspaces.readsFor: the watcher's last poll, or a read of the last seconds), each call with a short deadline, so a slow or failing Trunk shows "could not read" for that
 * queue instead of failing the whole view. A person's PRs come from listPullRequests, one listing per
 * queue, never one read per PR.
 *
 * Clicks on the Home (its queue buttons, Connect) have no message to redraw and no response_url: a home
 * session collects what the click would have answered and re-publishes the Home with it on top.
 */
import type { BlockAction, RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { DEFAULT_BRANCH, type QueueRef, sameRepo } from '../core/target.ts';
import { SubscriptionRepository } from '../digest/index.ts';
import { listWindows } from '../freeze/index.ts';
import type { EnqueuedPullRequest } from '../trunk/types.ts';
import { listWorkspaceQueues, PeopleRepository, WatchRepository } from '../watch/index.ts';
import { readConfig } from '../workspace/config.ts';
import { describeTrunkFailure } from './blocks/errors.ts';
import { type HomeInput, type HomePr, type HomeQueue, type QueueReading, renderHome } from './blocks/home.ts';
import type { SlackDeps } from './deps.ts';
import { errorCode, mayOperate } from './interaction.ts';
import type { SlackReply } from './reply.ts';
import type { WorkspaceTrunk } from './workspace.ts';

/** Deadline of each Trunk call made for the Home (the person is looking at a loading tab). */
export const HOME_TRUNK_DEADLINE_MS = 2_000;
/** Queues read from Trunk per Home: the rest are listed unread, so one Home costs a bounded number of calls. */
export const HOME_MAX_READS = 10;
/** Pages of listPullRequests read per queue for the person's PRs (100 PRs a page). */
const PR_PAGES = 2;
/** Concluded PRs (merged, failed, cancelled) stay on the Home this long. */
const RECENT_MS = 24 * 3_600_000;
const CONCLUDED = new Set(['merged', 'failed', 'cancelled']);

/** Everything the Home shows, read for one person now. */
export async function gatherHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): Promise<HomeInput> {
  const now = deps.now();
  const db = deps.store.db;
  const ctx = { store: deps.store, workspaceId, userId, now: deps.now };
  const defaultTarget = deps.config.defaultTarget ? { defaultTarget: deps.config.defaultTarget } : {};
  const [config, decision, trunk, link, listed, digests, watches, freezes] = await Promise.all([
    readConfig(ctx, undefined),
    mayOperate(deps, client, workspaceId, userId),
    deps.workspaces.readsFor(workspaceId),
    new PeopleRepository(db).get(workspaceId, userId),
    listWorkspaceQueues(db, workspaceId, now, defaultTarget),
    new SubscriptionRepository(db).list(workspaceId),
    new WatchRepository(db).listWorkspace(workspaceId),
    listWindows(db, workspaceId, now),
  ]);
  const queues: HomeQueue[] = listed.map((q) => ({
    ref: q.target,
    sources: [...q.sources],
    channels: q.channels,
  }));
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
      i < HOME_MAX_READS && trunk ? readQueueFor(trunk, q.ref, login, now) : Promise.resolve(undefined),
    ),
  );
  const input: HomeInput = {
    userId,
    renderedAt: now,
    operator: decision.allowed,
    trunk: {
      connected: trunk !== undefined,
      ...((trunk?.orgSlug ?? config.trunkOrgSlug) ? { orgSlug: trunk?.orgSlug ?? config.trunkOrgSlug } : {}),
    },
    ...(deps.config.encryptionKeys.length === 0
      ? { connectBlocked: 'Connecting from Slack needs ENCRYPTION_KEY set where the app runs.' }
      : {}),
    ...(deps.config.trunk.appUrl ? { appUrl: deps.config.trunk.appUrl } : {}),
    ...(login ? { login } : {}),
    prs: readings.flatMap((r) => r?.prs ?? []),
    // A queue that could not be read at all says so itself; only a listing that failed alone is named here.
    prProblems: readings.flatMap((r, i) =>
      r?.prProblem && r.reading.ok && queues[i] ? [{ ref: queues[i].ref, problem: r.prProblem }] : [],
    ),
    queues: queues.map((q, i) => {
      const r = readings[i];
      return r ? { ...q, reading: r.reading } : q;
    }),
    digests,
    watches,
    freezes,
    operators: config.operators,
    ...(config.installerUserId ? { installerUserId: config.installerUserId } : {}),
  };
  return input;
}

interface QueueRead {
  reading: QueueReading;
  prs: HomePr[];
  prProblem?: string;
}

/** One queue: its state (getQueue) and, for a linked person, their PRs in it (listPullRequests). */
async function readQueueFor(
  trunk: WorkspaceTrunk,
  ref: QueueRef,
  login: string | undefined,
  now: number,
): Promise<QueueRead> {
  const address = { repo: ref.repo, targetBranch: ref.branch };
  const [state, listing] = await Promise.allSettled([
    trunk.api.getQueue(address, { deadlineMs: HOME_TRUNK_DEADLINE_MS }),
    login ? listAuthorPrs(trunk, ref, login, now) : Promise.resolve(undefined),
  ]);
  const reading: QueueReading =
    state.status === 'fulfilled'
      ? { ok: true, queue: state.value }
      : { ok: false, problem: describeTrunkFailure(state.reason) };
  if (listing.status === 'rejected')
    return { reading, prs: [], prProblem: describeTrunkFailure(listing.reason) };
  if (!listing.value) return { reading, prs: [] };
  // The queue's own order (getQueue) places a PR; without it, the listing's order of open PRs does.
  const order =
    reading.ok && reading.queue.enqueuedPullRequests
      ? reading.queue.enqueuedPullRequests.map((p) => p.prNumber)
      : listing.value.openOrder;
  const prs = listing.value.mine.map((pr): HomePr => {
    const at = order.indexOf(pr.prNumber);
    return at >= 0 ? { ref, pr, position: { at: at + 1, of: order.length } } : { ref, pr };
  });
  return { reading, prs };
}

/** The person's PRs in a queue (open, or concluded in the last day), and the order of its open PRs. */
async function listAuthorPrs(
  trunk: WorkspaceTrunk,
  ref: QueueRef,
  login: string,
  now: number,
): Promise<{ mine: EnqueuedPullRequest[]; openOrder: number[] }> {
  const mine: EnqueuedPullRequest[] = [];
  const openOrder: number[] = [];
  const lc = login.toLowerCase();
  const pages = trunk.api.pullRequestPages(
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

/** Builds the Home for a person and publishes it; false (logged) when Slack refused it. */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
  notices: SlackReply[] = [],
): Promise<boolean> {
  const input = await gatherHome(deps, client, workspaceId, userId);
  const view = renderHome({ ...input, notices });
  try {
    await client.views.publish({ user_id: userId, view });
    return true;
  } catch (err) {
    deps.metrics.slackApiErrors.inc({ method: 'views.publish', error: errorCode(err) });
    deps.logger.warn({ err }, 'could not publish the Home tab');
    return false;
  }
}

/** Whether a click came from a Home tab (no channel, no message, no response_url). */
export function isHomeClick(body: Pick<BlockAction, 'view'>): boolean {
  return body.view?.type === 'home';
}

/** What a click on the Home answers: collected, then shown on the Home when it is published again. */
export interface HomeSession {
  /** Stands in for response_url: replies become notices; a redraw (replace_original) asks for a re-publish. */
  respond: RespondFn;
  /** Re-publishes the Home when the click said or changed something (opening a modal alone does neither). */
  finish(): Promise<void>;
}

export function homeSession(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
): HomeSession {
  const notices: SlackReply[] = [];
  let redrawn = false;
  // Called the way sendReply and updateMessage call a response_url: text, blocks, replace_original.
  const respond = (async (msg: string | (SlackReply & { replace_original?: boolean })) => {
    const m = typeof msg === 'string' ? { text: msg } : msg;
    if (m.replace_original) {
      redrawn = true;
      return;
    }
    notices.push({ text: m.text, ...(m.blocks ? { blocks: m.blocks } : {}) });
  }) as unknown as RespondFn;
  return {
    respond,
    async finish() {
      if (notices.length === 0 && !redrawn) return;
      await publishHome(deps, client, workspaceId, userId, notices);
    },
  };
}
