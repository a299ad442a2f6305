/**
 * Believable data for the sandbox's Trunk fake: three repos, queues in every state, enqueued PRs of every
 * priority, submitted PRs that are and are not ready (and why), test runs with checks, and hundreds of
 * failing and quarantined tests with owners and tickets. Times are relative to `now`, so the sandbox reads
 * like a live organisation whenever it is started.
 */
import type { EnqueuedPullRequest, Queue, SubmittedPullRequest, TestRun } from '../../src/trunk/types.ts';

/** The part of the Trunk fake the seed uses (dev/fakes/trunk/index.ts). */
export interface SeedableTrunk {
  addQueue(
    repo: string,
    branch: string,
    settings?: Partial<Queue>,
    prs?: Partial<EnqueuedPullRequest>[],
  ): unknown;
  addSubmittedPr(repo: string, branch: string, pr: Partial<SubmittedPullRequest>): unknown;
  addTestRun(repo: string, branch: string, id: string, run: Partial<TestRun>): unknown;
  generateFailingTests(repo: string, count: number, opts: { seed: number; orgSlug?: string }): unknown;
  generateQuarantinedTests(repo: string, count: number, opts: { seed: number; orgSlug?: string }): unknown;
}

export const SANDBOX_ORG = 'acme';
/** Where `/mergequeue status` looks when no target is given. */
export const SANDBOX_DEFAULT_REPO = 'acme/web:main';

/** The ids the page suggests (`pr 4812`, `run tr_7f3a9c21`); the seed guarantees they exist. */
export const SEEDED = {
  readyPr: 4812,
  /** The operator's own PR, testing in acme/web:main (see failOperatorPr). */
  operatorPr: 4821,
  blockedPr: 4815,
  testRun: 'tr_7f3a9c21',
  failedRun: 'tr_5b2e0d14',
  /** Kicked out of acme/web:main: put back in line by a failure ahead, then bisected, then failed (why). */
  kickedPr: 4799,
  /** Failing, held behind the PRs ahead of it (why). */
  heldPr: 4803,
  /** Waiting in line, with an estimate (eta). */
  etaPr: 4816,
} as const;

interface PrSpec {
  n: number;
  title: string;
  author: string;
  priority: keyof typeof PRIORITY_VALUES;
  state: string;
  minutesAgo: number;
  skip?: boolean;
  noBatch?: boolean;
  defaulted?: boolean;
}

const PRIORITY_VALUES = { urgent: 0, high: 10, medium: 100, low: 200, none: 255 } as const;

const WEB_PRS: PrSpec[] = [
  {
    n: 4807,
    title: 'Hotfix: double charge on retried card payments',
    author: 'priya-n',
    priority: 'urgent',
    state: 'testing',
    minutesAgo: 6,
    skip: true,
  },
  {
    n: 4812,
    title: 'Checkout: show tax breakdown before payment',
    author: 'mara-k',
    priority: 'high',
    state: 'testing',
    minutesAgo: 11,
  },
  {
    n: 4809,
    title: 'Search: debounce autocomplete requests',
    author: 'devon',
    priority: 'medium',
    state: 'tests_passed',
    minutesAgo: 19,
    defaulted: true,
  },
  {
    n: 4803,
    title: 'Migrate session store to Redis 7',
    author: 'li-wei',
    priority: 'medium',
    state: 'pending_failure',
    minutesAgo: 24,
    defaulted: true,
  },
  {
    n: 4816,
    title: 'Billing: prorate seat changes mid-cycle',
    author: 'sam-ortiz',
    priority: 'medium',
    state: 'pending',
    minutesAgo: 3,
    defaulted: true,
  },
  {
    n: 4818,
    title: 'Bump @aws-sdk/client-s3 from 3.701.0 to 3.712.0',
    author: 'dependabot[bot]',
    priority: 'low',
    state: 'pending',
    minutesAgo: 2,
    noBatch: true,
  },
  {
    n: 4798,
    title: 'Docs: queue runbook for incident commanders',
    author: 'jo-abara',
    priority: 'none',
    state: 'pending',
    minutesAgo: 41,
  },
  {
    n: 4821,
    title: 'Checkout: retry the 3-D Secure challenge once on timeout',
    author: 'maya-chen',
    priority: 'medium',
    state: 'testing',
    minutesAgo: 4,
  },
];

const RELEASE_PRS: PrSpec[] = [
  {
    n: 4790,
    title: 'Backport: fix refund rounding for JPY',
    author: 'priya-n',
    priority: 'high',
    state: 'pending',
    minutesAgo: 52,
  },
  {
    n: 4794,
    title: 'Backport: pin OpenSSL 3.0.15 in the base image',
    author: 'li-wei',
    priority: 'urgent',
    state: 'pending',
    minutesAgo: 37,
  },
];

