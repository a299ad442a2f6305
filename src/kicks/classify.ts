/**
 * Every kick by its kind (DESIGN "Queue memory", the class table): a PR that left the queue failed or
 * cancelled is one of nine classes, each with its evidence in words a person reads ("`e2e` failed; it failed
 * and then passed on the same commit 3 times this week"). Pure: Trunk's facts (the reason code, the
 * failure-causing checks and their conclusions, the conflict culprit, the prerequisite reasons) and the
 * queue's own history (how often each check was flaky here this week) in, the class and its evidence out.
 *
 * Reason codes are an open vocabulary: an unknown one is kept as sent and classed `failure`; no reason at all
 * (no v2 key and no webhook reason) is `unknown`.
 */
import { KICK_CLASSES, type KickClass } from '../history/types.ts';

/**
 * What classing needs of a PR's story (queue/story.ts's PrStory fits it): how the attempt ended, and whether
 * a PR ahead of it put it back in line.
 */
export interface StoryFacts {
  ending?:
    | {
        kind: string;
        reason?: string | undefined;
        checks?: ReadonlyArray<{ name: string; conclusion?: string | undefined }>;
        conflictWith?: { number?: number | undefined } | undefined;
        actor?: string | undefined;
      }
    | undefined;
  putBackBy: readonly unknown[];
}

/** The classes are history's (each kick's class is kept on its history row). */
export { KICK_CLASSES, type KickClass };

export function isKickClass(s: string): s is KickClass {
  return (KICK_CLASSES as readonly string[]).includes(s);
}

/** A check Trunk names as causing the failure. */
export interface KickCheck {
  name: string;
  /** Its conclusion (`failure`, `timeout`, `cancelled`…), open vocabulary; absent when Trunk did not say. */
  conclusion?: string | undefined;
}

export interface KickFacts {
  /** How the PR left. */
  state: 'failed' | 'cancelled';
  /** Trunk's reason code as sent (v2 history or the webhook's failure/cancellation reason). */
  reason?: string | undefined;
  /** The failure-causing checks (v2), empty when unknown. */
  checks?: readonly KickCheck[];
  /** The conflict culprit Trunk named (v2 `failed.conflictCulprit`). */
  conflictWith?: { number?: number | undefined; sha?: string | undefined } | undefined;
  /** The GitHub login that cancelled it, when a person did (v2 actor). */
  cancelledBy?: string | undefined;
  /**
   * Per check name: how many times in the last 7 days it failed on a head commit that then passed in this
   * queue without a new commit (history's `flakyCheckEvidence`).
   */
  flakyCounts?: ReadonlyMap<string, number>;
}

export interface Kick {
  kickClass: KickClass;
  /** The evidence in words (Slack mrkdwn, names in backticks). */
  evidence: string;
  /** The reason code as Trunk sent it, when it sent one. */
  reason?: string | undefined;
}

/** A check is flaky in a queue when it failed-then-passed on one commit at least this often in 7 days. */
export const FLAKY_AT_LEAST = 2;
export const FLAKY_WINDOW_MS = 7 * 24 * 3_600_000;

