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

/** What the creator should do, in words, for a final error (or a Slack that never came back). */
export function fixFor(code: string, sub: Pick<Subscription, 'id' | 'channelId'>): string {
  const rerun = `then \`/mergequeue digest run ${sub.id}\``;
  switch (code) {
    case 'not_in_channel':
      return `invite @mergequeue to <#${sub.channelId}> (\`/invite @mergequeue\` there), ${rerun}.`;
    case 'channel_not_found':
    case 'is_archived':
      return `<#${sub.channelId}> is gone or archived: remove this digest with \`/mergequeue digest remove ${sub.id}\` and add it in a channel that is in use.`;
    case 'invalid_auth':
    case 'token_revoked':
    case 'account_inactive':
    case 'not_authed':
    case 'no_installation':
      return 'the app was uninstalled or its token revoked: ask a workspace admin to reinstall mergequeue.';
    case 'missing_scope':
      return 'the app lacks a permission it needs: ask a workspace admin to reinstall mergequeue.';
    default:
      return `Slack kept failing (${code}); ${rerun} once Slack is back.`;
  }
}

/**
 * A direct message to the digest's creator (chat.postMessage to a user id lands in their DM with the app).
 * Best effort: with a revoked token it cannot arrive either, and the log says so.
 */
export async function tellCreator(
  slack: SlackPoster | undefined,
  sub: Pick<Subscription, 'id' | 'channelId' | 'createdBy'>,
  code: string,
  logger: Logger,
): Promise<void> {
  const text = `Your digest \`${sub.id}\` for <#${sub.channelId}> was not posted (Slack said \`${code}\`). To fix it: ${fixFor(code, sub)}`;
  try {
    if (!slack) throw new Error('no Slack client for this workspace');
    await slack.chat.postMessage({ channel: sub.createdBy, text, unfurl_links: false, unfurl_media: false });
  } catch (err) {
    logger.warn({ err, digest: sub.id, slackError: code }, 'could not tell the digest creator');
  }
}
