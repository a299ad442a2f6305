/**
 * Trunk API v2 in the fake: the reads the app makes to explain a PR (repository and queue lookups, PR lookups,
 * state histories single and batched, the dispatch order, estimates, verification runs), over the same queues
 * and PRs the v1 side serves, so a test or the sandbox sets a queue up once. Ids are derived from names
 * (stable across restarts). Histories, orders and estimates a test does not set are derived from the v1 state:
 * a PR's history is its submission and its current state; the order is the queue's PRs by state.
 *
 * Like the real service: `Authorization: Bearer trunk_v2_…` only (the v1 token is refused with 401), JSON error
 * envelopes `{ error: { code, message } }`, 403 `INSUFFICIENT_PERMISSIONS` naming the permission, 404
 * `ESTIMATE_NOT_ENABLED` on queues without estimates, `{ data, nextCursor, hasMore }` pages.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { EnqueuedPullRequest, SubmittedPullRequest } from '../../../src/trunk/types.ts';
import type { ActivityEvent } from './activity.ts';
import { type QueueRecord, type QueueStore, queueLabel, repoKey } from './state.ts';
import { V2Tests } from './v2-tests.ts';

/** The v2 operations the fake serves (Trunk's operationIds). */
export type V2FakeOperation =
  | 'repositories.resolveByProviderUrl'
  | 'mergeQueues.list'
  | 'mergeQueues.order'
  | 'pullRequests.resolveByCoordinates'
  | 'pullRequests.get'
  | 'pullRequests.queueEntryHistory'
  | 'pullRequests.queueEntryHistoryBatch'
  | 'pullRequests.queueEntryEstimate'
  | 'mergeQueueVerificationRuns.get'
  | 'tests.get'
  | 'tests.setQuarantineOverride'
  | 'tests.linkTicket';

export interface V2Transition {
  state: string;
  changedAt: string;
  reason?: string | null;
  [field: string]: unknown;
}

export interface V2Reply {
  status: number;
  json: unknown;
}

/** A routed v2 request: its operation (or undefined for an unknown path) and path parameters. */
export interface V2Route {
  operation: V2FakeOperation | undefined;
  params: Record<string, string>;
}

const ROUTES: Array<[RegExp, V2FakeOperation]> = [
  [/^\/v2\/repositories$/, 'repositories.resolveByProviderUrl'],
  [/^\/v2\/merge-queues$/, 'mergeQueues.list'],
  [/^\/v2\/merge-queues\/(?<id>[^/]+)\/order$/, 'mergeQueues.order'],
  [/^\/v2\/pull-requests$/, 'pullRequests.resolveByCoordinates'],
  [/^\/v2\/pull-requests\/(?<id>[^/]+)$/, 'pullRequests.get'],
  [/^\/v2\/pull-requests\/(?<id>[^/]+)\/queue-entry-history$/, 'pullRequests.queueEntryHistory'],
  [/^\/v2\/queue-entry-history$/, 'pullRequests.queueEntryHistoryBatch'],
  [/^\/v2\/pull-requests\/(?<id>[^/]+)\/queue-entry-estimate$/, 'pullRequests.queueEntryEstimate'],
  [/^\/v2\/merge-queue-verification-runs\/(?<id>[^/]+)$/, 'mergeQueueVerificationRuns.get'],
  [/^\/v2\/tests\/(?<id>[^/]+)$/, 'tests.get'],
  [/^\/v2\/tests\/(?<id>[^/]+)\/quarantine$/, 'tests.setQuarantineOverride'],
  [/^\/v2\/tests\/(?<id>[^/]+)\/ticket$/, 'tests.linkTicket'],
];

/** The operations that are writes (POST with a JSON body); every other one is a GET. */
const POSTS: ReadonlySet<V2FakeOperation> = new Set(['tests.setQuarantineOverride', 'tests.linkTicket']);

export function routeV2(path: string): V2Route {
  for (const [re, operation] of ROUTES) {
    const m = re.exec(path);
    if (m) return { operation, params: { ...(m.groups ?? {}) } };
  }
  return { operation: undefined, params: {} };
}

