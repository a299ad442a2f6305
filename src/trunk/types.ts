/**
 * The Trunk API v1 contract (docs/trunk-api-v1.md) as TypeScript types.
 * Field names follow the wire exactly, so nothing is lost or renamed between the API and its callers.
 * Response enums are open (`Known | (string & {})`): the service may answer values we do not know yet,
 * and those are kept and shown, never a crash. Response values are normalised to lowercase.
 */

export type Open<T extends string> = T | (string & {});

export interface Repo {
  host: string;
  owner: string;
  name: string;
}

// ---- Merge queue -------------------------------------------------------------------------------------

export const QUEUE_STATES_SETTABLE = ['running', 'paused', 'draining'] as const;
export type SettableQueueState = (typeof QUEUE_STATES_SETTABLE)[number];
export type QueueState = Open<SettableQueueState | 'switching_modes'>;
/**
 * The one map between the queue changes people ask for by name (commands, buttons, Workflow Builder steps,
 * freeze windows, the audit's actions) and the state each leaves the queue in.
 */
export const STATE_AFTER_CHANGE = { pause: 'paused', drain: 'draining', resume: 'running' } as const;
export type QueueStateChange = keyof typeof STATE_AFTER_CHANGE;
export const CHANGE_FOR_STATE = {
  paused: 'pause',
  draining: 'drain',
  running: 'resume',
} as const satisfies Record<SettableQueueState, QueueStateChange>;
/** The state a change named in the audit leaves the queue in; undefined for other actions. */
export function stateAfterChange(action: string): SettableQueueState | undefined {
  return Object.hasOwn(STATE_AFTER_CHANGE, action)
    ? STATE_AFTER_CHANGE[action as QueueStateChange]
    : undefined;
}

export const QUEUE_MODES = ['single', 'parallel'] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];

export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];

export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];

export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

/** Integer settings of updateQueue: 1..4294967295 when sent; may read 0 (meaning off). */
export const QUEUE_INT_SETTINGS = [
  'concurrency',
  'bisectionConcurrency',
  'testingTimeoutMinutes',
  'pendingFailureDepth',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
] as const;
export type QueueIntSetting = (typeof QUEUE_INT_SETTINGS)[number];
export const QUEUE_INT_MIN = 1;
export const QUEUE_INT_MAX = 4294967295;

export const QUEUE_BOOL_SETTINGS = [
  'canOptimisticallyMerge',
  'batch',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
] as const;
export type QueueBoolSetting = (typeof QUEUE_BOOL_SETTINGS)[number];

/** updateQueue fields other than the queue's address, in the order the client sends them. */
export const UPDATE_QUEUE_SETTINGS = [
  'state',
  ...QUEUE_INT_SETTINGS,
  ...QUEUE_BOOL_SETTINGS,
  'mode',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
  'requiredStatuses',
  'deleteRequiredStatuses',
] as const;

/** Priorities: lower number = higher priority. */
export const PRIORITIES = { urgent: 0, high: 10, medium: 100, low: 200, none: 255 } as const;

export interface EnqueuedPullRequest {
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  skipTheLine: boolean;
  noBatch: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  id: string;
  usedDefaultPriorityName: string;
  /** Present in some deployments' answers (OpenAPI), not in the contract. */
  state?: Open<PullRequestState>;
}

/** The settings record returned by getQueue and updateQueue. */
export interface Queue {
  state: QueueState;
  branch: string;
  concurrency: number;
  testingTimeoutMinutes: number;
  mode: Open<QueueMode>;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  bisectionConcurrency: number;
  /** `null` on the wire is read as []. */
  requiredStatuses: string[];
  directMergeMode: Open<DirectMergeMode>;
  optimizationMode: Open<OptimizationMode>;
  mergeMethod: Open<MergeMethod>;
  /** getQueue only. */
  enqueuedPullRequests?: EnqueuedPullRequest[];
}

export interface QueueAddress {
  repo: Repo;
  targetBranch: string;
}

export interface GetQueueRequest extends QueueAddress {}

