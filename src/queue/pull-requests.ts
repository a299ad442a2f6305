/**
 * Acting on one PR (submit, cancel, restart its tests) and listing a queue's PRs, independent of Slack.
 * Who may act is decided from the PR as Trunk reports it now: an operator, or its author, meaning the
 * person linked to the PR's GitHub login by an operator. A link people make for themselves is a claim
 * anyone could make about any login, so it never grants rights. Results are plain data (ok, noop,
 * refused, failed) for the caller to audit and render: the audit rows and the click claims are the
 * application layer's (services/prs.ts), never written here.
 */

import { formatQueueRef, type QueueRef } from '../core/target.ts';
import { TrunkNotFoundError, TrunkUnavailableError } from '../trunk/errors.ts';
import { type Cutoff, untilDeadline } from '../trunk/pagination.ts';
import { isInQueue } from '../trunk/pr-writes.ts';
import {
  type EnqueuedPullRequest,
  PRIORITIES,
  type PriorityName,
  type PullRequestChange,
  type PullRequestState,
  type SubmittedPullRequest,
} from '../trunk/types.ts';
import { address, type QueueContext } from './operations.ts';
import type { OperatorDecision } from './permissions.ts';

export type PrAction = 'submit' | 'cancel' | 'restart';

/** A Slack person linked to a GitHub login; `verified` when an operator made or confirmed the link. */
export interface AuthorLink {
  userId: string;
  verified: boolean;
}

/** Who holds a GitHub login in this workspace; the caller reads the people links (watch/ owns them). */
export type AuthorLookup = (githubLogin: string) => Promise<AuthorLink | undefined>;

export interface PrActor {
  /** The Slack user acting. */
  userId: string;
  /** Whether the person is an operator (read lazily: it may ask Slack). */
  operator: () => Promise<OperatorDecision>;
  authorOf: AuthorLookup;
}

export interface PrChangeRequest {
  action: PrAction;
  ref: QueueRef;
  prNumber: number;
  /** submit only. */
  priority?: PriorityName | number;
  noBatch?: boolean;
  /** cancel only: announced and audited. */
  reason?: string;
  /** The PR state the clicked message showed; given for buttons, absent for typed commands. */
  expected?: string;
  /**
   * Identifies one rendered button: repeated clicks of it count once. Claimed by the application service
   * (services/prs.ts) around the change; the domain does not read it.
   */
  clickKey?: string;
}

export type PrChangeResult =
  | {
      outcome: 'ok';
      action: PrAction;
      target: string;
      /** The PR before the change; absent when Trunk had never seen it (a first submit). */
      before?: SubmittedPullRequest;
      /** The PR as read after the change; absent when that read failed. */
      after?: SubmittedPullRequest;
      /** `read_back`: Trunk's answer was lost but the PR shows the change, so it was not sent again. */
      confirmedBy: PullRequestChange['confirmedBy'];
      /** Why this person was allowed: `workspace admin`, `author of #12 (…)`. */
      because: string;
      /** How many times the write was sent to Trunk (its client settles a lost answer by reading). */
      sent?: PullRequestChange['sent'];
    }
  | { outcome: 'noop'; action: PrAction; target: string; current?: SubmittedPullRequest; reason: string }
  | { outcome: 'refused'; action: PrAction; target: string; because: string }
  | { outcome: 'failed'; action: PrAction; target: string; error: Error };

const VERB: Record<PrAction, string> = {
  submit: 'submit',
  cancel: 'cancel',
  restart: 'restart the tests of',
};

/** States in which a typed command still makes sense. Trunk restarts a running test too. */
const COMMAND_FITS: Record<PrAction, (pr: SubmittedPullRequest | undefined) => boolean> = {
  submit: (pr) => !pr || (!isInQueue(pr) && pr.state !== 'merged'),
  cancel: (pr) => pr !== undefined && isInQueue(pr),
  restart: (pr) => pr !== undefined && ['failed', 'pending_failure', 'testing'].includes(String(pr.state)),
};

/**
 * Which buttons fit a PR's state: the next steps its author would take. A click acts only while the PR is
 * still in one of these states; one that moved on is left alone.
 */
export const BUTTON_STATES: Record<PrAction, readonly PullRequestState[]> = {
  restart: ['failed', 'pending_failure'],
  submit: ['failed', 'cancelled'],
  cancel: ['pending', 'testing', 'not_ready'],
};

