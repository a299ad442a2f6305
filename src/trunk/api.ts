/**
 * What callers (queue, digest, slack) may rely on from the Trunk client. The implementation lives in
 * client.ts; tests and the sandbox may substitute anything with this shape.
 */
import type {
  FailingTestsPage,
  GetQueueRequest,
  GetSubmittedPullRequestRequest,
  GetTestRunRequest,
  ListFailingTestsRequest,
  ListPullRequestsRequest,
  ListQuarantinedTestsRequest,
  PullRequestChange,
  PullRequestRequest,
  PullRequestsPage,
  QuarantinedTestsPage,
  Queue,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
  TestRun,
  UpdateQueueRequest,
} from './types.ts';

export interface CallOptions {
  /** Total time budget for the call including retries, in ms. Defaults to the client's (30 s). */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** A read that is the first step of a person's change: it waits in line with changes (budget.ts). */
  forChange?: boolean;
}

export interface PaginateOptions extends CallOptions {
  /** Rows per page, 1..100; default 100. */
  pageSize?: number;
  /** Stop with an error after this many pages; default 1000. */
  maxPages?: number;
  /** Deadline for each page request (the overall iteration has none unless signal is given). */
}

export interface TrunkApi {
  getQueue(req: GetQueueRequest, opts?: CallOptions): Promise<Queue>;
  updateQueue(req: UpdateQueueRequest, opts?: CallOptions): Promise<Queue>;
  getSubmittedPullRequest(
    req: GetSubmittedPullRequestRequest,
    opts?: CallOptions,
  ): Promise<SubmittedPullRequest>;
  getMergeQueueTestingDetails(req: GetTestRunRequest, opts?: CallOptions): Promise<TestRun>;
  listFailingTests(req: ListFailingTestsRequest, opts?: CallOptions): Promise<FailingTestsPage>;
  listQuarantinedTests(req: ListQuarantinedTestsRequest, opts?: CallOptions): Promise<QuarantinedTestsPage>;
  /** Every page in order, following next_page_token until it is "". */
  failingTestPages(
    req: Omit<ListFailingTestsRequest, 'page_query'>,
    opts?: PaginateOptions,
  ): AsyncGenerator<FailingTestsPage, void, undefined>;
  quarantinedTestPages(
    req: Omit<ListQuarantinedTestsRequest, 'page_query'>,
    opts?: PaginateOptions,
  ): AsyncGenerator<QuarantinedTestsPage, void, undefined>;
  /**
   * Puts a PR in the queue. Not idempotent: a lost answer (timeout, 5xx, network) is settled by reading
   * the PR first; it is sent a second time only when the PR is not in the queue.
   */
  submitPullRequest(req: SubmitPullRequestRequest, opts?: CallOptions): Promise<PullRequestChange>;
  /** Takes a PR out of the queue; a lost answer is settled by reading the PR, like submit. */
  cancelPullRequest(req: PullRequestRequest, opts?: CallOptions): Promise<PullRequestChange>;
  /**
   * Restarts a PR's tests. Sent once (429 aside): the PR's state cannot tell a restart that happened from
   * one that did not, so a lost answer is reported, never repeated.
   */
  restartTestsOnPullRequest(req: PullRequestRequest, opts?: CallOptions): Promise<PullRequestChange>;
  listPullRequests(req: ListPullRequestsRequest, opts?: CallOptions): Promise<PullRequestsPage>;
  /** Every page in order, following nextCursor until it is absent (or repeats, which is an error). */
  pullRequestPages(
    req: Omit<ListPullRequestsRequest, 'cursor' | 'take'>,
    opts?: PaginateOptions,
  ): AsyncGenerator<PullRequestsPage, void, undefined>;
}

/** Name of each operation, for logs and metrics labels. */
export type TrunkOperation =
  | 'getQueue'
  | 'updateQueue'
  | 'getSubmittedPullRequest'
  | 'getMergeQueueTestingDetails'
  | 'listFailingTests'
  | 'listQuarantinedTests'
  | 'submitPullRequest'
  | 'cancelPullRequest'
  | 'restartTestsOnPullRequest'
  | 'listPullRequests';

/** Operations that change something at Trunk and are not safe to repeat blindly. */
export const PULL_REQUEST_WRITES: ReadonlySet<TrunkOperation> = new Set<TrunkOperation>([
  'submitPullRequest',
  'cancelPullRequest',
  'restartTestsOnPullRequest',
]);

/** A workspace's Trunk access: the client for its token and its organization slug. */
export interface WorkspaceTrunk {
  api: TrunkApi;
  orgSlug: string;
}