const SUPERSEDED: Record<string, string> = {
  PR_PUSHED_TO: 'new commits were pushed to it while it was in the queue',
  PR_CLOSED: 'the PR was closed',
  PR_BASE_BRANCH_CHANGED: 'its base branch was changed',
  PR_CONVERTED_TO_DRAFT: 'it was made a draft',
  PR_MERGED_INTO_OTHER_BRANCH: 'it was merged into another branch',
  PR_UPDATED_AT_MERGE_TIME: 'it was pushed to while it was being merged',
};
const BY_PERSON: Record<string, string> = {
  USER_REQUESTED: 'a person cancelled it',
  TRUNK_ADMIN_REQUESTED: 'a Trunk admin cancelled it',
  API_REQUESTED: 'it was cancelled through the API',
};
const UPSTREAM_PREFIXES = ['PREREQUISITE_', 'STACKED_PR_'];
/** Trunk or GitHub could not run or merge it: the infrastructure, not the change. */
const INFRA: Record<string, string> = {
  TEST_RUN_TIMEOUT: "its test run ran past the queue's testing timeout",
  START_TEST_RUN_RETRY_EXHAUSTED: 'Trunk could not start its test run after several tries',
  GITHUB_API_REPEATED_SERVER_ERRORS: 'GitHub kept answering with server errors',
  GITHUB_API_RATE_LIMIT_EXCEEDED: "GitHub's rate limit stopped it",
};
/** Failure codes this app knows (a required check failed, or the setup refused it): class `failure`. */
const KNOWN_FAILURES = new Set([
  'TEST_RUN_REQUIRED_STATUS_FAILED',
  'TEST_RUN_FAILED_BY_OPTIMIZATION',
  'START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED',
  'START_TEST_RUN_PERMISSIONS_BLOCK_TEST_BRANCH',
  'START_TEST_RUN_NO_REQUIRED_STATUSES',
  'START_TEST_RUN_CONFIG_NOT_FOUND',
  'START_TEST_RUN_CONFIG_PARSING_FAILURE',
  'START_TEST_RUN_CONFIG_BAD_VERSION',
  'START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES',
  'START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES',
  'START_TEST_RUN_INVALID_EVENT',
  'GITHUB_API_MERGE_PR_FAILED',
  'GITHUB_API_DIRECT_MERGE_PR_FAILED',
  'GITHUB_API_BRANCH_PROTECTION_UNMET',
  'GITHUB_API_MERGE_ALREADY_IN_PROGRESS',
]);
const STOPPED = new Set(['timeout', 'timed_out', 'cancelled', 'canceled']);

const tick = (s: string) => `\`${s.replace(/`/g, "'").slice(0, 120)}\``;
const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

function listOf(names: readonly string[]): string {
  const shown = names.slice(0, 5).map(tick);
  const more = names.length > 5 ? ` and ${names.length - 5} more` : '';
  if (shown.length <= 1) return `${shown.join('')}${more}`;
  return `${shown.slice(0, -1).join(', ')}${more ? '' : ' and'} ${shown.at(-1)}${more}`;
}

