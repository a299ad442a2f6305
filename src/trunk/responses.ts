/**
 * What one HTTP result means: a parsed value, or the TrunkError that describes it. Trunk's error bodies
 * are plain text; we keep at most MAX_DETAIL_CHARS of them, with every secret removed, as `detail`.
 */
import type { TrunkOperation } from './api.ts';
import { scrubTokens } from './auth.ts';
import {
  TrunkAuthError,
  type TrunkError,
  TrunkInvalidRequestError,
  TrunkInvalidResponseError,
  TrunkNotFoundError,
  TrunkRateLimitedError,
  TrunkUnavailableError,
} from './errors.ts';
import type { HttpResult } from './http.ts';
import type { AttemptOutcome } from './retry.ts';
import { formatIssuePath } from './schemas.ts';
import type { TrunkV2Operation } from './v2/operations.ts';

/** How much of an error body we keep as `detail`. */
export const MAX_DETAIL_CHARS = 500;

/** The part of a zod schema we use, so this module does not depend on zod's types. */
export interface SafeParser<T> {
  safeParse(data: unknown): ZodLikeResult<T>;
}

export type ZodLikeResult<T> =
  | { success: true; data: T }
  | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };

/** Trunk's plain-text body, made safe to keep: secrets removed, whitespace collapsed, capped. */
export function safeDetail(text: string, secrets: readonly string[]): string | undefined {
  let clean = scrubTokens(text, secrets);
  // A proxy's HTML error page: keep its words, not its markup.
  if (/^\s*</.test(clean))
    clean = clean.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
  clean = clean.replace(/\s+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}

export function parseBody<T>(
  operation: TrunkOperation | TrunkV2Operation,
  result: Extract<HttpResult, { kind: 'response' }>,
  schema: SafeParser<T>,
): T {
  const status = result.status;
  if (result.truncated) {
    throw new TrunkInvalidResponseError(`Trunk ${operation} answer is larger than this client accepts.`, {
      operation,
      status,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(result.text);
  } catch {
    throw new TrunkInvalidResponseError(
      `Trunk ${operation} answered HTTP ${status} with a body that is not JSON.`,
      {
        operation,
        status,
        detail: 'body is not JSON',
      },
    );
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = formatIssuePath(issue?.path ?? []);
  const why = issue?.message ?? 'does not match the contract';
  throw new TrunkInvalidResponseError(
    `Trunk ${operation} answer breaks the contract at \`${field}\`: ${why}.`,
    {
      operation,
      status,
      field,
      detail: why,
    },
  );
}

export function timeoutError(
  operation: TrunkOperation | TrunkV2Operation,
  deadlineMs: number,
  attempts: number,
): TrunkUnavailableError {
  return new TrunkUnavailableError(
    `Trunk ${operation} did not answer within ${deadlineMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'}).`,
    { operation, timedOut: true, detail: `deadline of ${deadlineMs} ms reached` },
  );
}

export function failureError(
  operation: TrunkOperation | TrunkV2Operation,
  result: Exclude<HttpResult, { kind: 'timeout' }>,
  outcome: AttemptOutcome,
  attempts: number,
  secrets: readonly string[],
  subject?: string,
  /** v2's `error.code`; `result.text` then holds the envelope's message rather than the raw body. */
  code?: string,
): TrunkError {
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (result.kind === 'network') {
    const code = networkCode(result.error);
    return new TrunkUnavailableError(`Trunk ${operation} failed${tries}: network error (${code}).`, {
      operation,
      detail: `network error (${code})`,
      cause: result.error,
    });
  }
  const status = result.status;
  const detail = safeDetail(result.text, secrets);
  const suffix = detail ? `: ${detail}` : '';
  const init = { operation, status, detail, ...(subject ? { subject } : {}), ...(code ? { code } : {}) };
  if (status === 401 || status === 403) {
    return new TrunkAuthError(`Trunk ${operation} rejected the API token (HTTP ${status})${suffix}`, init);
  }
  if (status === 404)
    return new TrunkNotFoundError(`Trunk ${operation}: not found (HTTP 404)${suffix}`, init);
  if (status === 429) {
    const retryAfterMs = outcome.kind === 'status' ? outcome.retryAfterMs : undefined;
    return new TrunkRateLimitedError(`Trunk ${operation} is rate limited (HTTP 429)${tries}${suffix}`, {
      ...init,
      retryAfterMs,
    });
  }
  if (status === 408 || status >= 500) {
    return new TrunkUnavailableError(`Trunk ${operation} failed${tries} (HTTP ${status})${suffix}`, init);
  }
  if (status >= 400) {
    return new TrunkInvalidRequestError(
      `Trunk ${operation} refused the request (HTTP ${status})${suffix}`,
      init,
    );
  }
  return new TrunkInvalidResponseError(
    `Trunk ${operation} answered with unexpected HTTP ${status}${suffix}`,
    init,
  );
}

function networkCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'unknown';
}

/** What a request was about, from its wire body, so a "not found" can say what was not found. */
export function subjectOf(operation: TrunkOperation, body: Record<string, unknown>): string | undefined {
  const repo = body['repo'] as { host?: string; owner?: string; name?: string } | undefined;
  if (!repo?.owner || !repo.name) return undefined;
  const repoName = `${repo.host && repo.host !== 'github.com' ? `${repo.host}/` : ''}${repo.owner}/${repo.name}`;
  const queue = `${repoName}:${String(body['targetBranch'] ?? '')}`;
  switch (operation) {
    case 'getQueue':
    case 'updateQueue':
    case 'listPullRequests':
      return `merge queue for ${queue}`;
    case 'getSubmittedPullRequest':
    case 'submitPullRequest':
    case 'cancelPullRequest':
    case 'restartTestsOnPullRequest':
      return `PR #${String((body['pr'] as { number?: number } | undefined)?.number ?? '?')} in the merge queue for ${queue}`;
    case 'getMergeQueueTestingDetails':
      return `test run ${String(body['testRunId'] ?? '')} in the merge queue for ${queue}`;
    case 'listFailingTests':
    case 'listQuarantinedTests':
      return `repository ${repoName} in organization ${String(body['org_url_slug'] ?? '')}`;
  }
}
