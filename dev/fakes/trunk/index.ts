/**
 * A stateful fake of the Trunk API v1 as a real HTTP server on 127.0.0.1, for tests, benchmarks and the
 * app's local sandbox. Start it with `startTrunkFake()`, pass `fake.url` as TRUNK_API_URL, set up state
 * with the methods of `TrunkFake`, inject faults, and assert on `fake.requests`.
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  EnqueuedPullRequest,
  Queue,
  Repo,
  SubmittedPullRequest,
  TestRun,
} from '../../../src/trunk/types.ts';
import { type ActivityOptions, createQueueActivity, type QueueActivity } from './activity.ts';
import {
  type FailSpec,
  type FakeOperation,
  type FaultKind,
  type FaultRateOptions,
  Faults,
  type LostAnswer,
  type MalformedKind,
  type Quirks,
} from './faults.ts';
import {
  FailingList,
  failingSourceFromPartials,
  generatedFailingSource,
  generatedQuarantinedSource,
  PageTokens,
  quarantinedSourceFromPartials,
  type RowSource,
} from './flaky.ts';
import type { GenerateOptions, WireFailingTest, WireQuarantinedTest } from './generate.ts';
import type { FlakyRepo, HandlerState } from './handler-state.ts';
import { type HistorySeedOptions, type SeededHistory, seedQueueHistory } from './history.ts';
import { createFakeServer, type RecordedRequest } from './server.ts';
import {
  defined,
  findSubmittedPr,
  makeEnqueuedPr,
  makeSubmittedPr,
  makeTestRun,
  type QueueSetup,
  QueueStore,
  queueLabel,
  queueView,
  type RepoInput,
  repoKey,
  toRepo,
} from './state.ts';
import { type V2FakeOperation, V2State } from './v2.ts';
import { FakeWebhooks } from './webhooks.ts';

export type {
  ActivityEvent,
  ActivityEventKind,
  ActivityOptions,
  ActivityRates,
  QueueActivity,
} from './activity.ts';
export { DEFAULT_ACTIVITY_RATES } from './activity.ts';
export type {
  FailSpec,
  FakeOperation,
  FaultKind,
  FaultRateOptions,
  LostAnswer,
  MalformedKind,
  Quirks,
} from './faults.ts';
export { FAULT_KINDS, MALFORMED_KINDS } from './faults.ts';
export type { RowSource } from './flaky.ts';
export type { GenerateOptions, WireFailingTest, WireQuarantinedTest } from './generate.ts';
export { makeFailingTest, makeQuarantinedTest } from './generate.ts';
export type { HistorySeedOptions, SeededHistory, SeededTransition } from './history.ts';
export type { RecordedRequest } from './server.ts';
export { ROUTES } from './server.ts';
export type { QueueSetup, RepoInput } from './state.ts';
export {
  makeEnqueuedPr,
  makeQueue,
  makeSubmittedPr,
  makeTestRun,
  queueKey,
  repoKey,
  toRepo,
} from './state.ts';
export type { V2FakeOperation, V2State, V2Transition } from './v2.ts';
export type { HeaderStyle, SentAttempt, Subscription, WebhookChaos } from './webhooks.ts';
export { FakeWebhooks, newMessageId, newWebhookSecret, signDelivery } from './webhooks.ts';
export { type FakeTestCase, testCaseParts, testStatusChanged } from './webhooks-payloads.ts';

export interface TrunkFakeOptions {
  /** Accepted x-api-token values; default ['test-token']. */
  tokens?: string[];
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Clock for recorded times and default generation windows; default Date.now. */
  now?: () => number;
  /** When set, flaky-test calls with another org_url_slug get 404. */
  orgSlug?: string;
  /** Keep at most this many recorded requests (oldest dropped); default 50,000. */
  maxRecorded?: number;
  /** Queues move on their own, from a seed (activity.ts): steps on a timer with `intervalMs`, else by advance(). */
  activity?: ActivityOptions;
}

