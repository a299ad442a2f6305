/**
 * The Trunk API v2 client: the reads that explain a PR (history with reasons, dispatch order, estimate,
 * verification runs) and the id lookups they need. Same discipline as v1's client (client.ts): one deadline
 * per call, retries of 429/5xx/network with capped jittered backoff, the organization's budget waited on
 * before every attempt, error text scrubbed of the key. Differences v2 brings: GET with a query string, a
 * bearer key (auth.ts), a JSON error envelope whose `error.code` is kept on the error, and a second budget
 * for `GET /v2/pull-requests…` reads (5 a second per key).
 */
import type { Dispatcher } from 'undici';
import { sharedTrunkAgent } from '../agent.ts';
import type { CallOptions } from '../api.ts';
import type { TrunkAuth } from '../auth.ts';
import type { RequestGate } from '../budget.ts';
import { TrunkInvalidRequestError } from '../errors.ts';
import { type HttpResult, postOnce } from '../http.ts';
import { failureError, parseBody, type SafeParser, timeoutError } from '../responses.ts';
import { attemptOutcome, DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from '../retry.ts';
import { PULL_REQUEST_READS, type TrunkV2Operation } from './operations.ts';
import {
  type Estimate,
  errorEnvelopeSchema,
  estimateSchema,
  historyBatchItemSchema,
  type MergeQueue,
  type MergeQueueOrder,
  mergeQueueSchema,
  orderSchema,
  type PullRequest,
  page,
  pullRequestSchema,
  type Repository,
  repositorySchema,
  type TestV2,
  type TicketV2,
  type Transition,
  testSchema,
  ticketSchema,
  transitionSchema,
  type VerificationRun,
  verificationRunSchema,
} from './schemas.ts';

/** Trunk's batch history read takes at most 50 PR ids. */
export const HISTORY_BATCH_MAX = 50;
/** `number=` of the PR lookup takes at most 50 numbers. */
export const RESOLVE_NUMBERS_MAX = 50;

/** An estimate, or the fact that this queue gives none (404 `ESTIMATE_NOT_ENABLED`), which is not an error. */
export type EstimateAnswer = { kind: 'estimate'; estimate: Estimate } | { kind: 'not_enabled' };

export interface TrunkV2Api {
  /** The repository Trunk knows at `https://<host>/<owner>/<name>`; undefined when it knows none. */
  findRepository(providerUrl: string, opts?: CallOptions): Promise<Repository | undefined>;
  /** Queues of a repository, optionally of one target branch. */
  listMergeQueues(
    req: { repositoryId: string; targetBranch?: string },
    opts?: CallOptions,
  ): Promise<MergeQueue[]>;
  /** PRs by number (at most 50); numbers Trunk does not know are simply missing. */
  resolvePullRequests(
    req: { repositoryId: string; numbers: readonly number[] },
    opts?: CallOptions,
  ): Promise<PullRequest[]>;
  getPullRequest(id: string, opts?: CallOptions): Promise<PullRequest>;
  /** Every transition of one PR's queue entry, oldest first (empty when it never entered a queue). */
  queueEntryHistory(pullRequestId: string, opts?: CallOptions): Promise<Transition[]>;
  /** Histories of up to 50 PRs in one request, oldest first; unknown ids come back empty. */
  queueEntryHistoryBatch(
    pullRequestIds: readonly string[],
    opts?: CallOptions,
  ): Promise<Map<string, Transition[]>>;
  /** The order the queue will test its PRs in: batches, then pending (with `directlyAhead`), then awaiting admission. */
  mergeQueueOrder(queueId: string, opts?: CallOptions): Promise<MergeQueueOrder>;
  queueEntryEstimate(pullRequestId: string, opts?: CallOptions): Promise<EstimateAnswer>;
  getVerificationRun(id: string, opts?: CallOptions): Promise<VerificationRun>;
  /** One test, with its metrics over `period` when asked (`GET /v2/tests/{id}?include=metrics&period=7d`). */
  getTest(
    testId: string,
    req?: { metricsPeriod?: '1d' | '7d' | '14d' | '30d' },
    opts?: CallOptions,
  ): Promise<TestV2>;
  /**
   * Sets or clears a test's quarantine override (`POST /v2/tests/{id}/quarantine`); needs the key's
   * "Quarantine tests" permission (403 INSUFFICIENT_PERMISSIONS otherwise). Answers the test as it is now.
   */
  setQuarantineOverride(
    testId: string,
    req: { mode: 'alwaysQuarantine' | 'neverQuarantine' | 'clear'; reason?: string },
    opts?: CallOptions,
  ): Promise<TestV2>;
  /** Links a ticket (a key or URL) to a test (`POST /v2/tests/{id}/ticket`); linking again replaces it. */
  linkTicket(testId: string, req: { externalTicketId: string }, opts?: CallOptions): Promise<TicketV2>;
}

/** Reported once per HTTP attempt, for metrics. */
export interface V2AttemptEvent {
  operation: TrunkV2Operation;
  attempt: number;
  status: number | 'network' | 'timeout';
  durationMs: number;
}

export interface TrunkV2ClientOptions {
  /** TRUNK_API_URL, e.g. https://api.trunk.io (paths start with /v2). */
  baseUrl: string;
  /** apiKeyAuth(key) — never the v1 token. */
  auth: TrunkAuth;
  dispatcher?: Dispatcher;
  defaultDeadlineMs?: number;
  retry?: Partial<RetryPolicy>;
  /** The organization's budget (100/s at Trunk), waited on before every attempt. */
  budget?: RequestGate;
  /** The key's own budget for `GET /v2/pull-requests…` (5/s at Trunk), waited on before those attempts. */
  pullRequestReads?: RequestGate;
  onAttempt?: (event: V2AttemptEvent) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  maxBodyBytes?: number;
}

type Query = Record<string, string | number | boolean | undefined>;

export function createTrunkV2Client(options: TrunkV2ClientOptions): TrunkV2Api {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v[12]$/, '');
  const auth = options.auth;
  const dispatcher = options.dispatcher ?? sharedTrunkAgent();
  const defaultDeadlineMs = options.defaultDeadlineMs ?? 30_000;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const sleep =
    options.sleep ??
    ((ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            reject(signal.reason);
          },
          { once: true },
        );
      }));
  const random = options.random ?? Math.random;
  const now = options.now ?? (() => performance.now());
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;

  function urlOf(path: string, query: Query = {}): URL {
    const url = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** `accept404` answers a 404 whose code is listed with `undefined` instead of throwing. */
  async function get<T>(
    operation: TrunkV2Operation,
    url: URL,
    parse: SafeParser<T>,
    opts: CallOptions = {},
    accept404: readonly string[] = [],
    /** A write: POST this JSON body (GET without one). */
    body?: unknown,
  ): Promise<T | undefined> {
    const deadlineMs = opts.deadlineMs ?? defaultDeadlineMs;
    const signal = opts.signal;
    const secrets = auth.secrets?.() ?? Object.values(auth.headers());
    const deadlineAt = now() + deadlineMs;
    const prBucket = PULL_REQUEST_READS.has(operation) ? options.pullRequestReads : undefined;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      // Trunk's PR-read bucket is not counted in the organization's limit, so a PR read waits on its own.
      await (prBucket ?? options.budget)?.acquire(signal);
      const remaining = deadlineAt - now();
      if (remaining <= 0) throw timeoutError(operation, deadlineMs, attempt - 1);
      const started = now();
      const result = await postOnce({
        url,
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...auth.headers(),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        dispatcher,
        timeoutMs: remaining,
        signal,
        maxBodyBytes,
      });
      report({ operation, attempt, status: statusOf(result), durationMs: now() - started });
      if (result.kind === 'response' && result.status >= 200 && result.status < 300)
        return parseBody(operation, result, parse);
      if (result.kind === 'timeout') throw timeoutError(operation, deadlineMs, attempt);
      const envelope = result.kind === 'response' ? envelopeOf(result.text) : undefined;
      if (
        result.kind === 'response' &&
        result.status === 404 &&
        envelope &&
        accept404.includes(envelope.code)
      )
        return undefined;
      const outcome = attemptOutcome(result, Date.now());
      // A write is sent once: Trunk does not honour Idempotency-Key, so the caller reads back before trying again.
      const decision =
        body === undefined
          ? decideRetry({ outcome, attempt, remainingMs: deadlineAt - now(), policy, random })
          : ({ retry: false } as const);
      if (!decision.retry) {
        const shown: Exclude<HttpResult, { kind: 'timeout' }> =
          result.kind === 'response' && envelope
            ? { ...result, text: envelope.message || envelope.code }
            : result;
        throw failureError(operation, shown, outcome, attempt, secrets, undefined, envelope?.code);
      }
      await sleep(decision.delayMs, signal);
    }
  }

  function report(event: V2AttemptEvent): void {
    try {
      options.onAttempt?.(event);
    } catch {
      // A metrics hook must never break a call.
    }
  }

  async function must<T>(p: Promise<T | undefined>): Promise<T> {
    return (await p) as T;
  }

  const repositoryPage = page(repositorySchema);
  const queuePage = page(mergeQueueSchema);
  const prPage = page(pullRequestSchema);
  const historyPage = page(transitionSchema);
  const batchPage = page(historyBatchItemSchema);

  /** Follows `nextCursor` while `hasMore`, stopping on a repeated cursor (a server bug would loop forever). */
  async function all<T>(
    operation: TrunkV2Operation,
    path: string,
    query: Query,
    parser: SafeParser<{ data: T[]; nextCursor: string | undefined; hasMore: boolean }>,
    opts: CallOptions,
    maxPages = 20,
  ): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let n = 0; n < maxPages; n++) {
      const p = await must(get(operation, urlOf(path, { ...query, cursor }), parser, opts));
      out.push(...p.data);
      if (!p.hasMore || !p.nextCursor || seen.has(p.nextCursor)) break;
      seen.add(p.nextCursor);
      cursor = p.nextCursor;
    }
    return out;
  }

  const id = (value: string) => encodeURIComponent(value);

  return {
    async findRepository(providerUrl, opts = {}) {
      const found = await get(
        'v2.findRepository',
        urlOf('/v2/repositories', { providerUrl, limit: 1 }),
        repositoryPage,
        opts,
        ['PROVIDER_URL_NOT_FOUND', 'REPOSITORY_NOT_FOUND', 'NOT_FOUND'],
      );
      return found?.data[0];
    },
    listMergeQueues(req, opts = {}) {
      return all(
        'v2.listMergeQueues',
        '/v2/merge-queues',
        { repositoryId: req.repositoryId, targetBranch: req.targetBranch, limit: 100 },
        queuePage,
        opts,
      );
    },
    async resolvePullRequests(req, opts = {}) {
      if (req.numbers.length === 0) return [];
      if (req.numbers.length > RESOLVE_NUMBERS_MAX)
        throw new TrunkInvalidRequestError('Too many PR numbers for one lookup.', {
          operation: 'v2.resolvePullRequests',
          field: 'number',
          rule: `takes at most ${RESOLVE_NUMBERS_MAX} numbers`,
          local: true,
        });
      return all(
        'v2.resolvePullRequests',
        '/v2/pull-requests',
        { repositoryId: req.repositoryId, number: req.numbers.join(','), limit: 100 },
        prPage,
        opts,
      );
    },
    getPullRequest(prId, opts = {}) {
      return must(get('v2.getPullRequest', urlOf(`/v2/pull-requests/${id(prId)}`), pullRequestSchema, opts));
    },
    queueEntryHistory(prId, opts = {}) {
      return all(
        'v2.queueEntryHistory',
        `/v2/pull-requests/${id(prId)}/queue-entry-history`,
        { direction: 'oldest', limit: 100 },
        historyPage,
        opts,
      );
    },
    async queueEntryHistoryBatch(prIds, opts = {}) {
      const out = new Map<string, Transition[]>();
      if (prIds.length === 0) return out;
      if (prIds.length > HISTORY_BATCH_MAX)
        throw new TrunkInvalidRequestError('Too many PR ids for one history read.', {
          operation: 'v2.queueEntryHistoryBatch',
          field: 'pullRequestIds',
          rule: `takes at most ${HISTORY_BATCH_MAX} ids`,
          local: true,
        });
      // `limit` counts PRs here, so one page holds the whole batch.
      const groups = await all(
        'v2.queueEntryHistoryBatch',
        '/v2/queue-entry-history',
        { pullRequestIds: prIds.join(','), limit: HISTORY_BATCH_MAX, direction: 'oldest' },
        batchPage,
        opts,
      );
      // Trunk lower-cases the ids it echoes; answer under the ids we were given.
      const byLower = new Map(prIds.map((p) => [p.toLowerCase(), p]));
      for (const g of groups)
        out.set(byLower.get(g.pullRequestId.toLowerCase()) ?? g.pullRequestId, g.transitions);
      return out;
    },
    mergeQueueOrder(queueId, opts = {}) {
      return must(
        get('v2.mergeQueueOrder', urlOf(`/v2/merge-queues/${id(queueId)}/order`), orderSchema, opts),
      );
    },
    async queueEntryEstimate(prId, opts = {}) {
      const estimate = await get(
        'v2.queueEntryEstimate',
        urlOf(`/v2/pull-requests/${id(prId)}/queue-entry-estimate`),
        estimateSchema,
        opts,
        ['ESTIMATE_NOT_ENABLED'],
      );
      return estimate ? { kind: 'estimate', estimate } : { kind: 'not_enabled' };
    },
    getVerificationRun(runId, opts = {}) {
      return must(
        get(
          'v2.getVerificationRun',
          urlOf(`/v2/merge-queue-verification-runs/${id(runId)}`),
          verificationRunSchema,
          opts,
        ),
      );
    },
    getTest(testId, req = {}, opts = {}) {
      const query = req.metricsPeriod ? { include: 'metrics', period: req.metricsPeriod } : {};
      return must(get('v2.getTest', urlOf(`/v2/tests/${id(testId)}`, query), testSchema, opts));
    },
    setQuarantineOverride(testId, req, opts = {}) {
      const body = { mode: req.mode, ...(req.reason ? { reason: req.reason.slice(0, 1000) } : {}) };
      return must(
        get(
          'v2.setQuarantineOverride',
          urlOf(`/v2/tests/${id(testId)}/quarantine`),
          testSchema,
          opts,
          [],
          body,
        ),
      );
    },
    linkTicket(testId, req, opts = {}) {
      return must(
        get('v2.linkTicket', urlOf(`/v2/tests/${id(testId)}/ticket`), ticketSchema, opts, [], {
          externalTicketId: req.externalTicketId,
        }),
      );
    },
  };
}

function statusOf(result: HttpResult): V2AttemptEvent['status'] {
  return result.kind === 'response' ? result.status : result.kind;
}

/** `error.code` and `error.message` of a JSON error answer; undefined for edge answers without the envelope. */
function envelopeOf(text: string): { code: string; message: string } | undefined {
  try {
    const parsed = errorEnvelopeSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.error : undefined;
  } catch {
    return undefined;
  }
}