const V1_TO_V2_STATE: Record<string, string> = {
  not_ready: 'notReady',
  pending: 'pending',
  testing: 'testing',
  tests_passed: 'testsPassed',
  pending_failure: 'pendingFailure',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'cancelled',
};

function v2State(v1: string | undefined): string {
  return V1_TO_V2_STATE[(v1 ?? 'pending').toLowerCase()] ?? v1 ?? 'pending';
}

function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function queueIdOf(record: QueueRecord): string {
  return createHash('sha256')
    .update(`queue:${repoKey(record.repo)}:${record.settings.branch}`)
    .digest('base64url')
    .slice(0, 8);
}

const err = (status: number, code: string, message: string): V2Reply => ({
  status,
  json: { error: { code, message } },
});

type AnyPr = (EnqueuedPullRequest | SubmittedPullRequest) & { state?: string };

/** What a test sets beyond the v1 state. */
export class V2State {
  /** key → the permissions it was given (Trunk's UI names, e.g. "Quarantine tests"). */
  readonly keys = new Map<string, Set<string>>();
  private readonly histories = new Map<string, V2Transition[]>();
  private readonly ids = new Map<string, string>();
  private readonly estimates = new Map<string, unknown>();
  private readonly estimatesOff = new Set<string>();
  private readonly orders = new Map<string, unknown>();
  private readonly runs = new Map<string, unknown>();
  private readonly failures: Array<{ operation: V2FakeOperation; reply: V2Reply }> = [];
  private readonly delays: Array<{ operation: V2FakeOperation; ms: number }> = [];
  /** Flaky tests (`/v2/tests…`): what a test sets, and the writes made to them. */
  readonly tests: V2Tests;

  private readonly queues: QueueStore;
  private readonly now: () => number;
  private readonly activity: () => readonly ActivityEvent[];

  /** `activity`: the queues' own movement (activity.ts), which PR histories follow when a test set none. */
  constructor(queues: QueueStore, now: () => number, activity: () => readonly ActivityEvent[] = () => []) {
    this.queues = queues;
    this.now = now;
    this.activity = activity;
    this.tests = new V2Tests(now);
  }

  setKeys(keys: Record<string, string[]>): void {
    this.keys.clear();
    for (const [k, perms] of Object.entries(keys)) this.keys.set(k, new Set(perms));
  }

  /** The id v2 gives the PR `number` of `repo` (derived, so tests can name it before any request). */
  pullRequestId(repo: string, number: number): string {
    const name = `pr:${repoKey(repo)}#${number}`;
    let id = this.ids.get(name);
    if (!id) {
      id = uuidOf(name);
      // Remembered: a batch read over weeks of seeded history asks for thousands of ids.
      if (this.ids.size > 200_000) this.ids.clear();
      this.ids.set(name, id);
    }
    return id;
  }

  repositoryId(repo: string): string {
    return uuidOf(`repo:${repoKey(repo)}`);
  }

  queueId(repo: string, branch: string): string | undefined {
    const record = this.queues.get(repo, branch);
    return record ? queueIdOf(record) : undefined;
  }

  /** Sets the full history of one PR (oldest first); `pullRequestId` is filled in. */
  setHistory(repo: string, number: number, transitions: V2Transition[]): void {
    this.histories.set(this.pullRequestId(repo, number), transitions);
  }

  /** The estimate served for one PR; `'not_enabled'` turns estimates off for its queue. */
  setEstimate(repo: string, number: number, estimate: Record<string, unknown>): void {
    this.estimates.set(this.pullRequestId(repo, number), estimate);
  }

  disableEstimates(repo: string, branch: string): void {
    const id = this.queueId(repo, branch);
    if (id) this.estimatesOff.add(id);
  }

  setOrder(repo: string, branch: string, order: Record<string, unknown>): void {
    const id = this.queueId(repo, branch);
    if (id) this.orders.set(id, order);
  }

  setVerificationRun(id: string, run: Record<string, unknown>): void {
    this.runs.set(id, { id, ...run });
  }

  /** The next request to `operation` is answered with this error envelope (e.g. 403 INSUFFICIENT_PERMISSIONS). */
  failNext(operation: V2FakeOperation, status: number, code: string, message: string): void {
    this.failures.push({ operation, reply: err(status, code, message) });
  }