export interface TrunkFake {
  /** Base URL without /v1, e.g. http://127.0.0.1:41234 — pass as TRUNK_API_URL. */
  readonly url: string;
  readonly port: number;
  /** Requests received, oldest first (a live array; copy it to keep a snapshot). */
  readonly requests: RecordedRequest[];
  requestsTo(operation: FakeOperation | V2FakeOperation): RecordedRequest[];
  /**
   * The pages of a flaky-test list served for `repo` (answered 200), oldest first: how many pages digests
   * fetched. `paginations` counts the first pages among them (an empty page_token starts a pagination).
   */
  listPages(operation: ListOperation, repo: RepoInput): { pages: RecordedRequest[]; paginations: number };
  clearRequests(): void;
  /**
   * Resolves with the `count`-th answered request to `operation` (counting those already recorded),
   * or rejects after `timeoutMs` (default 5000). For flows where the app calls Trunk after acking.
   */
  waitForRequest(
    operation: FakeOperation,
    opts?: { count?: number; timeoutMs?: number },
  ): Promise<RecordedRequest>;
  /** Stops the server and closes keep-alive sockets; sleeping (delayed) requests are cut off. */
  close(): Promise<void>;
  setTokens(tokens: string[]): void;
  /** The queues' own movement when started with the `activity` option (advance(), events, start/stop). */
  readonly activity: QueueActivity | undefined;
  /** Trunk API v2 over the same queues: its keys, and the histories, orders and estimates a test sets. */
  readonly v2: V2State;
  /** Trunk's webhooks through Svix: subscribe an endpoint; the activity's PR transitions are sent to it. */
  readonly webhooks: FakeWebhooks;

  // ---- merge queue state
  /** Creates (or replaces) a queue; `prs` become enqueuedPullRequests. Returns the getQueue view. */
  addQueue(
    repo: RepoInput,
    branch: string,
    settings?: QueueSetup,
    prs?: Partial<EnqueuedPullRequest>[],
  ): Queue;
  /** The queue as getQueue would return it now (with enqueuedPullRequests), or undefined. */
  queue(repo: RepoInput, branch: string): Queue | undefined;
  /** Changes settings directly, without the API's validation (e.g. state 'switching_modes', or 0 values). */
  patchQueue(repo: RepoInput, branch: string, settings: QueueSetup): Queue;
  removeQueue(repo: RepoInput, branch: string): boolean;
  /** Appends an enqueued PR (creating a default queue if missing). */
  enqueuePr(repo: RepoInput, branch: string, pr?: Partial<EnqueuedPullRequest>): EnqueuedPullRequest;
  dequeuePr(repo: RepoInput, branch: string, prNumber: number): boolean;
  /** A PR getSubmittedPullRequest returns (creating a default queue if missing). Enqueued PRs are found too. */
  addSubmittedPr(repo: RepoInput, branch: string, pr?: Partial<SubmittedPullRequest>): SubmittedPullRequest;
  submittedPr(repo: RepoInput, branch: string, prNumber: number): SubmittedPullRequest | undefined;
  /**
   * Weeks of believable history in a queue (history.ts): concluded PRs v1's listPullRequests lists and whose
   * every transition v2's queue-entry-history serves. Returns the transitions, for ground truths.
   */
  seedHistory(repo: RepoInput, branch: string, opts: HistorySeedOptions): SeededHistory;
  /** A test run getMergeQueueTestingDetails returns (creating a default queue if missing). */
  addTestRun(repo: RepoInput, branch: string, id: string, run?: Partial<TestRun>): TestRun;

  // ---- flaky tests (a repo with tests set, or with a queue, is known; others get 404)
  /** Replaces the repo's failing tests; partial rows are completed with realistic values. */
  setFailingTests(repo: RepoInput, tests: Partial<WireFailingTest>[]): void;
  /** Replaces the repo's failing tests with `count` generated from a seed (lazy: built per page). */
  generateFailingTests(repo: RepoInput, count: number, opts: GenerateOptions): void;
  setQuarantinedTests(repo: RepoInput, tests: Partial<WireQuarantinedTest>[]): void;
  generateQuarantinedTests(repo: RepoInput, count: number, opts: GenerateOptions): void;
  /** The stored rows (all of them, regardless of window), for assertions. */
  failingTests(repo: RepoInput): RowSource<WireFailingTest> | undefined;
  quarantinedTests(repo: RepoInput): RowSource<WireQuarantinedTest> | undefined;

