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

/**
 * What a rejected chat.postMessage means for a poster that paces itself (the digest): Slack's own error
 * (`not_in_channel`), else the client's (`http_503`, `slack_webapi_request_error`), and for a 429 the
 * wait Slack asked for (1 s when it named none).
 */
export function classifyPostFailure(err: unknown): { code: string; retryAfterSeconds?: number } {
  if (!isSlackApiError(err)) return { code: 'unknown_error' };
  if (err.code === 'slack_webapi_rate_limited_error')
    return { code: err.code, retryAfterSeconds: err.retryAfter ?? 1 };
  const code =
    slackAnswer(err) ??
    (err.code === 'slack_webapi_http_error' ? `http_${err.statusCode}` : undefined) ??
    (typeof err.code === 'string' ? err.code : undefined) ??
    'unknown_error';
  return { code };
}

/** Slack's error code of a failed Web API call (`not_in_channel`, `ratelimited`, …). */
export function errorCode(err: unknown): string {
  if (!isSlackApiError(err)) return 'unknown';
  return slackAnswer(err) ?? (typeof err.code === 'string' ? err.code : 'unknown');
}
