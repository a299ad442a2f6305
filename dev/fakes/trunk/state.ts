/**
 * Merge-queue state of the fake: queues per repo (host/owner/name, case-insensitive) and branch, their
 * enqueued PRs, submitted PRs and test runs. Plain data; the HTTP layer (server.ts) reads and writes it.
 */
import type {
  EnqueuedPullRequest,
  Queue,
  Repo,
  SubmittedPullRequest,
  TestRun,
  UpdateQueueRequest,
} from '../../../src/trunk/types.ts';

/** A repo as an object, or as text: `owner/name` or `host/owner/name` (host defaults to github.com). */
export type RepoInput = Repo | string;

export function toRepo(input: RepoInput): Repo {
  if (typeof input !== 'string') return { host: input.host, owner: input.owner, name: input.name };
  const parts = input.split('/');
  if (parts.length === 2) return { host: 'github.com', owner: parts[0] as string, name: parts[1] as string };
  if (parts.length >= 3) {
    // GitLab owners may contain slashes: host/group/sub/name.
    return { host: parts[0] as string, owner: parts.slice(1, -1).join('/'), name: parts.at(-1) as string };
  }
  throw new Error(`repo "${input}" must be owner/name or host/owner/name`);
}

/** Repos match case-insensitively, like the hosting providers. */
export function repoKey(repo: RepoInput): string {
  const r = toRepo(repo);
  return `${r.host}/${r.owner}/${r.name}`.toLowerCase();
}

/** Branches are case-sensitive in git. */
export function queueKey(repo: RepoInput, branch: string): string {
  return `${repoKey(repo)}:${branch}`;
}

/** "acme/web:main", as the real service words its 404s. */
export function queueLabel(repo: RepoInput, branch: string): string {
  const r = toRepo(repo);
  return `${r.owner}/${r.name}:${branch}`;
}

