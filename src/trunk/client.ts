/**
 * The Trunk API v1 client: ten typed operations plus paging, implementing TrunkApi (api.ts).
 * Each call: validate locally (validate.ts) → build the body from known fields only → POST with retries
 * inside one deadline (http.ts, retry.ts) → map failures to the TrunkError taxonomy and parse the answer
 * tolerantly (responses.ts, schemas.ts). Error text never carries the token: bodies are scrubbed and capped.
 */
import type { Dispatcher } from 'undici';
import { type QueueAddressing, repoBody, v1QueueAddressing } from './addressing.ts';
import { sharedTrunkAgent } from './agent.ts';
import type { CallOptions, PaginateOptions, TrunkApi, TrunkOperation } from './api.ts';
import type { TrunkAuth } from './auth.ts';
import type { RequestGate } from './budget.ts';
import { type HttpResult, postOnce } from './http.ts';
import { paginate, pagingLimits } from './pagination.ts';
import { isInQueue, sendSettled } from './pr-writes.ts';
import { failureError, parseBody, type SafeParser, subjectOf, timeoutError } from './responses.ts';
import {
  type AttemptOutcome,
  attemptOutcome,
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isRefusedUnapplied,
  type RetryPolicy,
} from './retry.ts';
import {
  failingTestsPageSchema,
  pullRequestsPageSchema,
  quarantinedTestsPageSchema,
  queueSchema,
  queueSettingsSchema,
  submittedPullRequestSchema,
  testRunSchema,
} from './schemas.ts';
import {
  type ListFailingTestsRequest,
  type ListPullRequestsRequest,
  type ListQuarantinedTestsRequest,
  type PullRequestRequest,
  UPDATE_QUEUE_SETTINGS,
  type UpdateQueueRequest,
} from './types.ts';
import {
  priorityOnWire,
  validateCancelPullRequest,
  validateFailingWindow,
  validateGetQueue,
  validateGetSubmittedPullRequest,
  validateGetTestRun,
  validateListFailingTests,
  validateListPullRequests,
  validateListQuarantinedTests,
  validatePullRequestFilter,
  validateRestartTests,
  validateSubmitPullRequest,
  validateUpdateQueue,
} from './validate.ts';

/** Reported once per HTTP attempt, for metrics. */
export interface AttemptEvent {
  operation: TrunkOperation;
  /** 1 for the first attempt of a call. */
  attempt: number;
  status: number | 'network' | 'timeout';
  durationMs: number;
}

export interface TrunkClientOptions {
  /** TRUNK_API_URL, without /v1 (a trailing /v1 is tolerated), e.g. https://api.trunk.io. */
  baseUrl: string;
  auth: TrunkAuth;
  /** Connection pool; default: the process-wide keep-alive Agent (agent.ts). */
  dispatcher?: Dispatcher;
  /** Deadline of a call when the caller gives none; default 30 s, like Trunk's own clients. */
  defaultDeadlineMs?: number;
  retry?: Partial<RetryPolicy>;
  onAttempt?: (event: AttemptEvent) => void;
  /** Waits between attempts; injectable so tests neither wait nor flake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Monotonic clock in ms, for deadlines and durations. */
  now?: () => number;
  /** How a queue is named in a body; default v1 (`repo` + `targetBranch`). */
  addressing?: QueueAddressing;
  /** Larger answers are refused as invalid; default 16 MiB. */
  maxBodyBytes?: number;
  /** The organization's request budget (budget.ts), waited on before every attempt; default none. */
  budget?: RequestGate;
}

export const DEFAULT_DEADLINE_MS = 30_000;

const PATHS: Record<TrunkOperation, string> = {
  getQueue: '/v1/getQueue',
  updateQueue: '/v1/updateQueue',
  getSubmittedPullRequest: '/v1/getSubmittedPullRequest',
  getMergeQueueTestingDetails: '/v1/getMergeQueueTestingDetails',
  listFailingTests: '/v1/flaky-tests/list-failing-tests',
  listQuarantinedTests: '/v1/flaky-tests/list-quarantined-tests',
  submitPullRequest: '/v1/submitPullRequest',
  cancelPullRequest: '/v1/cancelPullRequest',
  restartTestsOnPullRequest: '/v1/restartTestsOnPullRequest',
  listPullRequests: '/v1/listPullRequests',
};

const UPDATE_SETTINGS = UPDATE_QUEUE_SETTINGS satisfies ReadonlyArray<keyof UpdateQueueRequest>;