const API_PRS: PrSpec[] = [
  {
    n: 2231,
    title: 'Rate limiter: per-tenant burst allowance',
    author: 'devon',
    priority: 'high',
    state: 'testing',
    minutesAgo: 8,
  },
  {
    n: 2228,
    title: 'Webhooks: sign payloads with ed25519',
    author: 'mara-k',
    priority: 'medium',
    state: 'testing',
    minutesAgo: 14,
    defaulted: true,
  },
  {
    n: 2235,
    title: 'Drop the v1 invoices endpoint',
    author: 'jo-abara',
    priority: 'low',
    state: 'pending',
    minutesAgo: 5,
  },
];

function sha(n: number, salt: string): string {
  let x = n * 2654435761 + salt.length * 97;
  let out = '';
  while (out.length < 40) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    out += x.toString(16).padStart(8, '0');
  }
  return out.slice(0, 40);
}

function enqueued(spec: PrSpec, branch: string, now: number): Partial<EnqueuedPullRequest> {
  return {
    id: `mq_${spec.n}`,
    prNumber: spec.n,
    prTitle: spec.title,
    prAuthor: spec.author,
    prBaseBranch: branch,
    prSha: sha(spec.n, branch),
    priorityName: spec.priority,
    priorityValue: PRIORITY_VALUES[spec.priority],
    usedDefaultPriorityName: spec.defaulted ? 'medium' : spec.priority,
    skipTheLine: spec.skip ?? false,
    noBatch: spec.noBatch ?? false,
    state: spec.state,
    stateChangedAt: new Date(now - spec.minutesAgo * 60_000).toISOString(),
  };
}

const gh = (repo: string, path: string) => `https://github.com/${repo}/${path}`;

