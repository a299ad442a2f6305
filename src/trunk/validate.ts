/**
 * Request validation before anything is sent. Pure: each function returns nothing or throws
 * TrunkInvalidRequestError with `local: true`, the field at fault and the rule it broke, in words a
 * person can act on. Checks run on the runtime value, not only the type, because requests are built from
 * what people type in Slack.
 */
import type { TrunkOperation } from './api.ts';
import { TrunkInvalidRequestError } from './errors.ts';
import {
  DIRECT_MERGE_MODES,
  type GetSubmittedPullRequestRequest,
  type GetTestRunRequest,
  type ListFailingTestsRequest,
  type ListPullRequestsRequest,
  type ListQuarantinedTestsRequest,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  type PageQuery,
  PRIORITIES,
  PULL_REQUEST_STATES,
  type PullRequestRequest,
  QUEUE_BOOL_SETTINGS,
  QUEUE_INT_MAX,
  QUEUE_INT_MIN,
  QUEUE_INT_SETTINGS,
  QUEUE_MODES,
  QUEUE_STATES_SETTABLE,
  type QueueAddress,
  type SubmitPullRequestRequest,
  UPDATE_QUEUE_SETTINGS,
  type UpdateQueueRequest,
} from './types.ts';

export const PAGE_SIZE_MIN = 1;
export const PAGE_SIZE_MAX = 100;
export const MAX_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** The OpenAPI document's upper bound for a PR number. */
const PR_NUMBER_MAX = 4294967295;

