/**
 * `/mergequeue why`: a PR's story in one message — each step of its latest attempt with who or what moved it,
 * how it ended in plain words, the checks that caused a failure, whether it failed on its own or because of a
 * PR ahead of it, and the next step with the buttons that fit. The reason words live here (one table), so
 * the author's note and the channel feed say the same as `why`.
 */
import type { KnownBlock } from '@slack/types';
import type { QueueRef } from '../../core/target.ts';
import type { PrAction } from '../../queue/pull-requests.ts';
import type { PrRef, PrStory, StoryEnding, StoryStep } from '../../queue/story.ts';
import type { FailureCausingCheck } from '../../trunk/v2/schemas.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, link, parseTime, prUrl, queueLabel, slackDate } from './format.ts';
import { context, header, section } from './kit.ts';
import { prActionButtons } from './pr-actions.ts';

/** Trunk's reason codes in plain words. Anything not here is shown as Trunk sent it. */
const REASON_WORDS: Record<string, string> = {
  // failed
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required check failed',
  TEST_RUN_TIMEOUT: 'the test run timed out',
  TEST_RUN_FAILED_BY_OPTIMIZATION: 'a test run that included it failed (Trunk skipped a redundant run)',
  START_TEST_RUN_MERGE_CONFLICT: 'it has a merge conflict',
  START_TEST_RUN_RETRY_EXHAUSTED: 'Trunk could not start its test run after several tries',
  START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED: 'draft PRs cannot be tested in this queue',
  START_TEST_RUN_PERMISSIONS_BLOCK_TEST_BRANCH: "Trunk's GitHub app may not push the test branch",
  START_TEST_RUN_NO_REQUIRED_STATUSES: 'the queue has no required checks to wait for',
  START_TEST_RUN_CONFIG_NOT_FOUND: "the queue's Trunk configuration was not found",
  START_TEST_RUN_CONFIG_PARSING_FAILURE: "the queue's Trunk configuration could not be read",
  START_TEST_RUN_CONFIG_BAD_VERSION: "the queue's Trunk configuration has an unsupported version",
  START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES: "the queue's required checks are misconfigured",
  START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES: "the queue's configuration names no required checks",
  START_TEST_RUN_INVALID_EVENT: 'Trunk received an event it could not act on',
  PR_UPDATED_AT_MERGE_TIME: 'the PR was pushed to while it was being merged',
  GITHUB_API_MERGE_PR_FAILED: 'GitHub refused the merge',
  GITHUB_API_DIRECT_MERGE_PR_FAILED: 'GitHub refused the direct merge',
  GITHUB_API_BRANCH_PROTECTION_UNMET: "the branch's protection rules were not met",
  GITHUB_API_MERGE_ALREADY_IN_PROGRESS: 'GitHub was already merging it',
  GITHUB_API_RATE_LIMIT_EXCEEDED: "GitHub's rate limit stopped the merge",
  GITHUB_API_REPEATED_SERVER_ERRORS: 'GitHub kept failing while merging it',
  // cancelled
  USER_REQUESTED: 'someone asked for it',
  TRUNK_ADMIN_REQUESTED: 'a Trunk admin asked for it',
  API_REQUESTED: 'an API call asked for it',
  PR_CLOSED: 'the PR was closed',
  PR_MERGED_INTO_OTHER_BRANCH: 'the PR was merged into another branch',
  PR_PUSHED_TO: 'new commits were pushed to the PR',
  PR_BASE_BRANCH_CHANGED: "the PR's base branch changed",
  PR_CONVERTED_TO_DRAFT: 'the PR was converted to a draft',
  NOT_READY_TIMEOUT_EXPIRED: 'it was not ready in time',
  STACKED_PR_MEMBER_PUSHED_TO: 'a PR of its stack was pushed to',
  STACKED_PR_MEMBER_CLOSED: 'a PR of its stack was closed',
  STACKED_PR_MEMBER_MERGED: 'a PR of its stack was merged',
  STACKED_PR_MEMBER_BASE_BRANCH_CHANGED: 'the base branch of a PR of its stack changed',
  STACKED_PR_STACK_CHANGED: 'its stack changed',
  STACKED_PR_GROUP_CANCELLED_AT_MERGE_TIME: 'its stack was cancelled at merge time',
  // pending (back in line) and passing
  TESTS_RESTARTED_BY_USER: 'someone restarted its tests',
  TESTS_RESTARTED_BY_API_REQUEST: 'its tests were restarted by an API call',
  MERGE_ITEM_NOW_READY: 'it became ready',
  MANUAL_PUSH_TO_TARGET_BRANCH: 'someone pushed to the target branch directly',
  PREREQUISITE_MERGE_ITEM_FAILED: 'a PR ahead of it failed',
  PREREQUISITE_MERGE_ITEM_CANCELLED: 'a PR ahead of it was cancelled',
  PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED: 'a PR ahead of it was merged by hand',
  SKIP_THE_LINE_INTERRUPTED: 'an urgent PR went ahead of it',
  BISECTION_REQUIRED: 'its batch failed, so Trunk tests it on its own',
  BISECTION_TEST_RUN_PASSED: 'it passed on its own',
  TEST_RUN_PASSED: 'its tests passed',
  SUCCESSOR_TEST_RUN_PASSED: 'a run that included it passed',
  PASSED_BY_OPTIMIZATION: 'a run that included it passed (Trunk skipped a redundant run)',
  MERGE_GRAPH_MERGE: 'Trunk merged it',
  MERGE_GRAPH_DIRECT_MERGE: 'Trunk merged it directly',
  MANUAL_MERGE: 'it was merged by hand',
};