export interface UpdateQueueRequest extends QueueAddress {
  state?: SettableQueueState;
  concurrency?: number;
  bisectionConcurrency?: number;
  testingTimeoutMinutes?: number;
  pendingFailureDepth?: number;
  canOptimisticallyMerge?: boolean;
  batch?: boolean;
  batchingMaxWaitTimeMinutes?: number;
  batchingMinSize?: number;
  mode?: QueueMode;
  commentsEnabled?: boolean;
  commandsEnabled?: boolean;
  createPrsForTestingBranches?: boolean;
  directMergeMode?: DirectMergeMode;
  optimizationMode?: OptimizationMode;
  mergeMethod?: MergeMethod;
  statusCheckEnabled?: boolean;
  requiredStatuses?: string[];
  deleteRequiredStatuses?: boolean;
}

export type PullRequestState =
  | 'not_ready'
  | 'pending'
  | 'testing'
  | 'tests_passed'
  | 'merged'
  | 'failed'
  | 'cancelled'
  | 'pending_failure';

export interface Readiness {
  requiresImpactedTargets?: boolean;
  doesBaseBranchMatch?: boolean;
  hasImpactedTargets?: boolean;
  /** The provider's mergeability signal; `mergeable` is the passing value. Field name per OpenAPI. */
  gitHubMergeability?: Open<'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable'>;
}

export interface SubmittedPullRequest {
  stateChangedAt: string;
  priorityValue: number;
  priorityName: string;
  skipTheLine: boolean;
  forceEnqueued: boolean;
  isCurrentlySubmittedToQueue: boolean;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  id?: string;
  state?: Open<PullRequestState>;
  readiness?: Readiness;
  usedDefaultPriorityName?: string;
}

export interface GetSubmittedPullRequestRequest extends QueueAddress {
  pr: { number: number };
}

/** Every pull-request state of the contract, in the order a PR usually passes through them. */
export const PULL_REQUEST_STATES = [
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'merged',
  'failed',
  'cancelled',
  'pending_failure',
] as const satisfies readonly PullRequestState[];

/** States of a PR that is in the queue; the others (merged, failed, cancelled) are concluded. */
export const PULL_REQUEST_STATES_IN_QUEUE: ReadonlySet<string> = new Set<PullRequestState>([
  'not_ready',
  'pending',
  'testing',
  'tests_passed',
  'pending_failure',
]);

export type PriorityName = keyof typeof PRIORITIES;

/** One PR of one queue: the address of submitPullRequest, cancelPullRequest and restartTestsOnPullRequest. */
export interface PullRequestRequest extends QueueAddress {
  pr: { number: number };
}

export interface SubmitPullRequestRequest extends PullRequestRequest {
  /**
   * A name (urgent 0, high 10, medium 100, low 200, none 255; any case) or a whole number 0..4294967295;
   * lower is sooner. Absent: the queue's default. Typed open because it comes from what people type; any
   * other value is refused before sending.
   */
  priority?: PriorityName | (string & {}) | number;
  /** Test this PR on its own even when the queue batches. */
  noBatch?: boolean;
}

/**
 * How a submit, cancel or restart ended. Trunk's answer carries nothing but "OK", so this says how the
 * client knows the change happened.
 */
export interface PullRequestChange {
  /**
   * `answer`: Trunk said OK. `read_back`: Trunk's answer was lost (timeout, 5xx, network) and reading
   * the PR showed the change had been applied, so it was not sent again.
   */
  confirmedBy: 'answer' | 'read_back';
  /** How many times the request went out: 2 only when the first was lost and the PR showed it not applied. */
  sent: number;
  /** The PR as read back after a lost answer (absent when Trunk answered the first time). */
  pullRequest?: SubmittedPullRequest;
}

export interface ListPullRequestsRequest extends QueueAddress {
  /** Only PRs in this state; absent: every state. */
  state?: PullRequestState;
  /** ISO 8601 date-time with a zone: only PRs that concluded (merged, failed, cancelled) since then. */
  since?: string;
  /** `nextCursor` of the previous page; absent for the first page. */
  cursor?: string;
  /** PRs per page, 1..100; Trunk's default is 50. */
  take?: number;
}