/** The kick's class and evidence. */
export function classifyKick(f: KickFacts): Kick {
  const reason = f.reason?.trim() || undefined;
  const checks = f.checks ?? [];
  const out = (kickClass: KickClass, evidence: string): Kick => ({ kickClass, evidence, reason });

  if (reason === 'START_TEST_RUN_MERGE_CONFLICT' || f.conflictWith) {
    const who =
      f.conflictWith?.number !== undefined
        ? ` with #${f.conflictWith.number}`
        : f.conflictWith?.sha
          ? ` with commit ${tick(f.conflictWith.sha.slice(0, 7))}`
          : '';
    return out('conflict', `Trunk could not merge it onto the queue: a merge conflict${who}`);
  }
  if (reason === 'NOT_READY_TIMEOUT_EXPIRED')
    return out('timeout', "it was not ready to test within the queue's not-ready timeout");
  if (reason && UPSTREAM_PREFIXES.some((p) => reason.startsWith(p)))
    return out('upstream', `a PR it was tested with or depended on failed or left (${tick(reason)})`);
  if (reason && SUPERSEDED[reason]) return out('superseded', SUPERSEDED[reason]);
  if (reason && BY_PERSON[reason])
    return out(
      'cancelled',
      f.cancelledBy && reason !== 'API_REQUESTED'
        ? `${tick(f.cancelledBy)} cancelled it`
        : (BY_PERSON[reason] as string),
    );
  if (reason && INFRA[reason]) return out('infra', INFRA[reason]);
  if (checks.length > 0 && checks.every((c) => STOPPED.has(String(c.conclusion ?? '').toLowerCase()))) {
    const parts = checks
      .slice(0, 5)
      .map(
        (c) =>
          `${tick(c.name)} ${String(c.conclusion).toLowerCase().startsWith('time') ? 'timed out' : 'was cancelled'}`,
      );
    return out('infra', `${parts.join('; ')}${checks.length > 5 ? `; and ${checks.length - 5} more` : ''}`);
  }
  if (checks.length > 0 && f.state === 'failed') {
    const counts = checks.map((c) => f.flakyCounts?.get(c.name) ?? 0);
    if (counts.every((n) => n >= FLAKY_AT_LEAST)) {
      const parts = checks
        .slice(0, 5)
        .map(
          (c, i) =>
            `${tick(c.name)} failed; it failed and then passed on the same commit ${times(counts[i] ?? 0)} this week`,
        );
      return out('flaky', parts.join('; '));
    }
    const flakyOnes = checks.filter((_, i) => (counts[i] ?? 0) >= FLAKY_AT_LEAST).map((c) => c.name);
    const steady = checks.filter((_, i) => (counts[i] ?? 0) < FLAKY_AT_LEAST).map((c) => c.name);
    const also =
      flakyOnes.length > 0
        ? ` (${listOf(flakyOnes)} ${flakyOnes.length === 1 ? 'is' : 'are'} flaky here, but not ${steady.length === 1 ? 'that one' : 'those'})`
        : '';
    return out(
      'failure',
      `${listOf(steady)} failed${also}${reason && !KNOWN_FAILURES.has(reason) ? `; Trunk's reason: ${tick(reason)}` : ''}`,
    );
  }
  if (!reason)
    return out(
      'unknown',
      'Trunk gave no reason (reasons and failing checks need a Trunk v2 key: `/mergequeue connect`)',
    );
  if (KNOWN_FAILURES.has(reason))
    return out(
      'failure',
      reason === 'TEST_RUN_REQUIRED_STATUS_FAILED' || reason === 'TEST_RUN_FAILED_BY_OPTIMIZATION'
        ? 'a required check failed'
        : `Trunk could not test or merge it (${tick(reason)})`,
    );
  // An unknown code: shown as sent.
  return out('failure', `Trunk's reason: ${tick(reason)}`);
}

/** `flaky infra`, the classes the autopilot re-submits when a workspace chose none. */
export const DEFAULT_REQUEUE: readonly KickClass[] = ['flaky', 'infra'];

/**
 * Classes the autopilot may never re-submit, whatever is chosen: a person's cancel or push (`cancelled`,
 * `superseded`), and a kick whose kind is not known.
 */
export const NEVER_REQUEUE: ReadonlySet<KickClass> = new Set(['cancelled', 'superseded', 'unknown']);

/**
 * The facts of a kick from what the app knows of it: the PR's v2 story when it ended the way the event says,
 * else the webhook's reason alone (no v2 key: no checks, no culprit).
 */
export function kickFactsOf(
  state: 'failed' | 'cancelled',
  story: StoryFacts | undefined,
  eventReason: string | undefined,
  flakyCounts?: ReadonlyMap<string, number>,
): KickFacts {
  const ending = story?.ending;
  const facts: KickFacts = { state, reason: eventReason };
  if (flakyCounts) facts.flakyCounts = flakyCounts;
  if (ending?.kind === 'failed') {
    facts.reason = ending.reason ?? eventReason;
    facts.checks = (ending.checks ?? []).map((c) => ({ name: c.name, conclusion: c.conclusion }));
    if (ending.conflictWith) facts.conflictWith = { number: ending.conflictWith.number };
  } else if (ending?.kind === 'cancelled') {
    facts.reason = ending.reason ?? eventReason;
    facts.cancelledBy = ending.actor;
  }
  // A prerequisite that failed while this PR waited, with no reason of its own on the kick.
  if (!facts.reason && story && story.putBackBy.length > 0) facts.reason = 'PREREQUISITE_MERGE_ITEM_FAILED';
  return facts;
}

/** The names of the checks a story blames, for the history's flaky evidence. */
export function failingChecksOf(story: StoryFacts | undefined): string[] {
  const e = story?.ending;
  return e?.kind === 'failed' ? [...new Set((e.checks ?? []).map((c) => c.name))] : [];
}