const STATE_WORDS: Record<string, string> = {
  notReady: 'submitted, not ready yet',
  pending: 'waiting in line',
  testing: 'testing',
  testsPassed: 'tests passed',
  pendingFailure: 'failing, waiting for PRs ahead',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'cancelled',
};

const STATE_EMOJI: Record<string, string> = {
  notReady: ':hourglass:',
  pending: ':hourglass_flowing_sand:',
  testing: ':test_tube:',
  testsPassed: ':white_check_mark:',
  pendingFailure: ':warning:',
  merged: ':tada:',
  failed: ':x:',
  cancelled: ':no_entry_sign:',
};

/** A reason in words; an unknown code is shown as Trunk sent it. */
export function reasonWords(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return REASON_WORDS[reason] ?? `Trunk says ${code(reason, 80)}`;
}

/** v1's state names, which the PR buttons (and their rights) are written for. */
const V1_STATE: Record<string, string> = {
  notReady: 'not_ready',
  testsPassed: 'tests_passed',
  pendingFailure: 'pending_failure',
};

export function v1State(v2: string): string {
  return V1_STATE[v2] ?? v2;
}

function prRefText(ref: QueueRef, pr: PrRef): string {
  if (pr.number === undefined) return pr.url ? link(pr.url, 'a PR ahead of it') : 'a PR ahead of it';
  return link(pr.url ?? prUrl(ref.repo, pr.number), `#${pr.number}`);
}

function checkLine(c: FailureCausingCheck): string {
  const name = escTrim(c.name, 120);
  const shown = c.url ? link(c.url, name) : name;
  return `• ${shown}${c.conclusion ? ` — ${esc(c.conclusion)}` : ''}`;
}

function stepLine(s: StoryStep): string {
  const at = parseTime(s.at);
  const when = at === undefined ? esc(s.at) : slackDate(at);
  const emoji = STATE_EMOJI[s.state] ?? ':grey_question:';
  const what = STATE_WORDS[s.state] ?? `${code(s.state, 60)}`;
  const why = reasonWords(s.reason);
  const by = s.actor ? ` by ${escTrim(s.actor, 60)}` : '';
  return `${emoji} ${when} ${what}${why ? ` — ${why}` : ''}${by}`;
}