/** Fills the fake. `now` in epoch ms. */
export function seedTrunk(trunk: SeedableTrunk, now: number = Date.now()): void {
  const iso = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();

  // acme/web:main — busy and healthy: parallel mode, batching, every priority in the queue.
  trunk.addQueue(
    'acme/web',
    'main',
    {
      state: 'running',
      mode: 'parallel',
      concurrency: 4,
      bisectionConcurrency: 2,
      testingTimeoutMinutes: 90,
      pendingFailureDepth: 2,
      canOptimisticallyMerge: true,
      batch: true,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 2,
      requiredStatuses: ['ci/build', 'ci/unit', 'ci/e2e', 'security/snyk'],
      mergeMethod: 'squash',
      optimizationMode: 'bisection_skip_redundant_tests',
    },
    WEB_PRS.map((p) => enqueued(p, 'main', now)),
  );
  // A release branch paused for the release freeze.
  trunk.addQueue(
    'acme/web',
    'release/2026.11',
    { state: 'paused', mode: 'single', concurrency: 1, requiredStatuses: ['ci/build', 'ci/unit'] },
    RELEASE_PRS.map((p) => enqueued(p, 'release/2026.11', now)),
  );
  // acme/api:main — draining ahead of a database migration.
  trunk.addQueue(
    'acme/api',
    'main',
    {
      state: 'draining',
      mode: 'parallel',
      concurrency: 2,
      testingTimeoutMinutes: 45,
      requiredStatuses: ['build', 'test (ubuntu-24.04)', 'test (macos-14)'],
      mergeMethod: 'merge_commit',
    },
    API_PRS.map((p) => enqueued(p, 'main', now)),
  );
  // acme/mobile:main — quiet: running, nothing waiting.
  trunk.addQueue('acme/mobile', 'main', {
    state: 'running',
    mode: 'single',
    concurrency: 1,
    requiredStatuses: ['ios', 'android'],
    mergeMethod: 'rebase',
  });

  // Submitted PRs with readiness: one ready and testing, one blocked for two reasons, one not yet in the queue.
  trunk.addSubmittedPr('acme/web', 'main', {
    ...enqueued(WEB_PRS[1]!, 'main', now),
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    readiness: {
      requiresImpactedTargets: true,
      hasImpactedTargets: true,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
    },
  });
  trunk.addSubmittedPr('acme/web', 'main', {
    id: 'mq_4815',
    prNumber: SEEDED.blockedPr,
    prTitle: 'Payments: move ledger writes behind an outbox',
    prAuthor: 'li-wei',
    prBaseBranch: 'develop',
    prSha: sha(SEEDED.blockedPr, 'main'),
    priorityName: 'medium',
    priorityValue: 100,
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    state: 'not_ready',
    stateChangedAt: iso(33),
    readiness: {
      requiresImpactedTargets: true,
      hasImpactedTargets: false,
      doesBaseBranchMatch: false,
      gitHubMergeability: 'not_mergeable',
    },
  });
  trunk.addSubmittedPr('acme/api', 'main', {
    id: 'mq_2228',
    ...enqueued(API_PRS[1]!, 'main', now),
    forceEnqueued: true,
    isCurrentlySubmittedToQueue: true,
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable' },
  });

  // Test runs with checks.
  const checks = (repo: string, run: number) => [
    {
      checkRuns: [
        { name: 'build', url: gh(repo, `actions/runs/${run}/job/1`) },
        { name: 'unit (shard 1/3)', url: gh(repo, `actions/runs/${run}/job/2`) },
        { name: 'unit (shard 2/3)', url: gh(repo, `actions/runs/${run}/job/3`) },
        { name: 'unit (shard 3/3)', url: gh(repo, `actions/runs/${run}/job/4`) },
        { name: 'e2e (chromium)', url: gh(repo, `actions/runs/${run}/job/5`) },
      ],
    },
  ];
  trunk.addTestRun('acme/web', 'main', SEEDED.testRun, {
    status: 'in_progress',
    createdAt: iso(9),
    testBranch: 'trunk-merge/pr-4807-4812/7f3a9c21',
    testBranchSha: sha(7, 'run'),
    requiredStatuses: ['ci/build', 'ci/unit', 'ci/e2e', 'security/snyk'],
    requiredStatusesSource: 'merge_instance',
    checkSuites: checks('acme/web', 11873402),
    statusChecks: [
      { context: 'ci/build', url: 'https://buildkite.com/acme/web/builds/58211' },
      { context: 'security/snyk', url: 'https://app.snyk.io/org/acme/test/web-58211' },
    ],
    testedPullRequests: [
      { prNumber: 4807, prUrl: gh('acme/web', 'pull/4807'), title: WEB_PRS[0]!.title },
      { prNumber: 4812, prUrl: gh('acme/web', 'pull/4812'), title: WEB_PRS[1]!.title },
    ],
    impactedTargets: ['//payments/refunds', '//checkout/tax', '//web/app'],
    dependentPrs: [4809],
  });
  trunk.addTestRun('acme/web', 'main', SEEDED.failedRun, {
    status: 'failed',
    createdAt: iso(47),
    testBranch: 'trunk-merge/pr-4803/5b2e0d14',
    testBranchSha: sha(5, 'run'),
    requiredStatuses: ['ci/build', 'ci/unit', 'ci/e2e'],
    requiredStatusesSource: 'trunk_config',
    checkSuites: checks('acme/web', 11872950),
    statusChecks: [{ context: 'ci/build', url: 'https://buildkite.com/acme/web/builds/58190' }],
    testedPullRequests: [{ prNumber: 4803, prUrl: gh('acme/web', 'pull/4803'), title: WEB_PRS[3]!.title }],
  });
  trunk.addTestRun('acme/api', 'main', 'tr_c41d77e0', {
    status: 'succeeded',
    createdAt: iso(22),
    testBranch: 'trunk-merge/pr-2231/c41d77e0',
    testBranchSha: sha(3, 'run'),
    requiredStatuses: ['build', 'test (ubuntu-24.04)', 'test (macos-14)'],
    requiredStatusesSource: 'repo_provider_branch_protection',
    checkSuites: checks('acme/api', 5530117),
    statusChecks: [],
    testedPullRequests: [{ prNumber: 2231, prUrl: gh('acme/api', 'pull/2231'), title: API_PRS[0]!.title }],
  });

  // Hundreds of failing and quarantined tests, with owners and tickets, spread over the last day/month.
  trunk.generateFailingTests('acme/web', 340, { seed: 20261122, orgSlug: SANDBOX_ORG });
  trunk.generateFailingTests('acme/api', 150, { seed: 41, orgSlug: SANDBOX_ORG });
  trunk.generateFailingTests('acme/mobile', 60, { seed: 77, orgSlug: SANDBOX_ORG });
  trunk.generateQuarantinedTests('acme/web', 210, { seed: 20261122, orgSlug: SANDBOX_ORG });
  trunk.generateQuarantinedTests('acme/api', 85, { seed: 41, orgSlug: SANDBOX_ORG });
  trunk.generateQuarantinedTests('acme/mobile', 24, { seed: 77, orgSlug: SANDBOX_ORG });
}