/** Drops keys whose value is undefined, so `{ prNumber: undefined }` does not erase a default. */
export function defined<T extends object>(partial: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

const ISO_BASE = Date.UTC(2026, 0, 15, 9, 30, 0);
let serial = 0;
const nextSerial = () => ++serial;

function fakeSha(n: number): string {
  let out = '';
  let x = (n * 2654435761) >>> 0;
  while (out.length < 40) {
    x = (Math.imul(x ^ (x >>> 13), 0x5bd1e995) + 0x9e3779b9) >>> 0;
    out += x.toString(16).padStart(8, '0');
  }
  return out.slice(0, 40);
}

/** Queue settings as Trunk creates them by default, overridden by `partial`. */
export function makeQueue(partial: Partial<Queue> = {}): Queue {
  return {
    state: 'running',
    branch: 'main',
    concurrency: 1,
    testingTimeoutMinutes: 60,
    mode: 'single',
    canOptimisticallyMerge: false,
    pendingFailureDepth: 0,
    batch: false,
    batchingMaxWaitTimeMinutes: 0,
    batchingMinSize: 0,
    createPrsForTestingBranches: true,
    commentsEnabled: true,
    commandsEnabled: true,
    statusCheckEnabled: true,
    bisectionConcurrency: 1,
    requiredStatuses: [],
    directMergeMode: 'off',
    optimizationMode: 'off',
    mergeMethod: 'squash',
    ...defined(partial),
  };
}

const TITLES = [
  'Fix flaky refund idempotency check',
  'Add retry to webhook delivery',
  'Bump undici to 8.1',
  'Refactor invoice rendering',
  'Speed up CI cache restore',
  'Add audit log for queue changes',
  'Handle null requiredStatuses',
];
const AUTHORS = ['mara', 'devon', 'priya', 'li-wei', 'sam-ortiz', 'dependabot[bot]'];

/** A realistic enqueued PR; every call gets a fresh number/sha unless given. */
export function makeEnqueuedPr(partial: Partial<EnqueuedPullRequest> = {}): EnqueuedPullRequest {
  const n = nextSerial();
  const prNumber = partial.prNumber ?? 1000 + n;
  return {
    id: `pr_${prNumber}_${n.toString(36)}`,
    state: 'pending',
    stateChangedAt: new Date(ISO_BASE + n * 60_000).toISOString(),
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    prNumber,
    prTitle: TITLES[prNumber % TITLES.length] as string,
    prSha: fakeSha(prNumber),
    prBaseBranch: 'main',
    prAuthor: AUTHORS[prNumber % AUTHORS.length] as string,
    ...defined(partial),
  };
}

/** A realistic submitted PR that is ready to test, overridden by `partial` (readiness is merged). */
export function makeSubmittedPr(partial: Partial<SubmittedPullRequest> = {}): SubmittedPullRequest {
  const base = makeEnqueuedPr({ prNumber: partial.prNumber });
  const { noBatch: _noBatch, ...rest } = base;
  return {
    ...rest,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    ...defined(partial),
    readiness: {
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      hasImpactedTargets: false,
      gitHubMergeability: 'mergeable',
      ...partial.readiness,
    },
  };
}

/** A realistic in-progress test run of one PR, overridden by `partial`. */
export function makeTestRun(partial: Partial<TestRun> = {}, repo: RepoInput = 'acme/web'): TestRun {
  const n = nextSerial();
  const r = toRepo(repo);
  const web = `https://${r.host}/${r.owner}/${r.name}`;
  const prNumber = partial.testedPullRequests?.[0]?.prNumber ?? 1000 + n;
  return {
    requiredStatuses: ['ci/build', 'ci/test'],
    requiredStatusesSource: 'merge_instance',
    testBranch: `trunk-merge/pr-${prNumber}/${fakeSha(n).slice(0, 8)}-${fakeSha(n + 1).slice(0, 4)}`,
    testBranchSha: fakeSha(n + 7),
    createdAt: new Date(ISO_BASE + n * 60_000).toISOString(),
    status: 'in_progress',
    checkSuites: [
      {
        checkRuns: [
          { name: 'build', url: `${web}/actions/runs/${9000 + n}/job/1` },
          { name: 'test', url: `${web}/actions/runs/${9000 + n}/job/2` },
        ],
      },
    ],
    statusChecks: [{ context: 'ci/build', url: `https://ci.example.com/build/${9000 + n}` }],
    testedPullRequests: [
      {
        prNumber,
        prUrl: `${web}/pull/${prNumber}`,
        title: TITLES[prNumber % TITLES.length] as string,
      },
    ],
    ...defined(partial),
  };
}

/** What the fake keeps for one queue. */
export interface QueueRecord {
  repo: Repo;
  settings: Omit<Queue, 'enqueuedPullRequests' | 'requiredStatuses'>;
  /** Set through the API or addQueue; null = none, statuses come from `inheritedRequiredStatuses`. */
  manualRequiredStatuses: string[] | null;
  /** What branch protection / trunk.yaml would give when no manual list is set. */
  inheritedRequiredStatuses: string[];
  enqueued: EnqueuedPullRequest[];
  submitted: Map<number, SubmittedPullRequest>;
  runs: Map<string, TestRun>;
}

export interface QueueSetup extends Partial<Queue> {
  /** Statuses from branch protection, shown when no manual list is set (after deleteRequiredStatuses). */
  inheritedRequiredStatuses?: string[];
}

export class QueueStore {
  readonly queues = new Map<string, QueueRecord>();

  add(
    repo: RepoInput,
    branch: string,
    setup: QueueSetup = {},
    prs: Partial<EnqueuedPullRequest>[] = [],
  ): QueueRecord {
    const { inheritedRequiredStatuses = [], enqueuedPullRequests, requiredStatuses, ...partial } = setup;
    const { requiredStatuses: _r, enqueuedPullRequests: _e, ...settings } = makeQueue({ ...partial, branch });
    const record: QueueRecord = {
      repo: toRepo(repo),
      settings,
      manualRequiredStatuses: requiredStatuses && requiredStatuses.length > 0 ? [...requiredStatuses] : null,
      inheritedRequiredStatuses: [...inheritedRequiredStatuses],
      enqueued: [...(enqueuedPullRequests ?? []), ...prs].map((p) =>
        makeEnqueuedPr({ prBaseBranch: branch, ...p }),
      ),
      submitted: new Map(),
      runs: new Map(),
    };
    this.queues.set(queueKey(repo, branch), record);
    return record;
  }

  get(repo: RepoInput, branch: string): QueueRecord | undefined {
    return this.queues.get(queueKey(repo, branch));
  }

  /** The record, creating a default queue first when setup helpers name one that does not exist. */
  ensure(repo: RepoInput, branch: string): QueueRecord {
    return this.get(repo, branch) ?? this.add(repo, branch);
  }

  remove(repo: RepoInput, branch: string): boolean {
    return this.queues.delete(queueKey(repo, branch));
  }
}

/** The queue as getQueue returns it (deep copies, so callers cannot change the fake's state). */
export function queueView(record: QueueRecord, withPrs: boolean): Queue {
  const q: Queue = {
    ...record.settings,
    requiredStatuses: [...(record.manualRequiredStatuses ?? record.inheritedRequiredStatuses)],
  };
  if (withPrs) q.enqueuedPullRequests = record.enqueued.map((p) => ({ ...p }));
  return q;
}

/** Applies only the supplied fields of an already validated updateQueue body. */
export function applyUpdate(record: QueueRecord, body: UpdateQueueRequest): void {
  const { repo: _repo, targetBranch: _branch, requiredStatuses, deleteRequiredStatuses, ...fields } = body;
  const settings = record.settings as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) settings[key] = value;
  }
  if (deleteRequiredStatuses === true) record.manualRequiredStatuses = null;
  if (requiredStatuses !== undefined) record.manualRequiredStatuses = [...requiredStatuses];
}

/** The submitted PR: one added explicitly, else derived from an enqueued PR with that number. */
export function findSubmittedPr(record: QueueRecord, prNumber: number): SubmittedPullRequest | undefined {
  const explicit = record.submitted.get(prNumber);
  if (explicit) return structuredClone(explicit);
  const enqueued = record.enqueued.find((p) => p.prNumber === prNumber);
  if (!enqueued) return undefined;
  const { noBatch: _noBatch, ...rest } = enqueued;
  return {
    ...rest,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: true,
    readiness: {
      requiresImpactedTargets: false,
      doesBaseBranchMatch: enqueued.prBaseBranch === record.settings.branch,
      hasImpactedTargets: false,
      gitHubMergeability: 'mergeable',
    },
  };
}