  /** The next request to `operation` is answered `ms` late (a slow Trunk), as it would be answered now. */
  delayNext(operation: V2FakeOperation, ms: number): void {
    this.delays.push({ operation, ms });
  }

  /** How late the request to `operation` is answered (taken once). */
  takeDelay(operation: V2FakeOperation | undefined): number {
    const i = this.delays.findIndex((d) => d.operation === operation);
    return i === -1 ? 0 : this.delays.splice(i, 1)[0]!.ms;
  }

  reset(): void {
    this.failures.length = 0;
    this.delays.length = 0;
    this.histories.clear();
    this.estimates.clear();
    this.estimatesOff.clear();
    this.orders.clear();
    this.runs.clear();
    this.tests.reset();
  }

  // ---- serving

  /** 401 for a missing or unknown key (as Trunk's edge: a plain body), undefined when the key is good. */
  authenticate(req: IncomingMessage): { status: number; text: string } | undefined {
    const auth = req.headers.authorization;
    const key = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined;
    if (!key) {
      const hint = req.headers['x-api-token']
        ? ' (API v2 reads Authorization: Bearer <API key>, not x-api-token)'
        : '';
      return { status: 401, text: `Unauthorized: missing API key${hint}` };
    }
    if (!this.keys.has(key)) return { status: 401, text: 'Unauthorized: invalid API key' };
    return undefined;
  }

  /** The bearer key of a request (authenticate() has accepted it). */
  keyOf(req: IncomingMessage): string {
    const auth = req.headers.authorization;
    return typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : '';
  }

