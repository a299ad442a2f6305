/**
 * The freezer as the app runs it: the freeze domain's Freezer, changing queues through the queue domain's
 * audited change flow with the workspace's background Trunk client, and announcing each FreezeEvent in the
 * window's channel as the bot, through the Slack outbox (paced with every other message to that channel).
 * A refused post is thrown back to the freezer, which logs it; a post still waiting behind a busy channel
 * after ANNOUNCE_WAIT_MS is left to the outbox, so the freezer's tick never waits longer for Slack. A periodic
 * worker (./periodic-worker.ts): ticking every few seconds from start() until stop(deadline).
 */
import { settleBy } from '../core/deadline.ts';
import {
  type CreatorStanding,
  type FreezeEvent,
  Freezer,
  type FreezeWindow,
  queueCallbacks,
} from '../freeze/index.ts';
import type { Logger } from '../observability/log.ts';
import { checkOperator } from '../queue/permissions.ts';
import { changeQueueAs } from '../services/queue.ts';
import { describeTrunkFailure } from '../slack/blocks/errors.ts';
import { renderFreezeEvent } from '../slack/blocks/freeze.ts';
import type { DirectoryCache } from '../slack/directory.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import type { Workspaces } from '../slack/workspace.ts';
import { auditBy } from '../store/audit-retrying.ts';
import type { Store } from '../store/types.ts';
import type { BotStanding } from './bot-standing.ts';
import { type PeriodicWorker, periodicWorker } from './periodic-worker.ts';

export interface FreezerWorkerOptions {
  store: Store;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor' | 'slackFor'>;
  outbox: Pick<SlackOutbox, 'post'>;
  /** Who is an operator now (users.info, user groups), checked at each window's start. */
  directory: DirectoryCache;
  /** Windows act only while the workspace's bot token stands (not after tokens_revoked, until a re-install). */
  botStanding: BotStanding;
  logger: Logger;
  replicaId: string;
  clock: () => number;
  /** Default 5 s: starts and ends land within a few seconds of their time. */
  tickMs?: number;
  /** Default 30 s (the freezer's own). */
  leaseMs?: number;
  /** First retry delay after a failed change; default 5 s (the freezer's own). */
  retryBaseMs?: number;
  /**
   * Told each event just before it is announced. Production passes none; the freeze tests
   * (test/freeze/helpers.ts) read the events here while the announcements take the production path.
   */
  observe?: (event: FreezeEvent) => void;
}

/** Longest a freeze start or end waits for its announcement to be posted. */
const ANNOUNCE_WAIT_MS = 5_000;

export interface FreezerWorker extends PeriodicWorker {
  readonly freezer: Freezer;
}

export function createFreezerWorker(o: FreezerWorkerOptions): FreezerWorker {
  const callbacks = queueCallbacks({
    audit: o.store,
    // The window acts as its creator through the application's audited change flow (audit rows, claims).
    changeState: ({ workspaceId, userId, trunk }, target, desired, reason) => {
      const auditor = { store: o.store, workspaceId, userId, now: o.clock };
      const audit = auditBy.bind(undefined, auditor);
      return changeQueueAs({ trunk, workspaceId, audit, claims: o.store }, target, {
        kind: 'state',
        desired,
        reason,
      });
    },
    trunkFor: async (workspaceId) => (await o.workspaces.backgroundTrunkFor(workspaceId, 'freeze'))?.api,
    describeFailure: describeTrunkFailure,
  });
  // The window acts as its creator: at each start, only while they are still an operator.
  const creatorStanding: CreatorStanding = async (w: FreezeWindow) => {
    const client = await o.workspaces.slackFor(w.workspaceId);
    const directory = o.directory.forWorkspace(w.workspaceId, client);
    const d = await checkOperator({
      directory,
      store: o.store,
      workspaceId: w.workspaceId,
      userId: w.createdBy,
    });
    if (d.allowed) return { kind: 'operator' };
    // Slack could not say (profile or user groups unreadable): not a refusal; the start is retried.
    if (d.because.includes('could not be checked'))
      return {
        kind: 'unknown',
        error: `could not check that <@${w.createdBy}> is still an operator: ${d.because}`,
      };
    return { kind: 'refused', because: d.because };
  };
  const announce = async (event: FreezeEvent) => {
    o.observe?.(event);
    const reply = renderFreezeEvent(event);
    const post = (channel: string) =>
      o.outbox.post({ workspaceId: event.workspaceId, channel }, reply, 'freeze').then((r) => {
        if (!r.ok) throw new Error(`Slack refused the announcement: ${r.code}`);
      });
    const posting = post(event.channelId);
    const posted = await settleBy(posting, Date.now() + ANNOUNCE_WAIT_MS);
    if (posted.kind === 'error') throw posted.error;
    if (posted.kind === 'timeout')
      posting.catch((err: unknown) =>
        o.logger.warn({ err, window: event.window.id }, 'freeze announcement failed'),
      );
    if (event.kind === 'creator_not_operator') await tellOperators(event, (user) => post(user));
  };
  /** A direct message to each listed operator and the installer (admins see it in the channel). */
  const tellOperators = async (event: FreezeEvent, dm: (userId: string) => Promise<unknown>) => {
    const [listed, ws] = await Promise.all([
      o.store.listOperators(event.workspaceId),
      o.store.getWorkspace(event.workspaceId),
    ]);
    const people = new Set(listed.filter((p) => p.kind === 'user').map((p) => p.id));
    if (ws?.installerUserId) people.add(ws.installerUserId);
    people.delete(event.window.createdBy);
    for (const userId of people)
      await dm(userId).catch((err: unknown) =>
        o.logger.warn({ err, window: event.window.id }, 'could not tell an operator about a freeze window'),
      );
  };
  const worker = periodicWorker({
    name: 'freezer',
    every: o.tickMs ?? 5_000,
    pass: () => freezer.tick(),
    onError: (err) => o.logger.error({ err }, 'freeze tick failed'),
    inFlight: () => freezer.inFlight(),
  });
  const freezer = new Freezer({
    db: o.store.db,
    loop: worker.passes,
    leases: o.store.leases,
    ...callbacks,
    creatorStanding,
    acting: o.botStanding,
    announce,
    replicaId: o.replicaId,
    logger: o.logger,
    clock: o.clock,
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    ...(o.retryBaseMs ? { retryBaseMs: o.retryBaseMs } : {}),
  });
  // Stopping gives runs in flight until the deadline; an unfinished one is taken over by another replica.
  return { ...worker, freezer };
}
