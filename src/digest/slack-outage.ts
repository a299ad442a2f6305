/**
 * What a digest does when Slack refuses a message. Most failures pass (5xx, network errors, timeouts,
 * rate limits beyond the outbox's patience): the occurrence is retried with backoff inside the grace
 * period and resumes its thread where it stopped. A final refusal (the outbox's one list,
 * src/slack/outbox/final-errors.ts) means nobody can post there until a person acts: the occurrence ends
 * at once, and the digest's creator is told why and what to do.
 */
import type { Notifier } from '../core/notifier.ts';
import type { Logger } from '../observability/log.ts';
import type { Subscription } from './types.ts';

/** Attempts of one occurrence in all (the first run, retries and takeovers of a crashed replica). */
export const MAX_DIGEST_ATTEMPTS = 10;

/** Wait before retry n (1-based): 1, 2, 4, 8 then 15 minutes. The scheduler ticks every minute. */
export function retryDelayMs(attempt: number): number {
  return Math.min(15, 2 ** Math.max(0, attempt - 1)) * 60_000;
}

/**
 * A direct message to the digest's creator (a post to a user id lands in their DM with the app), in the
 * words the Slack side wrote (renderCreatorNotice). Best effort: with a revoked token it cannot arrive
 * either, and the log says so.
 */
export async function tellCreator(
  notifier: Notifier,
  sub: Pick<Subscription, 'id' | 'workspaceId' | 'channelId' | 'createdBy'>,
  code: string,
  text: string,
  logger: Logger,
): Promise<void> {
  const r = await notifier.post({ workspaceId: sub.workspaceId, channel: sub.createdBy }, { text }, 'notice');
  if (!r.ok)
    logger.warn({ digest: sub.id, slackError: code, dmError: r.code }, 'could not tell the digest creator');
}