/**
 * How the attempt ended (or where it stands), in one paragraph: the reason, who is at fault, and the next step.
 * Shared by `why`, the author's note and the channel feed.
 */
export function endingText(ref: QueueRef, prNumber: number, story: PrStory): string {
  const e: StoryEnding | undefined = story.ending;
  const label = esc(queueLabel(ref));
  const ahead =
    story.putBackBy.length > 0
      ? ` Earlier, ${story.putBackBy.map((p) => prRefText(ref, p)).join(', ')} ahead of it failed or left, which put it back in line.`
      : '';
  if (!e) return `Trunk has no record of #${prNumber} in ${label}'s queue.`;
  switch (e.kind) {
    case 'failed': {
      const why = reasonWords(e.reason) ?? 'Trunk did not say why';
      const lines = [`*It failed: ${why}.*`];
      if (e.cause === 'conflict' && e.conflictWith)
        lines[0] = `*It failed: a merge conflict with ${prRefText(ref, e.conflictWith)}.*`;
      if (e.cause === 'own')
        lines.push(
          e.bisected
            ? 'Its batch failed; Trunk then tested it on its own, and it failed on its own.'
            : 'It failed on its own, not because of a PR ahead of it.',
        );
      if (e.checks.length > 0)
        lines.push(`*Checks that failed it*\n${e.checks.slice(0, 10).map(checkLine).join('\n')}`);
      if (e.checks.length > 10) lines.push(`and ${e.checks.length - 10} more`);
      if (e.apiMessage) lines.push(`GitHub said: ${escTrim(e.apiMessage, 300)}`);
      lines.push(`*Next step:* ${nextStep(e)}`);
      return lines.join('\n') + ahead;
    }
    case 'pendingFailure': {
      const waits = e.waitingFor.map((p) => prRefText(ref, p));
      const checks =
        e.checks.length > 0 ? `\n*Failing checks*\n${e.checks.slice(0, 10).map(checkLine).join('\n')}` : '';
      return `*It is failing, and waits for ${waits.length > 0 ? waits.join(', ') : 'the PRs ahead of it'} before Trunk decides.* If they fail, it is tested again without them; if they pass, it fails${e.eventualReason ? ` (${reasonWords(e.eventualReason)})` : ''}.${checks}\n*Next step:* Restart tests if you pushed a fix.${ahead}`;
    }
    case 'cancelled':
      return `*It was taken out of the queue: ${reasonWords(e.reason) ?? 'Trunk did not say why'}*${e.actor ? ` (${escTrim(e.actor, 60)})` : ''}.\n*Next step:* Re-submit when it is ready.${ahead}`;
    case 'merged':
      return `*It merged*${e.reason ? ` — ${reasonWords(e.reason)}` : ''}.`;
    case 'inQueue':
      return `*It is ${STATE_WORDS[e.state] ?? code(e.state, 60)}.*${ahead} \`/mergequeue eta ${prNumber} ${label}\` says when it should merge.`;
  }
}

function nextStep(e: Extract<StoryEnding, { kind: 'failed' }>): string {
  switch (e.cause) {
    case 'conflict':
      return 'rebase on the target branch and resolve the conflict, then Re-submit.';
    case 'own':
      return e.reason === 'TEST_RUN_TIMEOUT'
        ? "Restart tests if the run was slow by chance; if it keeps timing out, ask an operator about the queue's testing timeout."
        : 'fix what the failing checks report and push; then Re-submit.';
    case 'setup':
      return "this is the queue's or GitHub's set-up, not your code: Re-submit once an operator has looked (`/mergequeue status` shows the queue).";
    default:
      return 'look at the PR in Trunk, then Re-submit.';
  }
}

export interface WhyInput {
  ref: QueueRef;
  pr: { number: number; title: string; author: string | undefined; url: string | undefined; state: string };
  story: PrStory;
  renderedAt: number;
  appUrl?: string;
  orgSlug?: string;
}

