/**
 * The freezer as the app runs it: the freeze domain's Freezer, changing queues through the queue domain's
 * audited change flow with the workspace's background Trunk client, and announcing each FreezeEvent in the
 * window's channel as the bot, through the Slack outbox (paced with every other message to that channel).
 * A refused post is thrown back to the freezer, which logs it; a post still waiting behind a busy channel
 * after ANNOUNCE_WAIT_MS is left to the outbox, so the freezer's tick never waits longer for Slack.
 */
import { type FreezeEvent, Freezer, queueCallbacks } from '../freeze/index.ts';
import type { Logger } from '../observability/log.ts';
import type { Store } from '../store/types.ts';
import { describeTrunkFailure } from './blocks/errors.ts';
import { renderFreezeEvent } from './blocks/freeze.ts';
import type { SlackOutbox } from './outbox/outbox.ts';
import type { Workspaces } from './workspace.ts';

export interface FreezerOptions {
  store: Store;
  workspaces: Pick<Workspaces, 'backgroundTrunkFor'>;
  outbox: Pick<SlackOutbox, 'post'>;
  logger: Logger;
  replicaId: string;
  clock: () => number;
  /** Default 5 s (the freezer's own). */
  tickMs?: number;
  /** Default 30 s (the freezer's own). */
  leaseMs?: number;
}

/** Longest a freeze start or end waits for its announcement to be posted. */
const ANNOUNCE_WAIT_MS = 5_000;

export function createFreezer(o: FreezerOptions): Freezer {
  const callbacks = queueCallbacks({
    store: o.store,
    trunkFor: async (workspaceId) => (await o.workspaces.backgroundTrunkFor(workspaceId, 'freeze'))?.api,
    now: o.clock,
    describeFailure: describeTrunkFailure,
  });
  const announce = async (event: FreezeEvent) => {
    const reply = renderFreezeEvent(event);
    const posting = o.outbox
      .post({ workspaceId: event.workspaceId, channel: event.channelId }, reply, 'freeze')
      .then((r) => {
        if (!r.ok) throw new Error(`Slack refused the announcement: ${r.code}`);
      });
    let t: NodeJS.Timeout | undefined;
    const waited = new Promise<'late'>((r) => (t = setTimeout(() => r('late'), ANNOUNCE_WAIT_MS)));
    try {
      if ((await Promise.race([posting, waited])) === 'late')
        posting.catch((err: unknown) =>
          o.logger.warn({ err, window: event.window.id }, 'freeze announcement failed'),
        );
    } finally {
      clearTimeout(t);
    }
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