/** The next steps that fit a PR in `state`, in the order buttons show them. */
export function nextSteps(state: string | undefined): PrAction[] {
  return (['restart', 'submit', 'cancel'] as const).filter((a) =>
    (BUTTON_STATES[a] as readonly string[]).includes(String(state)),
  );
}

export function isUrgent(priority: PriorityName | number | undefined): boolean {
  return priority === 'urgent' || priority === PRIORITIES.urgent;
}

/**
 * Whether a priority goes ahead of every `high` PR: `urgent`, or a number below high's (0–9). Only
 * operators may submit with one; an author may use high, medium, low, none or 10–255.
 */
export function isAheadOfHigh(priority: PriorityName | number | undefined): boolean {
  if (priority === undefined) return false;
  const value = typeof priority === 'number' ? priority : PRIORITIES[priority];
  return value < PRIORITIES.high;
}

export interface RightsFacts {
  action: PrAction;
  userId: string;
  prNumber: number;
  operator: OperatorDecision;
  /** The PR's GitHub login as Trunk reports it; undefined when Trunk has no record of the PR. */
  prAuthor: string | undefined;
  /** Who holds that login here, if anyone. */
  link: AuthorLink | undefined;
  /** A submit ahead of every `high` PR (`urgent`, or 0–9): operators only. */
  urgent: boolean;
}

export type RightsDecision = { allowed: true; because: string } | { allowed: false; because: string };

/** Pure: an operator, or the PR's author through an operator's link; `urgent` for operators only. */
export function decidePrRights(f: RightsFacts): RightsDecision {
  if (f.operator.allowed) return { allowed: true, because: f.operator.because };
  const what = `${VERB[f.action]} #${f.prNumber}`;
  if (f.urgent)
    return {
      allowed: false,
      because:
        'only operators may submit with `urgent` priority or a number below 10, since it goes ahead of every `high` PR; use high, medium, low, none or 10–255',
    };
  if (!f.prAuthor)
    return {
      allowed: false,
      because: `Trunk does not say who wrote #${f.prNumber}, so only operators may ${VERB[f.action]} it`,
    };
  const login = f.prAuthor;
  if (!f.link || f.link.userId !== f.userId)
    return {
      allowed: false,
      because: `only operators and the PR's author may ${what}, and #${f.prNumber} is by GitHub user ${login}, who is not linked to you`,
    };
  if (!f.link.verified)
    return {
      allowed: false,
      because: `you linked yourself to GitHub user ${login}, and an operator has not confirmed that link; ask one to run \`/mergequeue config people @you ${login}\``,
    };
  return { allowed: true, because: `author of #${f.prNumber} (GitHub ${login}, linked by an operator)` };
}

/** What an attempt on the PR is recorded under: `owner/repo:branch#12`. */
export function prTarget(req: Pick<PrChangeRequest, 'ref' | 'prNumber'>): string {
  return `${formatQueueRef(req.ref)}#${req.prNumber}`;
}

/**
 * Reads the PR, decides who may act on it, checks that the action still fits its current state, and sends
 * the write once (the client settles a lost answer by reading the PR, never by sending blindly again).
 */
export async function changePullRequest(
  ctx: QueueContext,
  req: PrChangeRequest,
  actor: PrActor,
): Promise<PrChangeResult> {
  const ready = await prepare(ctx, req, actor);
  if ('outcome' in ready) return ready;
  let change: PullRequestChange;
  try {
    change = await send(ctx, req);
  } catch (err) {
    return failed(req, err);
  }
  // Trunk applied it: from here on the result is 'ok' whatever the read (or the caller's audit) does.
  const after = change.pullRequest ?? (await readPr(ctx, req.ref, req.prNumber).catch(() => undefined));
  const r: PrChangeResult = {
    outcome: 'ok',
    action: req.action,
    target: prTarget(req),
    confirmedBy: change.confirmedBy,
    because: ready.because,
    sent: change.sent,
  };
  if (ready.before) r.before = ready.before;
  if (after) r.after = after;
  return r;
}

export type PrPreview =
  | { outcome: 'ready'; current: SubmittedPullRequest | undefined }
  | Exclude<PrChangeResult, { outcome: 'ok' }>;

