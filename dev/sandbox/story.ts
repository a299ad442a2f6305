/**
 * What the sandbox sets up in the app's own store, and what it makes happen, so a person sees queue events
 * without typing anything first: both pretend people linked to the GitHub logins that author PRs in the
 * Trunk fake (the operator's link made by an operator, as `config people` does; the member's by themselves,
 * as `me github` does), a watch that feeds #merge-queue, and a freeze window on a second queue that opens
 * now. Written through the domain's own repositories, the same rows the commands would write.
 */

import { localParts } from '../../src/core/local-time.ts';
import { parseTarget, type QueueRef } from '../../src/core/target.ts';
import { addWindow } from '../../src/freeze/index.ts';
import { recordTransition } from '../../src/history/repository.ts';
import { AutopilotRepository } from '../../src/kicks/repository.ts';
import type { Db } from '../../src/store/types.ts';
import { PeopleRepository, queueKeyOf, type Topic, WatchRepository } from '../../src/watch/index.ts';
import { type ActivityEvent, type TrunkFake, testStatusChanged } from '../fakes/trunk/index.ts';
import { CHANNEL_ID, TEAM_ID, USERS } from './people.ts';
import { SANDBOX_DEFAULT_REPO, SEEDED } from './seed.ts';

/** The queue #merge-queue watches, and what it hears about. */
export const WATCHED_QUEUE = SANDBOX_DEFAULT_REPO;
export const WATCHED_TOPICS: readonly Topic[] = ['state', 'submitted', 'merged', 'failed', 'health'];
/** The queue with a freeze window, and the window's length. */
export const FROZEN_QUEUE = 'acme/mobile:main';
export const FREEZE_REASON = 'App store review of 5.2';
const FREEZE_MINUTES = 90;

/** The Trunk fake's own movement (dev/fakes/trunk/activity.ts): the same story every run. */
export const ACTIVITY_SEED = 20261123;
/** Who opens new PRs: the seed's cast, and both pretend people, so their notes keep coming. */
export const ACTIVITY_AUTHORS: readonly string[] = [
  'mara-k',
  'devon',
  'priya-n',
  'li-wei',
  'jo-abara',
  'dependabot[bot]',
  USERS.operator.github,
  USERS.member.github,
];

function queueRef(text: string): QueueRef {
  const parsed = parseTarget(text);
  if (!parsed.ok || !parsed.value.repo || !parsed.value.branch) throw new Error(`not a queue: ${text}`);
  return { repo: parsed.value.repo, branch: parsed.value.branch };
}

/** Links, the watch and the freeze window. `tz` is the zone the window is written in (the viewer's). */
export async function seedApp(db: Db, opts: { now: number; tz: string }): Promise<void> {
  const { now, tz } = opts;
  const people = new PeopleRepository(db);
  const operator = USERS.operator;
  for (const link of [
    // An operator's link is verified: it brings notes and the author's rights over the PR.
    { user: operator, by: operator.id, verified: true },
    // A self-made link is a claim nobody checked: notes only.
    { user: USERS.member, by: USERS.member.id, verified: false },
  ]) {
    const result = await people.link({
      workspaceId: TEAM_ID,
      userId: link.user.id,
      githubLogin: link.user.github,
      linkedBy: link.by,
      verified: link.verified,
      now,
    });
    if (!result.ok) throw new Error(`could not link ${link.user.handle}: ${result.reason}`);
  }

  await new WatchRepository(db).upsert({
    workspaceId: TEAM_ID,
    channelId: CHANNEL_ID,
    target: queueRef(WATCHED_QUEUE),
    topics: [...WATCHED_TOPICS],
    createdBy: operator.id,
    createdAt: now,
  });
  // acme/api:main's last hours turned slow (seed.ts's history): the channel hears it in its health feed.
  await new WatchRepository(db).upsert({
    workspaceId: TEAM_ID,
    channelId: CHANNEL_ID,
    target: queueRef('acme/api:main'),
    topics: ['health'],
    createdBy: operator.id,
    createdAt: now,
  });

  // Issue 29: the autopilot on for the watched queue, and a check that is flaky there this week (two stays
  // that failed `ci/e2e` and then merged on the same commit), so the story's flaky kick is re-submitted.
  const watched = queueRef(WATCHED_QUEUE);
  await new AutopilotRepository(db).set(TEAM_ID, queueKeyOf(watched), { enabled: true }, operator.id, now);
  for (const [i, pr] of [4770, 4776].entries()) {
    const at = now - (i + 2) * 86_400_000;
    const row = {
      workspaceId: TEAM_ID,
      queueKey: queueKeyOf(watched),
      prNumber: pr,
      headSha: `e2e${pr}`,
      source: 'readback' as const,
      recordedAt: now,
    };
    await recordTransition(db, {
      ...row,
      state: 'failed',
      occurredAt: at,
      reasonCode: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      failingChecks: [FLAKY_CHECK],
    });
    await recordTransition(db, { ...row, state: 'merged', occurredAt: at + 40 * 60_000 });
  }

  // Daily from this minute, so it is on when the sandbox starts (the freezer drains the queue and says so
  // at once) and the status message shows it; a sandbox left running sees it end, and come round tomorrow.
  const local = localParts(tz, now);
  const startMinute = local.hour * 60 + local.minute;
  await addWindow(
    db,
    {
      workspaceId: TEAM_ID,
      channelId: CHANNEL_ID,
      createdBy: operator.id,
      target: queueRef(FROZEN_QUEUE),
      command: {
        startMinute,
        endMinute: (startMinute + FREEZE_MINUTES) % 1440,
        tz,
        rule: { kind: 'repeat', days: 'daily' },
        action: 'drain',
        reason: FREEZE_REASON,
      },
    },
    now,
  );
}

