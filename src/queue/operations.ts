/**
 * What queue commands and buttons do, independent of Slack: read the queue, decide from its CURRENT state
 * and change it through Trunk. Results are plain data (ok with before/after, noop with the reason, failed
 * with the error, which Trunk's errors are returned as) for the caller to audit and render: the audit rows
 * and the click claims are the application layer's (services/queue-changes.ts), never written here.
 */

import { formatQueueRef, type QueueRef, type RepoRef } from '../core/target.ts';
import type { CallOptions, TrunkApi } from '../trunk/api.ts';
import { type TrunkError, TrunkInvalidRequestError } from '../trunk/errors.ts';
import {
  CHANGE_FOR_STATE,
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_BOOL_SETTINGS,
  QUEUE_INT_MAX,
  QUEUE_INT_MIN,
  QUEUE_INT_SETTINGS,
  QUEUE_MODES,
  type Queue,
  type QueueState,
  type SettableQueueState,
  type SubmittedPullRequest,
  type TestRun,
  type UpdateQueueRequest,
} from '../trunk/types.ts';

/** What the queue domain acts through: the workspace's Trunk client, and nothing else. */
export interface QueueContext {
  trunk: TrunkApi;
}

export type QueueAction = 'pause' | 'drain' | 'resume' | 'concurrency' | 'settings';

export type ChangeResult =
  | {
      outcome: 'ok';
      action: QueueAction;
      target: string;
      before: Queue;
      after: Queue;
      /** `after` with the PR list read just before the change (updateQueue answers without it): for redrawing. */
      view: Queue;
      /** Settings only: the fields sent to Trunk (those that differed from `before`). */
      sent?: SettingsChanges;
    }
  | { outcome: 'noop'; action: QueueAction; target: string; before?: Queue; reason: string }
  | {
      outcome: 'failed';
      action: QueueAction;
      target: string;
      before?: Queue;
      error: ChangeError;
      /** Settings only: what was sent to Trunk when the write itself failed (absent: nothing was sent). */
      sent?: SettingsChanges;
    };

/**
 * Why a change failed: Trunk's error (with its kind and facts), or anything else that went wrong on our side
 * (the store not answering, a bug), which callers show as a generic failure.
 */
export type ChangeError = TrunkError | Error;

/** Every updateQueue field but the address and state. */
export type SettingsChanges = Omit<UpdateQueueRequest, 'repo' | 'targetBranch' | 'state'>;

export interface ChangeStateOptions {
  reason?: string;
  /** The state the clicked message showed; given for buttons, absent for typed commands. */
  expected?: QueueState;
}

/** From which current states a button's intent still makes sense. */
const BUTTON_FITS: Record<SettableQueueState, readonly string[]> = {
  running: ['paused', 'draining'],
  paused: ['running', 'draining'],
  draining: ['running'],
};

export function address(ref: QueueRef): { repo: RepoRef; targetBranch: string } {
  return {
    repo: { host: ref.repo.host, owner: ref.repo.owner, name: ref.repo.name },
    targetBranch: ref.branch,
  };
}

export async function readQueue(
  ctx: Pick<QueueContext, 'trunk'>,
  ref: QueueRef,
  opts: CallOptions = {},
): Promise<Queue> {
  return ctx.trunk.getQueue(address(ref), opts);
}

/** The read a change starts with waits in line with changes, before other reads (src/trunk/budget.ts). */
const FOR_CHANGE: CallOptions = { forChange: true };

export async function readPullRequest(
  ctx: Pick<QueueContext, 'trunk'>,
  ref: QueueRef,
  prNumber: number,
): Promise<SubmittedPullRequest> {
  return ctx.trunk.getSubmittedPullRequest({ ...address(ref), pr: { number: prNumber } });
}

export async function readTestRun(
  ctx: Pick<QueueContext, 'trunk'>,
  ref: QueueRef,
  testRunId: string,
): Promise<TestRun> {
  return ctx.trunk.getMergeQueueTestingDetails({ ...address(ref), testRunId });
}

export async function changeState(
  ctx: QueueContext,
  ref: QueueRef,
  desired: SettableQueueState,
  opts: ChangeStateOptions = {},
): Promise<ChangeResult> {
  const action = CHANGE_FOR_STATE[desired];
  const target = formatQueueRef(ref);
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    return failed(action, target, undefined, error);
  }
  const current = String(before.state).toLowerCase();
  if (current === desired) return noop(action, target, before, `${target} is already ${desired}.`);
  if (opts.expected !== undefined) {
    const shown = String(opts.expected).toLowerCase();
    if (!BUTTON_FITS[desired].includes(current)) {
      const since = shown === current ? '' : ` (this message showed it ${shown})`;
      return noop(
        action,
        target,
        before,
        `${target} is ${current.replaceAll('_', ' ')} now${since}, so ${verbing(desired)} it was not done. The message now shows the current state.`,
      );
    }
  }
  const req: UpdateQueueRequest = { ...address(ref), state: desired };
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue(req);
  } catch (error) {
    return failed(action, target, before, error);
  }
  return { outcome: 'ok', action, target, before, after, view: withPrs(after, before) };
}

function verbing(s: SettableQueueState): string {
  return s === 'paused' ? 'pausing' : s === 'draining' ? 'draining' : 'resuming';
}

export interface SetConcurrencyOptions {
  /** The concurrency the clicked message showed; a + or − click acts only if it is still current. */
  expectedCurrent?: number;
}

/** Why `n` cannot be a queue's concurrency, as a local (never sent) error; undefined when it can. */
export function concurrencyError(n: number): TrunkInvalidRequestError | undefined {
  return intError('concurrency', n);
}