/**
 * The checks of changePullRequest without the write, for a step that asks first (Cancel's confirmation):
 * a refusal or a PR that moved on is answered before the person fills anything in.
 */
export async function previewPullRequestChange(
  ctx: QueueContext,
  req: Omit<PrChangeRequest, 'clickKey'>,
  actor: PrActor,
): Promise<PrPreview> {
  const ready = await prepare(ctx, req, actor);
  return 'outcome' in ready ? ready : { outcome: 'ready', current: ready.before };
}

/** The read-decide-check part both entry points share. */
async function prepare(
  ctx: QueueContext,
  req: PrChangeRequest,
  actor: PrActor,
): Promise<
  { before: SubmittedPullRequest | undefined; because: string } | Exclude<PrChangeResult, { outcome: 'ok' }>
> {
  const { action } = req;
  const target = prTarget(req);
  let before: SubmittedPullRequest | undefined;
  let rights: RightsDecision;
  try {
    before = await readPr(ctx, req.ref, req.prNumber);
    const operator = await actor.operator();
    const prAuthor = before?.prAuthor?.trim() || undefined;
    const link = operator.allowed || !prAuthor ? undefined : await actor.authorOf(prAuthor);
    rights = decidePrRights({
      action,
      userId: actor.userId,
      prNumber: req.prNumber,
      operator,
      prAuthor,
      link,
      urgent: action === 'submit' && isAheadOfHigh(req.priority),
    });
  } catch (err) {
    return failed(req, err);
  }
  if (!rights.allowed) return { outcome: 'refused', action, target, because: rights.because };
  const why = whyNot(req, before);
  if (why) {
    const r: Exclude<PrChangeResult, { outcome: 'ok' }> = { outcome: 'noop', action, target, reason: why };
    if (before) r.current = before;
    return r;
  }
  return { before, because: rights.because };
}

function failed(req: PrChangeRequest, thrown: unknown): Extract<PrChangeResult, { outcome: 'failed' }> {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  return { outcome: 'failed', action: req.action, target: prTarget(req), error };
}

/** The PR as Trunk reports it, or undefined when Trunk has no record of it. */
async function readPr(
  ctx: Pick<QueueContext, 'trunk'>,
  ref: QueueRef,
  prNumber: number,
): Promise<SubmittedPullRequest | undefined> {
  try {
    // The state a change acts on: read in line with changes, ahead of other reads (src/trunk/budget.ts).
    return await ctx.trunk.getSubmittedPullRequest(
      { ...address(ref), pr: { number: prNumber } },
      { forChange: true },
    );
  } catch (err) {
    if (err instanceof TrunkNotFoundError) return undefined;
    throw err;
  }
}

function send(ctx: QueueContext, req: PrChangeRequest): Promise<PullRequestChange> {
  const pr = { ...address(req.ref), pr: { number: req.prNumber } };
  if (req.action === 'cancel') return ctx.trunk.cancelPullRequest(pr);
  if (req.action === 'restart') return ctx.trunk.restartTestsOnPullRequest(pr);
  return ctx.trunk.submitPullRequest({
    ...pr,
    ...(req.priority !== undefined ? { priority: req.priority } : {}),
    ...(req.noBatch ? { noBatch: true } : {}),
  });
}

/** Why the action does not fit the PR as it is now, in words; undefined when it does. */
function whyNot(req: PrChangeRequest, pr: SubmittedPullRequest | undefined): string | undefined {
  const n = `#${req.prNumber}`;
  const state = pr?.state === undefined ? undefined : String(pr.state);
  const fits =
    req.expected === undefined
      ? COMMAND_FITS[req.action](pr)
      : state !== undefined && (BUTTON_STATES[req.action] as readonly string[]).includes(state);
  if (fits) return undefined;
  const shown =
    req.expected !== undefined && req.expected !== state
      ? ` (this message showed it ${words(req.expected)})`
      : '';
  const nothing = 'so nothing was sent to Trunk';
  if (!pr) return `Trunk has no record of ${n} in this queue, ${nothing}.`;
  if (state === 'merged') return `${n} is already merged${shown}, ${nothing}.`;
  if (req.action === 'submit' && isInQueue(pr))
    return `${n} is already in the queue (${words(state ?? 'pending')})${shown}, ${nothing}.`;
  if (req.action === 'cancel' && !isInQueue(pr))
    return `${n} is not in the queue: it is ${words(state ?? 'not submitted')}${shown}, ${nothing}.`;
  return `${n} is ${words(state ?? 'in an unknown state')} now${shown}, so ${req.action === 'submit' ? 're-submitting' : req.action === 'cancel' ? 'cancelling' : 'restarting its tests'} does not fit; ${nothing}.`;
}