/**
 * The operator's PR fails its tests: it leaves acme/web:main's queue and getSubmittedPullRequest says
 * failed, as Trunk does. The watcher then sends its author a note (with Restart tests, once the note has
 * PR buttons). The sandbox does this a little after it starts, so the operator's note always comes.
 */
export function failOperatorPr(trunk: TrunkFake, now: number = Date.now()): boolean {
  const [repo, branch] = WATCHED_QUEUE.split(':') as [string, string];
  const pr = trunk.queue(repo, branch)?.enqueuedPullRequests?.find((p) => p.prNumber === SEEDED.operatorPr);
  if (!pr) return false;
  trunk.dequeuePr(repo, branch, pr.prNumber);
  const { noBatch: _noBatch, ...fields } = pr;
  trunk.addSubmittedPr(repo, branch, {
    ...fields,
    state: 'failed',
    stateChangedAt: new Date(now).toISOString(),
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: false,
    readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'mergeable', requiresImpactedTargets: false },
  });
  return true;
}

/** The check that is flaky in the watched queue (seedApp's history), and the story's two kicks. */
export const FLAKY_CHECK = 'ci/e2e';
export const KICKS = {
  /** Sam's PR, kicked by the flaky check: the autopilot submits it again, and tells him. */
  flaky: { n: 4830, title: 'Checkout: retry card tokenization once', author: USERS.member.github },
  /** A real failure (a steady check failed): left alone. */
  real: { n: 4831, title: 'Search: drop the legacy ranking flag', author: 'mara-k' },
} as const;

/**
 * Two PRs of the watched queue leave it failed, told by Trunk's webhook with their v2 histories: one kicked by
 * the check that is flaky here (re-submitted by the autopilot, with its note), one by a real failure. The
 * sandbox does this as it starts, once its webhooks are subscribed.
 */