  // ---- faults
  /** Delay every response (number) or some operations' (object, merged); setLatency(0) clears all. */
  setLatency(ms: number | Partial<Record<FakeOperation, number>>): void;
  /** The next n requests (to `operation`, or any) fail with spec.status, optional Retry-After and body. */
  failNext(n: number, spec: FailSpec, operation?: FakeOperation): void;
  /** The next n requests (to `operation`, or any) have their connection destroyed without an answer. */
  dropNext(n: number, operation?: FakeOperation): void;
  /** A fraction 0..1 of requests get a random fault of `kinds` (default all), from a seeded RNG. */
  setFaultRate(rate: number, kinds?: readonly FaultKind[], opts?: FaultRateOptions): void;
  /**
   * The next n requests (to `operation`, or any) are applied, then their answer is lost `how`: 'drop'
   * (socket destroyed), 'hang' (never answered) or a failure status. "Trunk accepted the submit but the
   * response timed out".
   */
  loseAnswerNext(n: number, how: LostAnswer, operation?: FakeOperation): void;
  /** The next n successful responses (to `operation`, or any) have a broken body of `kind`. */
  malformedNext(n: number, kind: MalformedKind, operation?: FakeOperation): void;
  /** Replaces the quirks (pass {} to turn them off). */
  setQuirks(quirks: Quirks): void;
  /** Clears latency, scripted and random faults and quirks. */
  resetFaults(): void;
  /** Forgets all queues, PRs, runs, tests, faults and recorded requests (tokens stay). */
  reset(): void;
}

/** The paginated flaky-test lists. */
export type ListOperation = 'listFailingTests' | 'listQuarantinedTests';

class TrunkFakeImpl implements TrunkFake {
  url = '';
  port = 0;
  requests: RecordedRequest[] = [];
  private acceptedTokens: Set<string>;
  private readonly queues = new QueueStore();
  private readonly flaky = new Map<string, FlakyRepo>();
  private readonly faults = new Faults();
  private readonly abort = new AbortController();
  private readonly now: () => number;
  private readonly maxRecorded: number;
  readonly server;
  readonly activity: QueueActivity | undefined;
  readonly v2: V2State;
  readonly webhooks: FakeWebhooks;

  constructor(opts: TrunkFakeOptions) {
    this.acceptedTokens = new Set(opts.tokens ?? ['test-token']);
    this.now = opts.now ?? Date.now;
    this.maxRecorded = opts.maxRecorded ?? 50_000;
    this.activity = opts.activity ? createQueueActivity(this.queues, this.now, opts.activity) : undefined;
    const state: HandlerState = {
      queues: this.queues,
      flaky: this.flaky,
      tokens: new PageTokens(),
      orgSlug: opts.orgSlug,
      now: this.now,
      loopingPageTokens: () => this.faults.quirks.loopingPageTokens === true,
      prTransition: (record, prNumber, kind) =>
        this.webhooks.fromActivity(
          [
            {
              step: 0,
              queue: queueLabel(record.repo, record.settings.branch),
              kind,
              prNumber,
              at: new Date(this.now()).toISOString(),
            },
          ],
          () => findSubmittedPr(record, prNumber)?.prAuthor,
        ),
    };
    this.v2 = new V2State(this.queues, this.now, () => this.activity?.events ?? []);
    this.webhooks = new FakeWebhooks(this.now);
    this.activity?.listen((events) =>
      this.webhooks.fromActivity(events, (queue, pr) => {
        const [repo = '', branch = 'main'] = queue.split(':');
        const record = this.queues.get(repo, branch);
        return record ? findSubmittedPr(record, pr)?.prAuthor : undefined;
      }),
    );
    this.server = createFakeServer({
      state,
      v2: this.v2,
      faults: this.faults,
      tokens: () => this.acceptedTokens,
      now: this.now,
      closing: this.abort.signal,
      record: (r) => {
        this.requests.push(r);
        if (this.requests.length > this.maxRecorded)
          this.requests.splice(0, this.requests.length - this.maxRecorded);
      },
    });
  }

