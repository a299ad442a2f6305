/**
 * Response schemas (zod), tolerant where the real service varies and strict where the contract breaks:
 * - unknown fields are dropped (zod objects strip them);
 * - enums are read case-insensitively, normalised to lowercase, and unknown values kept as strings;
 * - `null` lists read as []; integer settings may read 0 (meaning off);
 * - fields the contract lists but the OpenAPI document does not require read "" when absent or null;
 * - a required field missing or of the wrong type fails, and `formatIssuePath` names it.
 * Exported schemas are AOT-compiled (`z.compile`): a valid answer takes generated code (a 100-test page
 * validates ~5× faster, and pages are on the digest's critical path); an invalid one falls back to
 * zod's runtime parser, so issues and their paths are exactly the runtime's.
 */
import { z } from 'zod';
import type {
  EnqueuedPullRequest,
  FailingTest,
  FailingTestsPage,
  Page,
  PullRequestsPage,
  QuarantinedTest,
  QuarantinedTestsPage,
  Queue,
  SubmittedPullRequest,
  TestRun,
} from './types.ts';

/** Any string, read as lowercase: known values match our constants, unknown ones are kept. */
const openEnum = z.string().transform((s) => s.toLowerCase());

/** A required list; `null` reads as []. */
function list<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullable()
    .transform((v) => v ?? []);
}

/** An optional list; `null` reads as [], absent stays absent. */
function optionalList<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .nullish()
    .transform((v) => (v === null ? [] : v));
}

/** A string the contract names but the OpenAPI document does not require: absent or null reads "". */
const lenientString = z
  .string()
  .nullish()
  .transform((v) => v ?? '');

// ---- Merge queue -------------------------------------------------------------------------------------

const enqueuedPullRequest = z.object({
  stateChangedAt: z.string(),
  priorityValue: z.number(),
  priorityName: z.string(),
  skipTheLine: z.boolean(),
  noBatch: z.boolean(),
  prNumber: z.number(),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
  id: lenientString,
  usedDefaultPriorityName: lenientString,
  state: openEnum.optional(),
}) satisfies z.ZodType<EnqueuedPullRequest>;

const queueSettings = z.object({
  state: openEnum,
  branch: z.string(),
  concurrency: z.number(),
  testingTimeoutMinutes: z.number(),
  mode: openEnum,
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.number(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.number(),
  batchingMinSize: z.number(),
  createPrsForTestingBranches: z.boolean(),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  bisectionConcurrency: z.number(),
  requiredStatuses: list(z.string()),
  directMergeMode: openEnum,
  optimizationMode: openEnum,
  mergeMethod: openEnum,
  // Not part of updateQueue's answer; kept when a deployment sends it anyway.
  enqueuedPullRequests: optionalList(enqueuedPullRequest),
});

/** updateQueue's answer: the settings record. */
export const queueSettingsSchema: z.ZodType<Queue> = z.compile(queueSettings);

/** getQueue's answer: the settings record with the enqueued PRs (required; null reads as []). */
export const queueSchema: z.ZodType<Queue & { enqueuedPullRequests: EnqueuedPullRequest[] }> = z.compile(
  queueSettings.extend({ enqueuedPullRequests: list(enqueuedPullRequest) }),
);

export const submittedPullRequestSchema: z.ZodType<SubmittedPullRequest> = z.compile(
  z.object({
    stateChangedAt: z.string(),
    priorityValue: z.number(),
    priorityName: z.string(),
    skipTheLine: z.boolean(),
    forceEnqueued: z.boolean(),
    isCurrentlySubmittedToQueue: z.boolean(),
    prNumber: z.number(),
    prTitle: z.string(),
    prSha: z.string(),
    prBaseBranch: z.string(),
    prAuthor: z.string(),
    id: z.string().optional(),
    state: openEnum.optional(),
    readiness: z
      .object({
        requiresImpactedTargets: z.boolean().optional(),
        doesBaseBranchMatch: z.boolean().optional(),
        hasImpactedTargets: z.boolean().optional(),
        gitHubMergeability: openEnum.optional(),
      })
      .nullish()
      .transform((v) => v ?? undefined),
    usedDefaultPriorityName: z.string().optional(),
  }),
);

/**
 * listPullRequests' answer. Rows have exactly an enqueued PR's fields, so they are read by the same
 * schema; a left-out or null `nextCursor` (the last page) reads "".
 */
export const pullRequestsPageSchema: z.ZodType<PullRequestsPage> = z.compile(
  z.object({ pullRequests: list(enqueuedPullRequest), nextCursor: lenientString }),
);

export const testRunSchema: z.ZodType<TestRun> = z.compile(
  z.object({
    requiredStatuses: list(z.string()),
    testBranch: z.string(),
    testBranchSha: z.string(),
    checkSuites: list(
      z.object({
        checkRuns: list(
          z.object({
            name: z.string(),
            url: lenientString,
            status: openEnum.optional(),
            conclusion: openEnum.optional(),
          }),
        ),
      }),
    ),
    statusChecks: list(z.object({ context: z.string(), url: lenientString, state: openEnum.optional() })),
    testedPullRequests: list(z.object({ prNumber: z.number(), prUrl: z.string(), title: z.string() })),
    requiredStatusesSource: openEnum.optional(),
    createdAt: z.string().optional(),
    status: openEnum.optional(),
    impactedTargets: optionalList(z.string()),
    impactedTargetsForTestedPrs: optionalList(z.string()),
    dependentPrs: optionalList(z.number()),
  }),
);

// ---- Flaky tests -------------------------------------------------------------------------------------

const page = z.object({
  total_rows: z.number(),
  total_pages: z.number(),
  next_page_token: z.string(),
  prev_page_token: lenientString,
  last_page_token: lenientString,
  page_index: z.number(),
}) satisfies z.ZodType<Page>;

const failingTest = z
  .object({
    id: z.string(),
    repository: z.object({ html_url: z.string() }),
    html_url: z.string(),
    name: z.string(),
    variant: lenientString,
    status: z.object({ reason: lenientString, timestamp: z.string(), value: openEnum.optional() }),
    most_common_failures: list(
      z.object({ summary: z.string(), occurrence_count: z.number(), last_occurrence: lenientString }),
    ),
    failure_rate_last_7d: z.number(),
    failure_rate_last_24h: z.number(),
    codeowners: list(z.string()),
    pull_requests_impacted_last_7d: z.number(),
    quarantined: z.boolean(),
    file_path: lenientString,
    parent: lenientString,
    classname: lenientString,
    ticket: z.object({ html_url: z.string() }).nullish(),
  })
  .transform(({ ticket, ...rest }): FailingTest => (ticket ? { ...rest, ticket } : rest));

export const failingTestsPageSchema: z.ZodType<FailingTestsPage> = z.compile(
  z.object({ tests: list(failingTest), page }),
);

const quarantinedTest = z.object({
  name: z.string(),
  parent: lenientString,
  file: lenientString,
  classname: lenientString,
  codeowners: list(z.string()),
  quarantined_at: z.string(),
  status_last_updated_at: lenientString,
  test_case_id: z.string(),
  variant: lenientString,
  status: openEnum.optional(),
  quarantine_setting: openEnum.optional(),
}) satisfies z.ZodType<QuarantinedTest>;

export const quarantinedTestsPageSchema: z.ZodType<QuarantinedTestsPage> = z.compile(
  z.object({ quarantined_tests: list(quarantinedTest), page }),
);

/** `['enqueuedPullRequests', 2, 'prNumber']` → `enqueuedPullRequests[2].prNumber`; [] → `(body)`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(body)' : out;
}