/** The fake's queue history (dev/fakes/trunk/history.ts). */
export interface SeedableTrunkHistory {
  seedHistory(
    repo: string,
    branch: string,
    opts: {
      days: number;
      prsPerDay: number;
      seed?: number;
      firstNumber?: number;
      slowSince?: number;
      slowFactor?: number;
    },
  ): unknown;
}

/**
 * Weeks of believable history, so `stats` has figures and charts the moment the sandbox starts: acme/web a
 * busy queue, acme/api a quieter one whose last hours turned slow (for the `health` topic's slow alert).
 */
export function seedTrunkHistory(trunk: SeedableTrunkHistory, now: number = Date.now()): void {
  trunk.seedHistory('acme/web', 'main', { days: 28, prsPerDay: 60, seed: 20261128, firstNumber: 20_000 });
  // Busy enough that at least 3 of its slow PRs have merged in the last 6 hours: the channel hears it slow.
  trunk.seedHistory('acme/api', 'main', {
    days: 21,
    prsPerDay: 40,
    seed: 41,
    firstNumber: 30_000,
    slowSince: now - 8 * 3_600_000,
    slowFactor: 5,
  });
}

/** What the v2 side of the fake takes: the histories, estimates and keys the sandbox sets. */
export interface SeedableTrunkV2 {
  addSubmittedPr(repo: string, branch: string, pr: Partial<SubmittedPullRequest>): unknown;
  v2: {
    setKeys(keys: Record<string, string[]>): void;
    setHistory(
      repo: string,
      n: number,
      transitions: Array<{ state: string; changedAt: string; [k: string]: unknown }>,
    ): void;
    setEstimate(repo: string, n: number, estimate: Record<string, unknown>): void;
  };
}

/**
 * Trunk v2 for the sandbox: its key, and the stories `why` and `eta` tell there — a PR kicked out after a
 * failure ahead of it and a bisection, a PR held behind a failure, and a PR with an estimate.
 */
export function seedTrunkV2(trunk: SeedableTrunkV2, key: string, now: number = Date.now()): void {
  const iso = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const ref = (n: number) => ({ id: undefined, number: n, url: gh('acme/web', `pull/${n}`) });
  trunk.v2.setKeys({ [key]: ['Merge and cancel PRs'] });
  trunk.addSubmittedPr('acme/web', 'main', {
    prNumber: SEEDED.kickedPr,
    prTitle: 'Orders: archive shipped orders nightly',
    prAuthor: 'mara-k',
    prBaseBranch: 'main',
    prSha: sha(SEEDED.kickedPr, 'main'),
    priorityName: 'medium',
    priorityValue: 100,
    skipTheLine: false,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: false,
    state: 'failed',
    stateChangedAt: iso(12),
  });
  trunk.v2.setHistory('acme/web', SEEDED.kickedPr, [
    {
      state: 'pending',
      changedAt: iso(70),
      reason: 'MERGE_ITEM_NOW_READY',
      actor: { gitHubLogin: 'mara-k' },
    },
    { state: 'testing', changedAt: iso(64), reason: null },
    {
      state: 'pending',
      changedAt: iso(45),
      reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
      pending: { prerequisitePullRequests: [ref(4797)] },
    },
    { state: 'pending', changedAt: iso(44), reason: 'BISECTION_REQUIRED' },
    { state: 'testing', changedAt: iso(40), reason: null },
    {
      state: 'failed',
      changedAt: iso(12),
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      failed: {
        failureCausingChecks: [
          { name: 'ci/e2e', url: gh('acme/web', `actions/runs/${SEEDED.kickedPr}0`), conclusion: 'failure' },
        ],
        blockReasons: [],
      },
    },
  ]);
  trunk.v2.setHistory('acme/web', SEEDED.heldPr, [
    {
      state: 'pending',
      changedAt: iso(40),
      reason: 'MERGE_ITEM_NOW_READY',
      actor: { gitHubLogin: 'li-wei' },
    },
    { state: 'testing', changedAt: iso(35), reason: null },
    {
      state: 'pendingFailure',
      changedAt: iso(24),
      reason: null,
      pendingFailure: {
        eventualFailureReason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        waitingFor: [ref(4812)],
        failureCausingChecks: [
          { name: 'ci/unit', url: gh('acme/web', `actions/runs/${SEEDED.heldPr}0`), conclusion: 'failure' },
        ],
      },
    },
  ]);
  trunk.v2.setEstimate('acme/web', SEEDED.etaPr, {
    status: 'available',
    kind: 'merge',
    estimatedAt: new Date(now + 25 * 60_000).toISOString(),
  });
}