  /** `write`: the key that sent it and the JSON body of a POST (invalid JSON is undefined). */
  answer(
    route: V2Route,
    method: string,
    url: URL,
    write: { key: string; body: unknown } = { key: '', body: undefined },
  ): V2Reply {
    if (!route.operation) return err(404, 'NOT_FOUND', `No route ${method} ${url.pathname}`);
    const expected = POSTS.has(route.operation) ? 'POST' : 'GET';
    if (method !== expected) return err(405, 'VALIDATION_FAILED', `${url.pathname} accepts ${expected}`);
    const failure = this.failures.findIndex((f) => f.operation === route.operation);
    if (failure !== -1) return this.failures.splice(failure, 1)[0]!.reply;
    const q = url.searchParams;
    const limit = Number(q.get('limit') ?? 25);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return err(400, 'VALIDATION_FAILED', 'limit must be an integer between 1 and 100');
    switch (route.operation) {
      case 'tests.get':
        return this.tests.get(route.params.id!, q);
      case 'tests.setQuarantineOverride':
        return this.tests.quarantine(
          route.params.id!,
          write.body,
          write.key,
          this.keys.get(write.key) ?? new Set(),
        );
      case 'tests.linkTicket':
        return this.tests.linkTicket(route.params.id!, write.body, write.key);
      case 'repositories.resolveByProviderUrl': {
        const providerUrl = q.get('providerUrl') ?? '';
        const m = /^https:\/\/([^/]+)\/([^/]+)\/([^/]+?)\/?$/.exec(providerUrl);
        const record = m
          ? [...this.queues.queues.values()].find(
              (r) => repoKey(r.repo) === repoKey({ host: m[1]!, owner: m[2]!, name: m[3]! }),
            )
          : undefined;
        if (!record) return err(404, 'PROVIDER_URL_NOT_FOUND', `No repository found at ${providerUrl}`);
        return listOf([this.repositoryView(record)]);
      }
      case 'mergeQueues.list': {
        const repositoryId = q.get('repositoryId');
        const branch = q.get('targetBranch');
        if (branch && !repositoryId)
          return err(400, 'VALIDATION_FAILED', 'targetBranch requires repositoryId');
        const rows = [...this.queues.queues.values()]
          .filter((r) => !repositoryId || this.repositoryId(repoKey(r.repo)) === repositoryId)
          .filter((r) => !branch || r.settings.branch === branch)
          .map((r) => this.queueView(r));
        return listOf(rows);
      }
      case 'mergeQueues.order': {
        const record = this.recordByQueueId(route.params.id!);
        if (!record)
          return err(404, 'MERGE_QUEUE_NOT_FOUND', `No merge queue found with ID ${route.params.id}`);
        return { status: 200, json: this.orders.get(queueIdOf(record)) ?? this.derivedOrder(record) };
      }
      case 'pullRequests.resolveByCoordinates': {
        const repositoryId = q.get('repositoryId');
        const numbers = q.get('number');
        if (!repositoryId) return err(400, 'VALIDATION_FAILED', 'repositoryId is required');
        if (!numbers) return err(400, 'VALIDATION_FAILED', 'exactly one of number or branch is required');
        const wanted = numbers.split(',').map(Number);
        if (wanted.length > 50 || wanted.some((n) => !Number.isInteger(n) || n < 1))
          return err(400, 'VALIDATION_FAILED', 'number takes 1 to 50 comma-separated PR numbers');
        const rows = this.allPrs()
          .filter((p) => p.repositoryId === repositoryId && wanted.includes(p.pr.prNumber))
          .sort((a, b) => a.pr.prNumber - b.pr.prNumber)
          .map((p) => this.prView(p.record, p.pr));
        return listOf(rows);
      }
      case 'pullRequests.get': {
        const found = this.prById(route.params.id!);
        if (!found) return err(404, 'PR_NOT_FOUND', `No pull request found with ID ${route.params.id}`);
        return { status: 200, json: this.prView(found.record, found.pr) };
      }
      case 'pullRequests.queueEntryHistory': {
        const found = this.prById(route.params.id!);
        if (!found) return err(404, 'PR_NOT_FOUND', `No pull request found with ID ${route.params.id}`);
        let rows = this.historyOf(route.params.id!, found.pr, found.record);
        if (q.get('direction') === 'newest') rows = [...rows].reverse();
        return pageOf(rows, q, limit);
      }
      case 'pullRequests.queueEntryHistoryBatch': {
        const ids = (q.get('pullRequestIds') ?? '')
          .split(',')
          .filter(Boolean)
          .map((s) => s.toLowerCase());
        if (ids.length === 0) return err(400, 'VALIDATION_FAILED', 'pullRequestIds is required');
        if (ids.length > 50) return err(400, 'VALIDATION_FAILED', 'pullRequestIds takes at most 50 ids');
        const index = this.prIndex();
        const rows = ids.map((id) => {
          const found = index.get(id);
          return { pullRequestId: id, transitions: found ? this.historyOf(id, found.pr, found.record) : [] };
        });
        return pageOf(rows, q, limit);
      }
      case 'pullRequests.queueEntryEstimate': {
        const found = this.prById(route.params.id!);
        if (!found) return err(404, 'PR_NOT_FOUND', `No pull request found with ID ${route.params.id}`);
        if (this.estimatesOff.has(queueIdOf(found.record)))
          return err(404, 'ESTIMATE_NOT_ENABLED', 'Estimates are not enabled for this merge queue');
        const set = this.estimates.get(route.params.id!);
        if (set) return { status: 200, json: { computedAt: this.iso(0), ...(set as object) } };
        return {
          status: 200,
          json: { status: 'unavailable', computedAt: this.iso(0), reason: 'INSUFFICIENT_HISTORY' },
        };
      }
      case 'mergeQueueVerificationRuns.get': {
        const run = this.runs.get(route.params.id!);
        if (!run)
          return err(
            404,
            'VERIFICATION_RUN_NOT_FOUND',
            `No verification run found with ID ${route.params.id}`,
          );
        return { status: 200, json: run };
      }
    }
  }

  private iso(minutesAgo: number): string {
    return new Date(this.now() - minutesAgo * 60_000).toISOString();
  }

  private repositoryView(record: QueueRecord) {
    const { host, owner, name } = record.repo;
    return {
      id: this.repositoryId(repoKey(record.repo)),
      provider: 'github',
      path: `${owner}/${name}`,
      host,
      url: `https://${host}/${owner}/${name}`,
      defaultBranch: 'main',
      isPrivate: true,
      createdAt: this.iso(60 * 24 * 30),
      updatedAt: this.iso(60),
    };
  }