export async function setConcurrency(
  ctx: QueueContext,
  ref: QueueRef,
  n: number,
  opts: SetConcurrencyOptions = {},
): Promise<ChangeResult> {
  const target = formatQueueRef(ref);
  const invalid = concurrencyError(n);
  if (invalid) return failed('concurrency', target, undefined, invalid);
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    return failed('concurrency', target, undefined, error);
  }
  if (opts.expectedCurrent !== undefined && before.concurrency !== opts.expectedCurrent)
    return noop(
      'concurrency',
      target,
      before,
      `Concurrency of ${target} is ${before.concurrency} now (this message showed ${opts.expectedCurrent}), so it was left as it is.`,
    );
  if (before.concurrency === n)
    return noop('concurrency', target, before, `Concurrency of ${target} is already ${n}.`);
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue({ ...address(ref), concurrency: n });
  } catch (error) {
    return failed('concurrency', target, before, error);
  }
  return { outcome: 'ok', action: 'concurrency', target, before, after, view: withPrs(after, before) };
}

/** Checks a changes object against the contract; the first problem, as a local (never sent) error. */
export function validateSettings(changes: SettingsChanges): TrunkInvalidRequestError | undefined {
  for (const key of QUEUE_INT_SETTINGS) {
    const v = changes[key];
    if (v !== undefined) {
      const e = intError(key, v);
      if (e) return e;
    }
  }
  for (const key of QUEUE_BOOL_SETTINGS) {
    const v = changes[key];
    if (v !== undefined && typeof v !== 'boolean') return local(key, 'must be on or off');
  }
  const enums: Array<[keyof SettingsChanges, readonly string[]]> = [
    ['mode', QUEUE_MODES],
    ['directMergeMode', DIRECT_MERGE_MODES],
    ['optimizationMode', OPTIMIZATION_MODES],
    ['mergeMethod', MERGE_METHODS],
  ];
  for (const [key, allowed] of enums) {
    const v = changes[key];
    if (v !== undefined && !allowed.includes(v as string))
      return local(key, `must be one of ${allowed.join(', ')}`);
  }
  if (changes.requiredStatuses !== undefined) {
    const list = changes.requiredStatuses;
    if (!Array.isArray(list) || list.some((s) => typeof s !== 'string' || s.trim() === '' || s.length > 255))
      return local('requiredStatuses', 'must be a list of status names, each 1–255 characters');
    if (list.length > 100) return local('requiredStatuses', 'may list at most 100 statuses');
  }
  if (changes.deleteRequiredStatuses !== undefined && typeof changes.deleteRequiredStatuses !== 'boolean')
    return local('deleteRequiredStatuses', 'must be true or false');
  if (changes.deleteRequiredStatuses === true && changes.requiredStatuses !== undefined)
    return local('requiredStatuses', 'cannot be set while also removing the manual list');
  return undefined;
}

/** Drops the fields that already have the wanted value, so only real changes are sent. */
export function diffSettings(current: Queue, changes: SettingsChanges): SettingsChanges {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes) as Array<[keyof SettingsChanges, unknown]>) {
    if (value === undefined) continue;
    if (key === 'requiredStatuses') {
      const cur = current.requiredStatuses ?? [];
      const next = value as string[];
      if (cur.length === next.length && cur.every((s, i) => s === next[i])) continue;
    } else if (key === 'deleteRequiredStatuses') {
      if (value !== true || (current.requiredStatuses ?? []).length === 0) continue;
    } else if (
      key in current &&
      String((current as unknown as Record<string, unknown>)[key]).toLowerCase() === String(value)
    ) {
      continue;
    }
    out[key] = value;
  }
  return out as SettingsChanges;
}

export async function updateSettings(
  ctx: QueueContext,
  ref: QueueRef,
  changes: SettingsChanges,
): Promise<ChangeResult> {
  const target = formatQueueRef(ref);
  const invalid = validateSettings(changes);
  if (invalid) return failed('settings', target, undefined, invalid);
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    return failed('settings', target, undefined, error);
  }
  const sent = diffSettings(before, changes);
  if (Object.keys(sent).length === 0)
    return noop('settings', target, before, `Nothing to change: ${target} already has those settings.`);
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue({ ...address(ref), ...sent });
  } catch (error) {
    return { ...failed('settings', target, before, error), sent };
  }
  return { outcome: 'ok', action: 'settings', target, before, after, view: withPrs(after, before), sent };
}

// ---- helpers ------------------------------------------------------------------------------------------

function withPrs(after: Queue, before: Queue): Queue {
  if (after.enqueuedPullRequests !== undefined || before.enqueuedPullRequests === undefined) return after;
  return { ...after, enqueuedPullRequests: before.enqueuedPullRequests };
}

function local(field: string, rule: string): TrunkInvalidRequestError {
  return new TrunkInvalidRequestError(`${field} ${rule}`, {
    operation: 'updateQueue',
    field,
    rule,
    local: true,
  });
}

function intError(field: string, v: unknown): TrunkInvalidRequestError | undefined {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < QUEUE_INT_MIN || v > QUEUE_INT_MAX)
    return local(field, `must be a whole number from ${QUEUE_INT_MIN} to ${QUEUE_INT_MAX}`);
  return undefined;
}

function noop(action: QueueAction, target: string, before: Queue | undefined, reason: string): ChangeResult {
  const r: ChangeResult = { outcome: 'noop', action, target, reason };
  if (before) r.before = before;
  return r;
}

function failed(
  action: QueueAction,
  target: string,
  before: Queue | undefined,
  thrown: unknown,
): Extract<ChangeResult, { outcome: 'failed' }> {
  const error: ChangeError = thrown instanceof Error ? thrown : new Error(String(thrown));
  const r: Extract<ChangeResult, { outcome: 'failed' }> = { outcome: 'failed', action, target, error };
  if (before) r.before = before;
  return r;
}