export function kickTwo(trunk: TrunkFake, now: number = Date.now()): string[] {
  const [repo, branch] = WATCHED_QUEUE.split(':') as [string, string];
  const [owner, name] = repo.split('/') as [string, string];
  const iso = (ms: number) => new Date(now - ms).toISOString();
  const told: string[] = [];
  for (const [kind, pr] of Object.entries(KICKS)) {
    const check = kind === 'flaky' ? FLAKY_CHECK : 'ci/unit';
    trunk.addSubmittedPr(repo, branch, {
      prNumber: pr.n,
      prTitle: pr.title,
      prAuthor: pr.author,
      prSha: `${kind}${pr.n}`,
      priorityValue: 100,
      priorityName: 'medium',
      state: 'failed',
      stateChangedAt: iso(0),
      isCurrentlySubmittedToQueue: false,
    });
    trunk.v2.setHistory(repo, pr.n, [
      {
        state: 'pending',
        changedAt: iso(30 * 60_000),
        reason: 'MERGE_ITEM_NOW_READY',
        actor: { gitHubLogin: pr.author },
      },
      { state: 'testing', changedAt: iso(20 * 60_000), reason: null },
      {
        state: 'failed',
        changedAt: iso(0),
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        failed: { failureCausingChecks: [{ name: check, conclusion: 'failure' }], blockReasons: [] },
      },
    ] as never);
    trunk.webhooks.deliver('pull_request.failed', {
      action: 'failed',
      status: 'failed',
      author: pr.author,
      pr_number: pr.n,
      repository: { host: 'github.com', owner, name },
      target_branch: branch,
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
    told.push(
      `${WATCHED_QUEUE}: #${pr.n} (${pr.author}'s) failed: \`${check}\`${kind === 'flaky' ? ', flaky here' : ''}`,
    );
  }
  return told;
}

export interface Story {
  /**
   * The first step fails the operator's PR; every later one moves the queues one step, and every third of those has Trunk report a test's status change
   * (FLAKY_TESTS). Says what happened.
   */
  step(): string[];
}

function describe(e: ActivityEvent): string {
  const pr = e.prNumber !== undefined ? `#${e.prNumber} ` : '';
  const by = e.by ? ` in Trunk's ${e.by}` : '';
  return `${e.queue}: ${pr}${e.kind}${by}`;
}

/**
 * The operator's failure comes first, on its own step, so the queues' own movement cannot merge that PR
 * before it fails; after that the fake's seeded activity tells the rest.
 */
export function createStory(trunk: TrunkFake): Story {
  let operatorFailed = false;
  let steps = 0;
  return {
    step() {
      if (!operatorFailed) {
        operatorFailed = true;
        if (failOperatorPr(trunk))
          return [`${WATCHED_QUEUE}: #${SEEDED.operatorPr} (${USERS.operator.name}'s) failed its tests`];
      }
      const happened = (trunk.activity?.advance(1) ?? []).map(describe);
      steps++;
      if (steps % FLAKY_EVERY === 0) happened.push(testStatusChange(trunk, steps / FLAKY_EVERY - 1));
      return happened;
    },
  };
}

/** Every this many steps, a test of the watched repository changes status (`tests watch` hears it). */
export const FLAKY_EVERY = 3;
/** The tests whose status changes, owned as CODEOWNERS would say; statuses cycle as Trunk's monitors would. */
export const FLAKY_TESTS = [
  {
    id: '5a0d7e11-0000-4000-8000-000000000001',
    name: 'checkout › applies a coupon',
    owner: '@acme/payments',
  },
  {
    id: '5a0d7e11-0000-4000-8000-000000000002',
    name: 'search › ranks exact matches first',
    owner: '@acme/search',
  },
  {
    id: '5a0d7e11-0000-4000-8000-000000000003',
    name: 'billing › prorates seat changes',
    owner: '@acme/payments',
  },
] as const;
const STATUS_CYCLE = ['HEALTHY', 'FLAKY', 'BROKEN', 'FLAKY', 'HEALTHY'] as const;

/** Trunk's `v2.test_case.status_changed` for the n-th change, through the fake's webhooks. */
function testStatusChange(trunk: TrunkFake, n: number): string {
  const test = FLAKY_TESTS[n % FLAKY_TESTS.length]!;
  const round = Math.floor(n / FLAKY_TESTS.length) % (STATUS_CYCLE.length - 1);
  const [previous, next] = [STATUS_CYCLE[round]!, STATUS_CYCLE[round + 1]!];
  const [repo] = WATCHED_QUEUE.split(':');
  trunk.webhooks.deliver(
    'v2.test_case.status_changed',
    testStatusChanged(
      {
        id: test.id,
        name: test.name,
        classname: '',
        file: `src/${test.name.split(' ')[0]}.test.ts`,
        codeowners: [test.owner],
        repo: repo!,
      },
      previous,
      next,
    ),
  );
  return `${repo}: test “${test.name}” (${test.owner}) ${previous} → ${next}, by Trunk's flaky-test webhook`;
}
