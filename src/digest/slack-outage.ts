/**
 * What a digest does when Slack refuses a message. Most failures pass (5xx, network errors, timeouts,
 * rate limits beyond the pacer's patience): the occurrence is retried with backoff inside the grace
 * period and resumes its thread where it stopped. A few mean nobody can post there until a person acts:
 * those end the occurrence at once, and the digest's creator is told why and what to do.
 */
import type { Logger } from '../observability/log.ts';
import type { SlackPoster, Subscription } from './types.ts';

/** Slack errors a retry will not fix. */
export const FINAL_SLACK_ERRORS: ReadonlySet<string> = new Set([
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'invalid_auth',
  'token_revoked',
  'account_inactive',
  'not_authed',
  'no_installation',
  'missing_scope',
]);

export function isFinalSlackError(code: string): boolean {
  return FINAL_SLACK_ERRORS.has(code);
}

/** Attempts of one occurrence in all (the first run, retries and takeovers of a crashed replica). */
export const MAX_DIGEST_ATTEMPTS = 10;

/** Wait before retry n (1-based): 1, 2, 4, 8 then 15 minutes. The scheduler ticks every minute. */
export function retryDelayMs(attempt: number): number {
  return Math.min(15, 2 ** Math.max(0, attempt - 1)) * 60_000;
}

/**
 * A direct message to the digest's creator (chat.postMessage to a user id lands in their DM with the app),
 * in the words the Slack side wrote (renderCreatorNotice).
 * Best effort: with a revoked token it cannot arrive either, and the log says so.
 */
export async function tellCreator(
  slack: SlackPoster | undefined,
  sub: Pick<Subscription, 'id' | 'channelId' | 'createdBy'>,
  code: string,
  text: string,
  logger: Logger,
): Promise<void> {
  try {
    if (!slack) throw new Error('no Slack client for this workspace');
    await slack.chat.postMessage({ channel: sub.createdBy, text, unfurl_links: false, unfurl_media: false });
  } catch (err) {
    logger.warn({ err, digest: sub.id, slackError: code }, 'could not tell the digest creator');
  }
}