export function createTrunkClient(options: TrunkClientOptions): TrunkApi {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  // Parsed once per client: given a string, undici would parse the URL again on every request.
  const urls = Object.fromEntries(
    Object.entries(PATHS).map(([op, path]) => [op, new URL(baseUrl + path)]),
  ) as Record<TrunkOperation, URL>;
  const auth = options.auth;
  const dispatcher = options.dispatcher ?? sharedTrunkAgent();
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => performance.now());
  const addressing = options.addressing ?? v1QueueAddressing;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  checkDeadline(defaultDeadlineMs);

  function deadlineOf(opts: CallOptions): number {
    const ms = opts.deadlineMs ?? defaultDeadlineMs;
    checkDeadline(ms);
    return ms;
  }

  function report(event: AttemptEvent): void {
    try {
      options.onAttempt?.(event);
    } catch {
      // A metrics hook must never break a call.
    }
  }

  /**
   * `parse` null: the answer carries nothing we use (the PR writes answer `{}`), so any 2xx is success.
   * `retryable`: which failures may be sent again; default: those that are safe for reads.
   */
  async function call<T>(
    operation: TrunkOperation,
    body: unknown,
    parse: SafeParser<T> | null,
    opts: CallOptions = {},
    retryable?: (outcome: AttemptOutcome) => boolean,
  ): Promise<T> {
    const deadlineMs = opts.deadlineMs ?? defaultDeadlineMs;
    checkDeadline(deadlineMs);
    const signal = opts.signal;
    const secrets = auth.secrets?.() ?? Object.values(auth.headers());
    const payload = JSON.stringify(body);
    const deadlineAt = now() + deadlineMs;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      // The wait for a slot counts against the deadline: the caller wants an answer by then, whatever delays it.
      await options.budget?.acquire(signal, {
        operation,
        waitMs: deadlineAt - now(),
        ...(opts.forChange ? { forChange: true } : {}),
      });
      const remaining = deadlineAt - now();
      if (remaining <= 0) throw timeoutError(operation, deadlineMs, attempt - 1);
      const started = now();
      const result = await postOnce({
        url: urls[operation],
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...auth.headers(),
        },
        body: payload,
        dispatcher,
        timeoutMs: remaining,
        signal,
        maxBodyBytes,
      });
      report({ operation, attempt, status: attemptStatus(result), durationMs: now() - started });

      if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
        return parse ? parseBody(operation, result, parse) : (undefined as T);
      }
      if (result.kind === 'timeout') throw timeoutError(operation, deadlineMs, attempt);

      const outcome = attemptOutcome(result, Date.now());
      const decision = decideRetry({
        outcome,
        attempt,
        remainingMs: deadlineAt - now(),
        policy,
        random,
        retryable,
      });
      if (!decision.retry)
        throw failureError(
          operation,
          result,
          outcome,
          attempt,
          secrets,
          subjectOf(operation, body as Record<string, unknown>),
        );
      await sleep(decision.delayMs, signal);
    }
  }

  async function listFailingTests(req: ListFailingTestsRequest, opts?: CallOptions) {
    validateListFailingTests(req);
    const body = {
      repo: repoBody(req.repo),
      org_url_slug: req.org_url_slug,
      start_time: req.start_time,
      end_time: req.end_time,
      page_query: { page_size: req.page_query.page_size, page_token: req.page_query.page_token },
    };
    return call('listFailingTests', body, failingTestsPageSchema, opts);
  }

  async function listQuarantinedTests(req: ListQuarantinedTestsRequest, opts?: CallOptions) {
    validateListQuarantinedTests(req);
    const body = {
      repo: repoBody(req.repo),
      org_url_slug: req.org_url_slug,
      page_query: { page_size: req.page_query.page_size, page_token: req.page_query.page_token },
    };
    return call('listQuarantinedTests', body, quarantinedTestsPageSchema, opts);
  }

  function prBody(req: PullRequestRequest): Record<string, unknown> {
    return { ...addressing(req), pr: { number: req.pr.number } };
  }

  /** One PR write, never repeated after a failure that may have come after Trunk applied it. */
  function sendWrite(operation: TrunkOperation, body: unknown, opts: CallOptions, deadlineMs: number) {
    return call<void>(operation, body, null, { ...opts, deadlineMs }, isRefusedUnapplied);
  }

  /** Read the PR to settle a lost submit or cancel. */
  function readPr(req: PullRequestRequest, opts: CallOptions, deadlineMs: number) {
    const body = prBody(req);
    return call('getSubmittedPullRequest', body, submittedPullRequestSchema, {
      ...opts,
      deadlineMs,
      forChange: true,
    });
  }

  async function listPullRequests(req: ListPullRequestsRequest, opts?: CallOptions) {
    validateListPullRequests(req);
    const body: Record<string, unknown> = addressing(req);
    if (req.state !== undefined) body.state = req.state;
    if (req.since !== undefined) body.since = req.since;
    if (req.cursor !== undefined) body.cursor = req.cursor;
    if (req.take !== undefined) body.take = req.take;
    return call('listPullRequests', body, pullRequestsPageSchema, opts);
  }

  return {
    async getQueue(req, opts) {
      validateGetQueue(req);
      return call('getQueue', addressing(req), queueSchema, opts);
    },

    // Retried on 5xx/network like the reads: the body sets absolute values, so applying it twice
    // leaves the queue exactly as applying it once.
    async updateQueue(req, opts) {
      validateUpdateQueue(req);
      const body: Record<string, unknown> = addressing(req);
      for (const key of UPDATE_SETTINGS) {
        const v = req[key];
        if (v !== undefined) body[key] = Array.isArray(v) ? [...v] : v;
      }
      return call('updateQueue', body, queueSettingsSchema, opts);
    },

    async getSubmittedPullRequest(req, opts) {
      validateGetSubmittedPullRequest(req);
      const body = { ...addressing(req), pr: { number: req.pr.number } };
      return call('getSubmittedPullRequest', body, submittedPullRequestSchema, opts);
    },

    async getMergeQueueTestingDetails(req, opts) {
      validateGetTestRun(req);
      const body = { ...addressing(req), testRunId: req.testRunId };
      return call('getMergeQueueTestingDetails', body, testRunSchema, opts);
    },

    listFailingTests,
    listQuarantinedTests,

    async *failingTestPages(req, opts: PaginateOptions = {}) {
      const { pageSize, maxPages } = pagingLimits('listFailingTests', opts);
      validateFailingWindow(req);
      const callOpts = { deadlineMs: opts.deadlineMs, signal: opts.signal };
      yield* paginate('listFailingTests', maxPages, (page_token) =>
        listFailingTests({ ...req, page_query: { page_size: pageSize, page_token } }, callOpts),
      );
    },

    async *quarantinedTestPages(req, opts: PaginateOptions = {}) {
      const { pageSize, maxPages } = pagingLimits('listQuarantinedTests', opts);
      const callOpts = { deadlineMs: opts.deadlineMs, signal: opts.signal };
      yield* paginate('listQuarantinedTests', maxPages, (page_token) =>
        listQuarantinedTests({ ...req, page_query: { page_size: pageSize, page_token } }, callOpts),
      );
    },

    async submitPullRequest(req, opts = {}) {
      validateSubmitPullRequest(req);
      const body = prBody(req);
      const priority = priorityOnWire(req.priority);
      if (priority !== undefined) body.priority = priority;
      if (req.noBatch !== undefined) body.noBatch = req.noBatch;
      return sendSettled(
        {
          send: (ms) => sendWrite('submitPullRequest', body, opts, ms),
          read: (ms) => readPr(req, opts, ms),
          applied: isInQueue,
          now,
        },
        deadlineOf(opts),
      );
    },

    async cancelPullRequest(req, opts = {}) {
      validateCancelPullRequest(req);
      const body = prBody(req);
      return sendSettled(
        {
          send: (ms) => sendWrite('cancelPullRequest', body, opts, ms),
          read: (ms) => readPr(req, opts, ms),
          applied: (pr) => !isInQueue(pr),
          now,
        },
        deadlineOf(opts),
      );
    },

    async restartTestsOnPullRequest(req, opts = {}) {
      validateRestartTests(req);
      await sendWrite('restartTestsOnPullRequest', prBody(req), opts, deadlineOf(opts));
      return { confirmedBy: 'answer', sent: 1 };
    },

    listPullRequests,

    async *pullRequestPages(req, opts: PaginateOptions = {}) {
      const { pageSize, maxPages } = pagingLimits('listPullRequests', opts);
      validatePullRequestFilter(req);
      const callOpts = { deadlineMs: opts.deadlineMs, signal: opts.signal };
      yield* paginate(
        'listPullRequests',
        maxPages,
        (cursor) =>
          listPullRequests({ ...req, take: pageSize, ...(cursor === '' ? {} : { cursor }) }, callOpts),
        { next: (page) => page.nextCursor, field: 'nextCursor' },
      );
    },
  };
}

// ---- helpers -------------------------------------------------------------------------------------

function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`createTrunkClient: baseUrl is not a URL (for example https://api.trunk.io)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('createTrunkClient: baseUrl must start with http:// or https://');
  }
  // Paths carry /v1 themselves; accept a base that already ends with it.
  return url.href.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function checkDeadline(ms: number): void {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
    throw new RangeError(`Trunk client: deadlineMs must be a positive number of milliseconds, got ${ms}`);
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function attemptStatus(result: HttpResult): AttemptEvent['status'] {
  return result.kind === 'response' ? result.status : result.kind;
}
