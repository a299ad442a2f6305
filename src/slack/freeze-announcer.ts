/**
 * The freezer as the app runs it: the freeze domain's Freezer, changing queues through the queue domain's
 * audited change flow with the workspace's background Trunk client, and announcing each FreezeEvent in the
 * window's channel as the bot. A failed post is thrown back to the freezer, which logs it.
 */
import { type FreezeEvent, Freezer, queueCallbacks } from '../freeze/index.ts';
import type { Logger } from '../observability/log.ts';
import type { Store } from '../store/types.ts';
import { describeTrunkFailure } from './blocks/errors.ts';
import { renderFreezeEvent } from './blocks/freeze.ts';
import type { Workspaces } from './workspace.ts';

export interface FreezerOptions {
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

export function createFreezer(o: FreezerOptions): Freezer {
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
  return new Freezer({
    db: o.store.db,
    ...callbacks,
    announce,
    replicaId: o.replicaId,
    logger: o.logger,
    clock: o.clock,
    ...(o.tickMs ? { tickMs: o.tickMs } : {}),
    ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
  });
}