function words(state: string): string {
  return state.replaceAll('_', ' ');
}

// ---- listing ------------------------------------------------------------------------------------------

export interface PrListing {
  shown: EnqueuedPullRequest[];
  /** Matching PRs beyond those shown. */
  more: number;
  /** True when counting stopped at the page limit (or the deadline): there are at least `more`. */
  moreAtLeast: boolean;
  /** Trunk was too slow for the deadline: counted from the pages that came in time only. */
  cutShort?: boolean;
  /** A concluded state is listed over a time range: PRs that concluded since then (epoch ms). */
  concludedSince?: number;
}

export interface ListOptions {
  /** Only PRs in this state; absent: every PR not concluded (merged, failed, cancelled). */
  state?: PullRequestState;
  /** How many rows the caller can show. */
  show: number;
  /** Pages read at most while counting the rest (each up to 100 rows); default 3. */
  maxPages?: number;
  /** Now, epoch ms, for the time range of concluded PRs. */
  now?: number;
  /**
   * Epoch ms by which the listing answers with the pages read so far (`cutShort`); the page still in
   * flight then is left (it may be shared through the read cache). None read by then: TrunkUnavailableError.
   */
  deadlineAt?: number;
}

/** Concluded PRs (merged, failed, cancelled) are listed over this range: a queue's history is long. */
export const CONCLUDED_RANGE_MS = 7 * 24 * 3_600_000;
/**
 * Pages read by default: enough to show what fits a reply and count a long queue; past that the reply
 * says "at least", rather than read a queue's whole history from Trunk's shared budget.
 */
const LIST_PAGES = 3;

/**
 * The queue's PRs through listPullRequests, page by page: the first `show`, and how many more. Trunk is
 * asked only for what is shown: the state asked for, and for a concluded state only the last week.
 */
export async function listQueuePullRequests(
  ctx: Pick<QueueContext, 'trunk'>,
  ref: QueueRef,
  opts: ListOptions,
): Promise<PrListing> {
  const maxPages = opts.maxPages ?? LIST_PAGES;
  const shown: EnqueuedPullRequest[] = [];
  let more = 0;
  let pages = 0;
  const concludedSince =
    opts.state && CONCLUDED.has(opts.state) ? (opts.now ?? Date.now()) - CONCLUDED_RANGE_MS : undefined;
  const req = {
    ...address(ref),
    ...(opts.state ? { state: opts.state } : {}),
    ...(concludedSince !== undefined ? { since: new Date(concludedSince).toISOString() } : {}),
  };
  const range = concludedSince !== undefined ? { concludedSince } : {};
  // maxPages + 1 lets the iteration itself stop first; reaching our own limit means "at least".
  const cut: Cutoff = { reached: false };
  const all = ctx.trunk.pullRequestPages(req, { pageSize: 100, maxPages: maxPages + 1 });
  const inTime = opts.deadlineAt === undefined ? all : untilDeadline(all, opts.deadlineAt, cut);
  for await (const page of inTime) {
    pages += 1;
    for (const row of page.pullRequests) {
      if (!opts.state && !isOpen(row)) continue;
      if (shown.length < opts.show) shown.push(row);
      else more += 1;
    }
    if (pages >= maxPages && page.nextCursor) return { shown, more, moreAtLeast: true, ...range };
  }
  if (cut.reached) {
    if (pages === 0)
      throw new TrunkUnavailableError("Trunk listPullRequests did not answer by the listing's deadline.", {
        operation: 'listPullRequests',
        timedOut: true,
      });
    return { shown, more, moreAtLeast: true, cutShort: true, ...range };
  }
  return { shown, more, moreAtLeast: false, ...range };
}

const CONCLUDED: ReadonlySet<string> = new Set<PullRequestState>(['merged', 'failed', 'cancelled']);

/** Not concluded; a row without a state (the contract leaves it out) counts as open. */
function isOpen(row: EnqueuedPullRequest): boolean {
  return row.state === undefined || !CONCLUDED.has(String(row.state));
}