/** One page of listPullRequests. Rows have the fields of an enqueued PR (`state` included when sent). */
export interface PullRequestsPage {
  pullRequests: EnqueuedPullRequest[];
  /** "" when there are no more pages (Trunk leaves it out). */
  nextCursor: string;
}

export type TestRunStatus = 'in_progress' | 'succeeded' | 'failed' | 'cancelled';
export type RequiredStatusesSource = 'trunk_config' | 'repo_provider_branch_protection' | 'merge_instance';

export interface TestRun {
  requiredStatuses: string[];
  testBranch: string;
  testBranchSha: string;
  checkSuites: Array<{
    checkRuns: Array<{
      name: string;
      url: string;
      /** OpenAPI extra (read lowercase): queued, in_progress, completed. */
      status?: Open<'queued' | 'in_progress' | 'completed'>;
      /** OpenAPI extra (read lowercase): success, failure, cancelled, timed_out, … */
      conclusion?: Open<
        | 'action_required'
        | 'cancelled'
        | 'failure'
        | 'neutral'
        | 'success'
        | 'skipped'
        | 'stale'
        | 'timed_out'
      >;
    }>;
  }>;
  /** `url` reads "" when the answer has none (OpenAPI does not require it). */
  statusChecks: Array<{
    context: string;
    url: string;
    state?: Open<'error' | 'failure' | 'pending' | 'success'>;
  }>;
  testedPullRequests: Array<{ prNumber: number; prUrl: string; title: string }>;
  requiredStatusesSource?: Open<RequiredStatusesSource>;
  createdAt?: string;
  status?: Open<TestRunStatus>;
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
  dependentPrs?: number[];
}

export interface GetTestRunRequest extends QueueAddress {
  testRunId: string;
}

// ---- Flaky tests ---------------------------------------------------------------------------------

export interface PageQuery {
  /** 1..100 */
  page_size: number;
  /** "" for the first page. */
  page_token: string;
}

export interface Page {
  total_rows: number;
  total_pages: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
  page_index: number;
}

export interface FailingTest {
  id: string;
  repository: { html_url: string };
  html_url: string;
  name: string;
  variant: string;
  /** `value` is an OpenAPI extra (read lowercase). */
  status: { reason: string; timestamp: string; value?: Open<'healthy' | 'flaky' | 'broken'> };
  most_common_failures: Array<{ summary: string; occurrence_count: number; last_occurrence: string }>;
  /** Fraction 0..1. */
  failure_rate_last_7d: number;
  /** Fraction 0..1. */
  failure_rate_last_24h: number;
  codeowners: string[];
  pull_requests_impacted_last_7d: number;
  quarantined: boolean;
  file_path: string;
  parent: string;
  classname: string;
  /** Absent or null on the wire when the test has no ticket. */
  ticket?: { html_url: string };
}

export interface QuarantinedTest {
  name: string;
  parent: string;
  file: string;
  classname: string;
  codeowners: string[];
  quarantined_at: string;
  status_last_updated_at: string;
  test_case_id: string;
  variant: string;
  /** OpenAPI extras (read lowercase). `parent`, `file`, `classname` read "" when the answer has null. */
  status?: Open<'healthy' | 'flaky' | 'broken'>;
  quarantine_setting?: Open<'always_quarantine' | 'auto_quarantine'>;
}

export interface ListFailingTestsRequest {
  repo: Repo;
  org_url_slug: string;
  /** ISO 8601, inclusive. */
  start_time: string;
  /** ISO 8601, exclusive; within 7 days of start_time. */
  end_time: string;
  page_query: PageQuery;
}

export interface ListQuarantinedTestsRequest {
  repo: Repo;
  org_url_slug: string;
  page_query: PageQuery;
}

export interface FailingTestsPage {
  tests: FailingTest[];
  page: Page;
}

export interface QuarantinedTestsPage {
  quarantined_tests: QuarantinedTest[];
  page: Page;
}