  private queueView(record: QueueRecord) {
    const { host, owner, name } = record.repo;
    return {
      id: queueIdOf(record),
      repositoryId: this.repositoryId(repoKey(record.repo)),
      targetBranch: record.settings.branch,
      state: String(record.settings.state).toLowerCase(),
      mode: 'queue',
      managedState: 'manual',
      repositoryUrl: `https://${host}/${owner}/${name}`,
      pullRequestsUrl: `/v2/merge-queues/${queueIdOf(record)}/pull-requests`,
      createdAt: this.iso(60 * 24 * 30),
      updatedAt: this.iso(1),
    };
  }

  private allPrs(): Array<{ record: QueueRecord; pr: AnyPr; repositoryId: string }> {
    const out: Array<{ record: QueueRecord; pr: AnyPr; repositoryId: string }> = [];
    for (const record of this.queues.queues.values()) {
      const repositoryId = this.repositoryId(repoKey(record.repo));
      for (const pr of record.enqueued) out.push({ record, pr, repositoryId });
      for (const pr of record.submitted.values()) out.push({ record, pr, repositoryId });
    }
    return out;
  }

  /** Every PR by its v2 id, for a batch read (one pass over the PRs, not one per id). */
  private prIndex(): Map<string, { record: QueueRecord; pr: AnyPr }> {
    return new Map(
      this.allPrs().map((p) => [this.pullRequestId(repoKey(p.record.repo), p.pr.prNumber), p] as const),
    );
  }

  private prById(id: string): { record: QueueRecord; pr: AnyPr } | undefined {
    const lower = id.toLowerCase();
    return this.allPrs().find((p) => this.pullRequestId(repoKey(p.record.repo), p.pr.prNumber) === lower);
  }

  private prView(record: QueueRecord, pr: AnyPr) {
    const { host, owner, name } = record.repo;
    const id = this.pullRequestId(repoKey(record.repo), pr.prNumber);
    const inQueue = record.enqueued.includes(pr as EnqueuedPullRequest);
    return {
      id,
      repositoryId: this.repositoryId(repoKey(record.repo)),
      number: pr.prNumber,
      title: pr.prTitle,
      branch: `feature/${pr.prNumber}`,
      sha: pr.prSha,
      baseBranch: pr.prBaseBranch,
      author: pr.prAuthor,
      url: `https://${host}/${owner}/${name}/pull/${pr.prNumber}`,
      state: pr.state === 'merged' ? 'merged' : 'open',
      isCurrentlySubmittedToQueue: inQueue,
      createdAt: this.iso(60 * 24),
      htmlUrl: `https://app.trunk.io/${owner}/pull/${pr.prNumber}?repo=${encodeURIComponent(`${owner}/${name}`)}`,
      queueEntry: {
        id: uuidOf(`entry:${id}`),
        mergeQueueId: queueIdOf(record),
        state: v2State(pr.state),
        stateChangedAt: pr.stateChangedAt,
        priorityValue: pr.priorityValue,
        priorityName: pr.priorityName,
        skipsTheLine: pr.priorityValue === 0,
        allowBatching: !('noBatch' in pr && pr.noBatch),
        direct: false,
        readiness: { requiresImpactedTargets: false, doesBaseBranchMatch: true, mergeability: 'mergeable' },
        createdAt: pr.stateChangedAt,
        updatedAt: pr.stateChangedAt,
      },
    };
  }

  private historyOf(id: string, pr: AnyPr, record?: QueueRecord): Array<Record<string, unknown>> {
    const set = this.histories.get(id.toLowerCase());
    if (set) return set.map((t) => ({ pullRequestId: id.toLowerCase(), reason: null, ...t }));
    const moved = record ? this.activityHistory(id, pr, record) : [];
    if (moved.length > 0) return moved;
    const state = v2State(pr.state);
    const submitted = {
      pullRequestId: id,
      state: 'pending',
      changedAt: pr.stateChangedAt,
      reason: 'MERGE_ITEM_NOW_READY',
      actor: { gitHubLogin: pr.prAuthor },
    };
    if (state === 'pending') return [submitted];
    return [submitted, { pullRequestId: id, state, changedAt: pr.stateChangedAt, reason: null }];
  }