/** The answer to `/mergequeue why <pr>` when the workspace has a v2 key. */
export function renderWhy(input: WhyInput): SlackReply {
  const { ref, pr, story } = input;
  const steps = story.steps.slice(-15);
  const blocks: KnownBlock[] = [
    header(`#${pr.number} ${pr.title || '(no title)'}`),
    section(
      `${link(pr.url ?? prUrl(ref.repo, pr.number), `#${pr.number}`)} by ${escTrim(pr.author ?? 'unknown', 80)} in ${esc(queueLabel(ref))}${story.attempts > 1 ? ` · attempt ${story.attempts} (the latest is told)` : ''}`,
    ),
  ];
  if (steps.length > 0)
    blocks.push(
      section(
        `*What happened*\n${steps.map(stepLine).join('\n')}${story.steps.length > steps.length ? `\n(${story.steps.length - steps.length} earlier steps not shown)` : ''}`,
      ),
    );
  blocks.push(section(escCap(endingText(ref, pr.number, story))));
  // The kick's kind and its evidence (issue 29), as the note and the feed say it.
  if (story.kick && (story.ending?.kind === 'failed' || story.ending?.kind === 'cancelled'))
    blocks.push(
      context(`:label: Kind of kick: *${esc(story.kick.kickClass)}* — ${story.kick.evidence.slice(0, 2500)}`),
    );
  blocks.push(
    prActionButtons({
      ref,
      pr: { prNumber: pr.number, state: v1State(pr.state) },
      steps: storySteps(pr.state),
      renderedAt: input.renderedAt,
      ...(input.appUrl ? { appUrl: input.appUrl } : {}),
      ...(input.orgSlug ? { orgSlug: input.orgSlug } : {}),
    }),
  );
  blocks.push(context(`Read from Trunk ${slackDate(input.renderedAt)}`));
  const summary =
    story.ending?.kind === 'failed'
      ? `failed: ${reasonWords(story.ending.reason) ?? 'no reason given'}`
      : (STATE_WORDS[pr.state] ?? pr.state);
  return { text: escTrim(`#${pr.number} ${pr.title}: ${summary}`, 3000), blocks, response_type: 'ephemeral' };
}

/** Restart tests while testing or failing, Re-submit once it left the queue; Open in Trunk always. */
function storySteps(state: string): PrAction[] {
  if (state === 'testing' || state === 'pendingFailure') return ['restart'];
  if (state === 'failed' || state === 'cancelled') return ['submit'];
  return [];
}

/** Section text is capped at 3000 characters; the paragraph is already escaped. */
function escCap(text: string): string {
  return text.length > 3000 ? `${text.slice(0, 2990)}…` : text;
}

/** `why` without a v2 key: v1's state and what a key would add. */
export function whyNeedsV2Key(): string {
  return "Trunk's v2 API says why a PR left the queue, step by step; this workspace has no v2 API key. An admin can create one in Trunk (Settings → Developer → API Keys) and add it with `/mergequeue connect`.";
}

/** `why` for a PR, queue or repository Trunk has no record of. */
export function renderWhyUnknown(
  ref: QueueRef,
  prNumber: number,
  what: 'repository' | 'queue' | 'pr',
): SlackReply {
  const label = esc(queueLabel(ref));
  const text =
    what === 'pr'
      ? `Trunk has no record of ${link(prUrl(ref.repo, prNumber), `#${prNumber}`)} in ${label}'s queue: it was never submitted there.`
      : `Trunk knows no ${what === 'queue' ? 'merge queue' : 'repository'} for ${label}. Check the target, for example \`/mergequeue why ${prNumber} acme/web:main\`.`;
  return {
    text: escTrim(text.replace(/<[^|>]*\|([^>]*)>/g, '$1'), 3000),
    blocks: [section(text)],
    response_type: 'ephemeral',
  };
}

/** v1's answer (the PR's state and readiness) with what a v2 key would add, for a workspace without one. */
export function withV2KeyHint(reply: SlackReply): SlackReply {
  return { ...reply, blocks: [...(reply.blocks ?? []), context(whyNeedsV2Key())] };
}