  requestsTo(operation: FakeOperation | V2FakeOperation): RecordedRequest[] {
    return this.requests.filter((r) => r.operation === operation);
  }

  listPages(operation: ListOperation, repo: RepoInput) {
    const want = repoKey(repo);
    const pages = this.requests.filter((r) => {
      const body = r.body as { repo?: RepoInput } | undefined;
      return r.operation === operation && r.status === 200 && body?.repo && repoKey(body.repo) === want;
    });
    const paginations = pages.filter(
      (r) => !(r.body as { page_query?: { page_token?: string } }).page_query?.page_token,
    ).length;
    return { pages, paginations };
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  async waitForRequest(
    operation: FakeOperation,
    opts: { count?: number; timeoutMs?: number } = {},
  ): Promise<RecordedRequest> {
    const count = opts.count ?? 1;
    const deadline = performance.now() + (opts.timeoutMs ?? 5000);
    for (;;) {
      const done = this.requests.filter((r) => r.operation === operation && r.done);
      const hit = done[count - 1];
      if (hit) return hit;
      if (performance.now() > deadline)
        throw new Error(
          `waitForRequest: ${done.length} of ${count} ${operation} request(s) answered in time`,
        );
      await sleep(10);
    }
  }

  close(): Promise<void> {
    this.activity?.stop();
    this.abort.abort();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  setTokens(tokens: string[]): void {
    this.acceptedTokens = new Set(tokens);
  }

  addQueue(
    repo: RepoInput,
    branch: string,
    settings?: QueueSetup,
    prs?: Partial<EnqueuedPullRequest>[],
  ): Queue {
    const all = [...(settings?.enqueuedPullRequests ?? []), ...(prs ?? [])];
    // Without explicit times, PRs entered the queue a few minutes apart, the first one longest ago.
    const stamped = all.map((p, i) => ({ stateChangedAt: this.ago((all.length - i) * 4), ...defined(p) }));
    const record = this.queues.add(repo, branch, { ...settings, enqueuedPullRequests: undefined }, stamped);
    return queueView(record, true);
  }

  /** ISO time `minutes` before the fake's clock. */
  private ago(minutes: number): string {
    return new Date(this.now() - minutes * 60_000).toISOString();
  }

  queue(repo: RepoInput, branch: string): Queue | undefined {
    const record = this.queues.get(repo, branch);
    return record ? queueView(record, true) : undefined;
  }

  patchQueue(repo: RepoInput, branch: string, settings: QueueSetup): Queue {
    const record = this.queues.get(repo, branch);
    if (!record) throw new Error(`patchQueue: no queue ${queueLabel(repo, branch)}; call addQueue first`);
    const { requiredStatuses, inheritedRequiredStatuses, enqueuedPullRequests, ...rest } = settings;
    for (const [k, v] of Object.entries(rest))
      if (v !== undefined) (record.settings as Record<string, unknown>)[k] = v;
    if (requiredStatuses !== undefined) record.manualRequiredStatuses = [...requiredStatuses];
    if (inheritedRequiredStatuses !== undefined)
      record.inheritedRequiredStatuses = [...inheritedRequiredStatuses];
    if (enqueuedPullRequests !== undefined)
      record.enqueued = enqueuedPullRequests.map((p) => makeEnqueuedPr(p));
    return queueView(record, true);
  }

  removeQueue(repo: RepoInput, branch: string): boolean {
    return this.queues.remove(repo, branch);
  }

  enqueuePr(repo: RepoInput, branch: string, pr: Partial<EnqueuedPullRequest> = {}): EnqueuedPullRequest {
    const made = makeEnqueuedPr({ prBaseBranch: branch, stateChangedAt: this.ago(0), ...defined(pr) });
    this.queues.ensure(repo, branch).enqueued.push(made);
    return { ...made };
  }

  dequeuePr(repo: RepoInput, branch: string, prNumber: number): boolean {
    const record = this.queues.get(repo, branch);
    if (!record) return false;
    const before = record.enqueued.length;
    record.enqueued = record.enqueued.filter((p) => p.prNumber !== prNumber);
    return record.enqueued.length < before;
  }

  addSubmittedPr(
    repo: RepoInput,
    branch: string,
    pr: Partial<SubmittedPullRequest> = {},
  ): SubmittedPullRequest {
    const made = makeSubmittedPr({ prBaseBranch: branch, stateChangedAt: this.ago(2), ...defined(pr) });
    this.queues.ensure(repo, branch).submitted.set(made.prNumber, made);
    return structuredClone(made);
  }

  submittedPr(repo: RepoInput, branch: string, prNumber: number): SubmittedPullRequest | undefined {
    const record = this.queues.get(repo, branch);
    return record ? findSubmittedPr(record, prNumber) : undefined;
  }

  seedHistory(repo: RepoInput, branch: string, opts: HistorySeedOptions): SeededHistory {
    return seedQueueHistory(this.queues.ensure(repo, branch), this.v2, this.now(), opts);
  }

  addTestRun(repo: RepoInput, branch: string, id: string, run: Partial<TestRun> = {}): TestRun {
    const made = makeTestRun({ createdAt: this.ago(5), ...defined(run) }, repo);
    this.queues.ensure(repo, branch).runs.set(id, made);
    return structuredClone(made);
  }

  private flakyRepo(repo: RepoInput): FlakyRepo {
    const key = repoKey(repo);
    let entry = this.flaky.get(key);
    if (!entry) {
      entry = {};
      this.flaky.set(key, entry);
    }
    return entry;
  }

  setFailingTests(repo: RepoInput, tests: Partial<WireFailingTest>[]): void {
    this.flakyRepo(repo).failing = new FailingList(failingSourceFromPartials(toRepo(repo), tests));
  }

  generateFailingTests(repo: RepoInput, count: number, opts: GenerateOptions): void {
    this.flakyRepo(repo).failing = new FailingList(
      generatedFailingSource(toRepo(repo), count, opts, this.now()),
    );
  }

  setQuarantinedTests(repo: RepoInput, tests: Partial<WireQuarantinedTest>[]): void {
    this.flakyRepo(repo).quarantined = quarantinedSourceFromPartials(toRepo(repo), tests);
  }

  generateQuarantinedTests(repo: RepoInput, count: number, opts: GenerateOptions): void {
    this.flakyRepo(repo).quarantined = generatedQuarantinedSource(toRepo(repo), count, opts, this.now());
  }

  failingTests(repo: RepoInput): RowSource<WireFailingTest> | undefined {
    return this.flaky.get(repoKey(repo))?.failing?.source;
  }

  quarantinedTests(repo: RepoInput): RowSource<WireQuarantinedTest> | undefined {
    return this.flaky.get(repoKey(repo))?.quarantined;
  }

  setLatency(ms: number | Partial<Record<FakeOperation, number>>): void {
    this.faults.setLatency(ms);
  }

  failNext(n: number, spec: FailSpec, operation?: FakeOperation): void {
    this.faults.failNext(n, spec, operation);
  }

  dropNext(n: number, operation?: FakeOperation): void {
    this.faults.failNext(n, 'drop', operation);
  }

  setFaultRate(rate: number, kinds?: readonly FaultKind[], opts?: FaultRateOptions): void {
    this.faults.setFaultRate(rate, kinds, opts);
  }

  malformedNext(n: number, kind: MalformedKind, operation?: FakeOperation): void {
    this.faults.malformedNext(n, kind, operation);
  }

  loseAnswerNext(n: number, how: LostAnswer, operation?: FakeOperation): void {
    this.faults.loseAnswerNext(n, how, operation);
  }

  setQuirks(quirks: Quirks): void {
    this.faults.quirks = { ...quirks };
  }

  resetFaults(): void {
    this.faults.reset();
  }

  reset(): void {
    this.faults.reset();
    this.queues.queues.clear();
    this.flaky.clear();
    this.v2.reset();
    this.clearRequests();
    this.activity?.reset();
  }
}

/** Starts the fake on 127.0.0.1 (port 0 = any free port by default). */
export async function startTrunkFake(opts: TrunkFakeOptions = {}): Promise<TrunkFake> {
  const fake = new TrunkFakeImpl(opts);
  const server = fake.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  fake.port = port;
  fake.url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return fake;
}

export type { Repo };
