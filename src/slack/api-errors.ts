/**
 * Errors from Slack's Web API, named once. @slack/web-api rejects with an Error carrying a string `code`
 * (`slack_webapi_platform_error`, `slack_webapi_rate_limited_error`, …); a platform error also carries
 * Slack's own answer, whose `error` field (`user_not_found`, `channel_not_found`, …) is what callers act on.
 */

export interface SlackApiError {
  code?: unknown;
  data?: { error?: unknown };
  retryAfter?: number;
  statusCode?: number;
}

export function isSlackApiError(err: unknown): err is SlackApiError {
  if (typeof err !== 'object' || err === null) return false;
  return typeof slackAnswer(err) === 'string' || ('code' in err && typeof err.code === 'string');
}

/** Slack's `error` string of a platform error (`user_not_found`), if the value carries one. */
export function slackAnswer(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('data' in err)) return undefined;
  const data = err.data;
  if (typeof data !== 'object' || data === null || !('error' in data)) return undefined;
  return typeof data.error === 'string' ? data.error : undefined;
}