function fail(operation: TrunkOperation, field: string, rule: string): never {
  throw new TrunkInvalidRequestError(`Invalid ${operation} request: \`${field}\` ${rule}.`, {
    operation,
    field,
    rule,
    local: true,
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmptyString(operation: TrunkOperation, field: string, v: unknown): void {
  if (typeof v !== 'string') fail(operation, field, 'must be a string');
  if (v.trim() === '') fail(operation, field, 'must not be empty');
}

function repo(operation: TrunkOperation, v: unknown): void {
  if (!isObject(v)) fail(operation, 'repo', 'must be an object with host, owner and name');
  nonEmptyString(operation, 'repo.host', v.host);
  nonEmptyString(operation, 'repo.owner', v.owner);
  nonEmptyString(operation, 'repo.name', v.name);
}

function queueAddress(operation: TrunkOperation, req: unknown): asserts req is QueueAddress {
  if (!isObject(req)) fail(operation, '(request)', 'must be an object');
  repo(operation, req.repo);
  nonEmptyString(operation, 'targetBranch', req.targetBranch);
}

function oneOf(operation: TrunkOperation, field: string, v: unknown, allowed: readonly string[]): void {
  if (typeof v !== 'string' || !allowed.includes(v)) {
    fail(operation, field, `must be one of ${allowed.join(', ')}`);
  }
}

/** ISO 8601 / RFC 3339 date-time with a zone, e.g. 2026-01-02T03:04:05Z or …+01:00. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function dateTime(operation: TrunkOperation, field: string, v: unknown): number {
  if (typeof v !== 'string' || !DATE_TIME.test(v)) {
    fail(operation, field, 'must be an ISO 8601 date-time with a zone, for example 2026-01-02T03:04:05Z');
  }
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) fail(operation, field, 'is not a real date and time');
  return ms;
}

export function validatePageQuery(operation: TrunkOperation, v: unknown): asserts v is PageQuery {
  if (!isObject(v)) fail(operation, 'page_query', 'must be an object with page_size and page_token');
  const size = v.page_size;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < PAGE_SIZE_MIN || size > PAGE_SIZE_MAX) {
    fail(
      operation,
      'page_query.page_size',
      `must be a whole number from ${PAGE_SIZE_MIN} to ${PAGE_SIZE_MAX}`,
    );
  }
  if (typeof v.page_token !== 'string') {
    fail(operation, 'page_query.page_token', 'must be a string ("" for the first page)');
  }
}

export function validateGetQueue(req: unknown): void {
  queueAddress('getQueue', req);
}

const UPDATE_FIELDS = new Set<string>(['repo', 'targetBranch', ...UPDATE_QUEUE_SETTINGS]);

export function validateUpdateQueue(req: unknown): asserts req is UpdateQueueRequest {
  const op = 'updateQueue';
  queueAddress(op, req);
  const r = req as unknown as Record<string, unknown>;
  for (const key of Object.keys(r)) {
    // A misspelt setting would otherwise be silently ignored by the service.
    if (!UPDATE_FIELDS.has(key) && r[key] !== undefined)
      fail(op, key, 'is not a setting updateQueue accepts');
  }
  if (r.state !== undefined) oneOf(op, 'state', r.state, QUEUE_STATES_SETTABLE);
  for (const key of QUEUE_INT_SETTINGS) {
    const v = r[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < QUEUE_INT_MIN || v > QUEUE_INT_MAX) {
      fail(op, key, `must be a whole number from ${QUEUE_INT_MIN} to ${QUEUE_INT_MAX}`);
    }
  }
  for (const key of [...QUEUE_BOOL_SETTINGS, 'deleteRequiredStatuses'] as const) {
    const v = r[key];
    if (v !== undefined && typeof v !== 'boolean') fail(op, key, 'must be true or false');
  }
  if (r.mode !== undefined) oneOf(op, 'mode', r.mode, QUEUE_MODES);
  if (r.directMergeMode !== undefined) oneOf(op, 'directMergeMode', r.directMergeMode, DIRECT_MERGE_MODES);
  if (r.optimizationMode !== undefined) {
    oneOf(op, 'optimizationMode', r.optimizationMode, OPTIMIZATION_MODES);
  }
  if (r.mergeMethod !== undefined) oneOf(op, 'mergeMethod', r.mergeMethod, MERGE_METHODS);
  if (r.requiredStatuses !== undefined) {
    if (!Array.isArray(r.requiredStatuses)) fail(op, 'requiredStatuses', 'must be a list of status names');
    r.requiredStatuses.forEach((s, i) => {
      nonEmptyString(op, `requiredStatuses[${i}]`, s);
    });
    if (r.deleteRequiredStatuses === true) {
      fail(op, 'deleteRequiredStatuses', 'cannot be combined with requiredStatuses (set one or the other)');
    }
  }
}

/** A queue address plus `pr.number`, shared by every operation on one PR. */
function pullRequestAddress(operation: TrunkOperation, req: unknown): asserts req is PullRequestRequest {
  queueAddress(operation, req);
  const pr = (req as unknown as Record<string, unknown>).pr;
  if (!isObject(pr)) fail(operation, 'pr', 'must be an object with a number');
  const n = pr.number;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > PR_NUMBER_MAX) {
    fail(operation, 'pr.number', 'must be a positive whole number (the PR number, e.g. 1234)');
  }
}

export function validateGetSubmittedPullRequest(req: unknown): asserts req is GetSubmittedPullRequestRequest {
  pullRequestAddress('getSubmittedPullRequest', req);
}

const PRIORITY_NAMES = Object.keys(PRIORITIES);

/** The priority as the wire takes it: a known name in lowercase, or the number; undefined when absent. */
export function priorityOnWire(priority: unknown): string | number | undefined {
  return typeof priority === 'string' ? priority.toLowerCase() : (priority as number | undefined);
}

export function validateSubmitPullRequest(req: unknown): asserts req is SubmitPullRequestRequest {
  const op = 'submitPullRequest';
  pullRequestAddress(op, req);
  const r = req as unknown as Record<string, unknown>;
  const p = r.priority;
  const priorityRule = `must be one of ${PRIORITY_NAMES.join(', ')} or a whole number from 0 to ${PR_NUMBER_MAX} (lower is sooner)`;
  if (typeof p === 'string' && !PRIORITY_NAMES.includes(p.toLowerCase())) fail(op, 'priority', priorityRule);
  if (typeof p === 'number' && (!Number.isInteger(p) || p < 0 || p > PR_NUMBER_MAX)) {
    fail(op, 'priority', priorityRule);
  }
  if (p !== undefined && typeof p !== 'string' && typeof p !== 'number') fail(op, 'priority', priorityRule);
  if (r.noBatch !== undefined && typeof r.noBatch !== 'boolean') fail(op, 'noBatch', 'must be true or false');
}

export function validateCancelPullRequest(req: unknown): asserts req is PullRequestRequest {
  pullRequestAddress('cancelPullRequest', req);
}

export function validateRestartTests(req: unknown): asserts req is PullRequestRequest {
  pullRequestAddress('restartTestsOnPullRequest', req);
}

/** Everything but the cursor and page size, so a bad filter fails before the first page. */
export function validatePullRequestFilter(req: unknown): void {
  const op = 'listPullRequests';
  queueAddress(op, req);
  const r = req as unknown as Record<string, unknown>;
  if (r.state !== undefined) oneOf(op, 'state', r.state, PULL_REQUEST_STATES);
  if (r.since !== undefined) dateTime(op, 'since', r.since);
}

export function validateListPullRequests(req: unknown): asserts req is ListPullRequestsRequest {
  const op = 'listPullRequests';
  validatePullRequestFilter(req);
  const r = req as unknown as Record<string, unknown>;
  if (r.cursor !== undefined) {
    if (typeof r.cursor !== 'string' || r.cursor === '') {
      fail(op, 'cursor', 'must be the nextCursor of the previous page (leave it out for the first page)');
    }
  }
  const take = r.take;
  if (
    take !== undefined &&
    (typeof take !== 'number' || !Number.isInteger(take) || take < PAGE_SIZE_MIN || take > PAGE_SIZE_MAX)
  ) {
    fail(op, 'take', `must be a whole number from ${PAGE_SIZE_MIN} to ${PAGE_SIZE_MAX}`);
  }
}

export function validateGetTestRun(req: unknown): asserts req is GetTestRunRequest {
  const op = 'getMergeQueueTestingDetails';
  queueAddress(op, req);
  nonEmptyString(op, 'testRunId', (req as unknown as Record<string, unknown>).testRunId);
}

function flakyCommon(operation: TrunkOperation, req: unknown): asserts req is Record<string, unknown> {
  if (!isObject(req)) fail(operation, '(request)', 'must be an object');
  repo(operation, req.repo);
  nonEmptyString(operation, 'org_url_slug', req.org_url_slug);
}

/** The time window alone (used before paging too, so a bad window fails before the first page). */
export function validateFailingWindow(req: unknown): void {
  const op = 'listFailingTests';
  flakyCommon(op, req);
  const start = dateTime(op, 'start_time', req.start_time);
  const end = dateTime(op, 'end_time', req.end_time);
  if (start >= end) fail(op, 'end_time', 'must be later than start_time');
  if (end - start > MAX_WINDOW_MS) fail(op, 'end_time', 'must be at most 7 days after start_time');
}

export function validateListFailingTests(req: unknown): asserts req is ListFailingTestsRequest {
  validateFailingWindow(req);
  validatePageQuery('listFailingTests', (req as Record<string, unknown>).page_query);
}

export function validateListQuarantinedTests(req: unknown): asserts req is ListQuarantinedTestsRequest {
  const op = 'listQuarantinedTests';
  flakyCommon(op, req);
  validatePageQuery(op, req.page_query);
}
