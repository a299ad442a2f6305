/**
 * The freezer as the app runs it: the freeze domain's Freezer, changing queues through the queue domain's
 * audited change flow with the workspace's background Trunk client, and announcing each FreezeEvent in the
 * window's channel as the bot (a failed post is thrown back to the freezer, which logs it). A worker:
 * ticking every few seconds from start() until stop(deadline).
 */
import { type FreezeEvent, Freezer, queueCallbacks } from '../freeze/index.ts';
import type { Worker } from '../lifecycle.ts';
import type { Logger } from '../observability/log.ts';
import { describeTrunkFailure } from '../slack/blocks/errors.ts';
import { renderFreezeEvent } from '../slack/blocks/freeze.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';

export interface FreezerWorkerOptions {
  store: Store;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor' | 'slackFor'>;
  logger: Logger;
  replicaId: string;
  clock: () => number;
  /** Default 5 s (the freezer's own). */
  tickMs?: number;
  /** Default 30 s (the freezer's own). */
  leaseMs?: number;
}

export interface FreezerWorker extends Worker {
  readonly freezer: Freezer;
}

export function createFreezerWorker(o: FreezerWorkerOptions): FreezerWorker {
  const callbacks = queueCallbacks({
    store: o.store,
    trunkFor: async (workspaceId) => (await o.workspaces.backgroundTrunkFor(workspaceId, 'freeze'))?.api,
    now: o.clock,
    describeFailure: describeTrunkFailure,
  });
  const announce = async (event: FreezeEvent) => {
    const reply = renderFreezeEvent(event);
    const client = await o.workspaces.slackFor(event.workspaceId);
    await client.chat.postMessage({
      channel: event.channelId,
      text: reply.text,
      ...(reply.blocks ? { blocks: reply.blocks } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
  };
  const freezer = new Freezer({
    db: o.store.db,
    ...callbacks,
    announce,
    replicaId: o.replicaId,
    logger: o.logger,
    clock: o.clock,
    ...(o.tickMs ? { tickMs: o.tickMs } : {}),
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
  });
  return {
    name: 'freezer',
    freezer,
    start: () => freezer.start(),
    // Runs in flight get until the deadline; an unfinished one is taken over by another replica (its lease).
    stop: (deadline) => freezer.stop(deadline),
  };
}
