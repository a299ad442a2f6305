/** Wire answers shaped like Trunk's (contract + OpenAPI), fresh objects each call so tests may mutate them. */

export function enqueuedPr(n: number) {
  return {
    id: `pr-${n}`,
    state: 'testing',
    stateChangedAt: '2026-11-20T10:00:00Z',
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    prNumber: n,
    prTitle: `Change ${n}`,
    prSha: `sha${n}`,
    prBaseBranch: 'main',
    prAuthor: 'octocat',
  };
}

export function queueSettings() {
  return {
    state: 'running',
    branch: 'main',
    concurrency: 3,
    testingTimeoutMinutes: 60,
    mode: 'parallel',
    canOptimisticallyMerge: true,
    pendingFailureDepth: 2,
    batch: false,
    batchingMaxWaitTimeMinutes: 5,
    batchingMinSize: 2,
    createPrsForTestingBranches: true,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: 2,
    requiredStatuses: ['ci/build'],
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
  };
}

export function queueWithPrs(count = 3) {
  return {
    ...queueSettings(),
    enqueuedPullRequests: Array.from({ length: count }, (_, i) => enqueuedPr(100 + i)),
  };
}

export function submittedPr() {
  return {
    id: 'spr-1',
    state: 'pending',
    readiness: {
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      hasImpactedTargets: false,
      gitHubMergeability: 'mergeable',
    },
    stateChangedAt: '2026-11-20T10:00:00Z',
    priorityValue: 10,
    priorityName: 'high',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    prNumber: 1234,
    prTitle: 'Fix the thing',
    prSha: 'abc123',
    prBaseBranch: 'main',
    prAuthor: 'octocat',
  };
}

export function testRun() {
  return {
    requiredStatuses: ['ci/build'],
    requiredStatusesSource: 'merge_instance',
    testBranch: 'trunk-merge/main/1',
    testBranchSha: 'def456',
    createdAt: '2026-11-20T10:05:00Z',
    status: 'in_progress',
    checkSuites: [
      {
        checkRuns: [
          { name: 'build', url: 'https://ci.example/1', status: 'COMPLETED', conclusion: 'SUCCESS' },
        ],
      },
    ],
    statusChecks: [{ context: 'ci/build', url: 'https://ci.example/2', state: 'PENDING' }],
    testedPullRequests: [
      { prNumber: 1234, prUrl: 'https://github.com/acme/web/pull/1234', title: 'Fix the thing' },
    ],
    dependentPrs: [1200],
  };
}

export function page(next: string, index = 0, totalRows = 0) {
  return {
    total_rows: totalRows,
    total_pages: 1,
    next_page_token: next,
    prev_page_token: '',
    last_page_token: '',
    page_index: index,
  };
}

export function failingTest(i: number) {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    repository: { html_url: 'https://github.com/acme/web' },
    html_url: `https://app.trunk.io/acme/flaky-tests/test/${i}`,
    name: `test ${i}`,
    variant: '',
    status: { value: 'flaky', reason: 'fails sometimes', timestamp: '2026-11-20T10:00:00Z' },
    most_common_failures: [
      { summary: 'timeout', occurrence_count: 3, last_occurrence: '2026-11-20T09:00:00Z' },
    ],
    failure_rate_last_7d: 0.1,
    failure_rate_last_24h: 0.2,
    codeowners: ['@acme/web'],
    pull_requests_impacted_last_7d: 4,
    quarantined: false,
    file_path: 'src/a.test.ts',
    parent: 'suite',
    classname: 'A',
    ticket: { html_url: 'https://linear.app/acme/issue/WEB-1' },
  };
}

export function quarantinedTest(i: number) {
  return {
    name: `q ${i}`,
    parent: 'suite',
    file: 'src/q.test.ts',
    classname: 'Q',
    status: 'FLAKY',
    codeowners: ['@acme/web'],
    quarantine_setting: 'AUTO_QUARANTINE',
    quarantined_at: '2026-11-19T10:00:00Z',
    status_last_updated_at: '2026-11-19T10:00:00Z',
    test_case_id: `case-${i}`,
    variant: '',
  };
}