  /**
   * The transitions the queue's own activity made of one PR, with the reasons Trunk would give: a PR that
   * failed before testing failed its readiness (a conflict, a changed base branch), one that failed testing
   * failed a required check.
   */
  private activityHistory(id: string, pr: AnyPr, record: QueueRecord): Array<Record<string, unknown>> {
    const label = queueLabel(record.repo, record.settings.branch);
    const events = this.activity().filter((e) => e.queue === label && e.prNumber === pr.prNumber);
    let tested = false;
    return events.map((e) => {
      const base = { pullRequestId: id, changedAt: e.at };
      switch (e.kind) {
        case 'submitted':
          return {
            ...base,
            state: 'pending',
            reason: 'MERGE_ITEM_NOW_READY',
            actor: { gitHubLogin: pr.prAuthor },
          };
        case 'testing':
          tested = true;
          return { ...base, state: 'testing', reason: null };
        case 'merged':
          return { ...base, state: 'merged', reason: 'MERGE_GRAPH_MERGE' };
        case 'cancelled':
          return {
            ...base,
            state: 'cancelled',
            reason: tested ? 'USER_REQUESTED' : 'PR_CLOSED',
            actor: { gitHubLogin: pr.prAuthor },
          };
        default: {
          const readiness = 'readiness' in pr ? pr.readiness : undefined;
          const reason = tested
            ? 'TEST_RUN_REQUIRED_STATUS_FAILED'
            : readiness?.doesBaseBranchMatch === false
              ? 'GITHUB_API_BRANCH_PROTECTION_UNMET'
              : 'START_TEST_RUN_MERGE_CONFLICT';
          const check =
            record.manualRequiredStatuses?.[0] ?? record.inheritedRequiredStatuses[0] ?? 'ci/test';
          const { host, owner, name } = record.repo;
          return {
            ...base,
            state: 'failed',
            reason,
            failed: {
              failureCausingChecks: tested
                ? [
                    {
                      name: check,
                      url: `https://${host}/${owner}/${name}/pull/${pr.prNumber}/checks`,
                      conclusion: 'failure',
                    },
                  ]
                : [],
              blockReasons: [],
              ...(reason === 'START_TEST_RUN_MERGE_CONFLICT'
                ? { conflictCulprit: { kind: 'targetBranch', sha: pr.prSha } }
                : {}),
            },
          };
        }
      }
    });
  }

  private derivedOrder(record: QueueRecord) {
    const view = (p: AnyPr) => ({
      id: this.pullRequestId(repoKey(record.repo), p.prNumber),
      number: p.prNumber,
      sha: p.prSha,
      title: p.prTitle,
    });
    const testing = record.enqueued.filter((p) => v2State(p.state) === 'testing');
    const pending = record.enqueued.filter((p) => v2State(p.state) === 'pending');
    return {
      mode: 'queue',
      queueState: String(record.settings.state).toLowerCase(),
      batchingEnabled: false,
      isolationResolved: true,
      hasCycle: false,
      batches: testing.map((p) => ({
        verificationRunId: uuidOf(`run:${p.prNumber}`),
        state: 'testing',
        isBisection: false,
        pullRequests: [view(p)],
      })),
      pending: pending.map((p, i) => ({
        pullRequest: view(p),
        schedulability: 'schedulable',
        predictedBatch: i + 1,
        directlyAhead: i === 0 ? testing.map(view).slice(-1) : [view(pending[i - 1]!)],
        heldBy: [],
      })),
      awaitingAdmission: [],
      awaitingAdmissionTotal: 0,
    };
  }

  private recordByQueueId(id: string): QueueRecord | undefined {
    return [...this.queues.queues.values()].find((r) => queueIdOf(r) === id);
  }
}

function listOf(data: unknown[]): V2Reply {
  return { status: 200, json: { data, nextCursor: null, hasMore: false } };
}

/** One page of `rows`; the cursor is an offset in this fake (opaque to clients, as Trunk's are). */
function pageOf(rows: unknown[], q: URLSearchParams, limit: number): V2Reply {
  const from = Number(q.get('cursor') ?? 0) || 0;
  const data = rows.slice(from, from + limit);
  const hasMore = from + limit < rows.length;
  return { status: 200, json: { data, nextCursor: hasMore ? String(from + limit) : null, hasMore } };
}
