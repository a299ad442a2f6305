/**
 * What queue commands and buttons do, independent of Slack: read the queue, decide from its CURRENT state,
 * change it through Trunk, and leave an audit entry for every change, no-op, failure and refusal.
 * Results are plain data; errors from Trunk are returned (as `failed`) for the caller to render.
 */

import { formatQueueRef, type QueueRef, type RepoRef } from '../core/target.ts';
import { type AuditLost, auditBy } from '../store/audit-retrying.ts';
import type { Store } from '../store/types.ts';
import type { CallOptions, TrunkApi } from '../trunk/api.ts';
import { isTrunkError, type TrunkError, TrunkInvalidRequestError } from '../trunk/errors.ts';
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

export interface QueueContext {
  trunk: TrunkApi;
  store: Store;
  workspaceId: string;
  /** The Slack user acting. */
  userId: string;
  now: () => number;
  /**
   * Where an audit entry goes when the store refused it on every retry (log and count). Without it the
   * store's error is thrown, as before.
   */
  auditLost?: AuditLost;
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
    }
  | { outcome: 'noop'; action: QueueAction; target: string; before?: Queue; reason: string }
  | { outcome: 'failed'; action: QueueAction; target: string; before?: Queue; error: ChangeError };

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
  /** Identifies one rendered button (message version + action): repeated clicks of it count once. */
  clickKey?: string;
}

/** From which current states a button's intent still makes sense. */
const BUTTON_FITS: Record<SettableQueueState, readonly string[]> = {
  running: ['paused', 'draining'],
  paused: ['running', 'draining'],
  draining: ['running'],
};

const CLICK_TTL_MS = 30_000;

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
  const via = opts.expected === undefined ? 'command' : 'button';
  const base: Record<string, unknown> = { via, desired };
  if (opts.reason) base.reason = opts.reason;
  if (opts.expected !== undefined) base.expected = opts.expected;

  if (opts.clickKey && !(await claimClick(ctx, opts.clickKey))) {
    return noop(ctx, action, target, undefined, 'That click was already handled.', base);
  }
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    await releaseClick(ctx, opts.clickKey);
    return failed(ctx, action, target, undefined, error, base);
  }
  const current = String(before.state).toLowerCase();
  if (current === desired) return noop(ctx, action, target, before, `${target} is already ${desired}.`, base);
  if (opts.expected !== undefined) {
    const shown = String(opts.expected).toLowerCase();
    if (!BUTTON_FITS[desired].includes(current)) {
      const since = shown === current ? '' : ` (this message showed it ${shown})`;
      return noop(
        ctx,
        action,
        target,
        before,
        `${target} is ${current.replaceAll('_', ' ')} now${since}, so ${verbing(desired)} it was not done. The message now shows the current state.`,
        base,
      );
    }
  }
  const req: UpdateQueueRequest = { ...address(ref), state: desired };
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue(req);
  } catch (error) {
    await releaseClick(ctx, opts.clickKey);
    return failed(ctx, action, target, before, error, base);
  }
  // Trunk applied it: from here on the result is 'ok' whatever the audit write does.
  await auditBy(ctx, action, target, 'ok', { ...base, before: before.state, after: after.state });
  return { outcome: 'ok', action, target, before, after, view: withPrs(after, before) };
}

function verbing(s: SettableQueueState): string {
  return s === 'paused' ? 'pausing' : s === 'draining' ? 'draining' : 'resuming';
}

export interface SetConcurrencyOptions {
  /** The concurrency the clicked message showed; a + or − click acts only if it is still current. */
  expectedCurrent?: number;
  clickKey?: string;
}

export async function setConcurrency(
  ctx: QueueContext,
  ref: QueueRef,
  n: number,
  opts: SetConcurrencyOptions = {},
): Promise<ChangeResult> {
  const target = formatQueueRef(ref);
  const base: Record<string, unknown> = {
    via: opts.expectedCurrent === undefined ? 'command' : 'button',
    desired: n,
  };
  const invalid = intError('concurrency', n);
  if (invalid) return failed(ctx, 'concurrency', target, undefined, invalid, base);
  if (opts.clickKey && !(await claimClick(ctx, opts.clickKey)))
    return noop(ctx, 'concurrency', target, undefined, 'That click was already handled.', base);
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    await releaseClick(ctx, opts.clickKey);
    return failed(ctx, 'concurrency', target, undefined, error, base);
  }
  if (opts.expectedCurrent !== undefined && before.concurrency !== opts.expectedCurrent)
    return noop(
      ctx,
      'concurrency',
      target,
      before,
      `Concurrency of ${target} is ${before.concurrency} now (this message showed ${opts.expectedCurrent}), so it was left as it is.`,
      base,
    );
  if (before.concurrency === n)
    return noop(ctx, 'concurrency', target, before, `Concurrency of ${target} is already ${n}.`, base);
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue({ ...address(ref), concurrency: n });
  } catch (error) {
    await releaseClick(ctx, opts.clickKey);
    return failed(ctx, 'concurrency', target, before, error, base);
  }
  // Trunk applied it: from here on the result is 'ok' whatever the audit write does.
  await auditBy(ctx, 'concurrency', target, 'ok', {
    ...base,
    before: before.concurrency,
    after: after.concurrency,
  });
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
  if (invalid) return failed(ctx, 'settings', target, undefined, invalid, { requested: changes });
  let before: Queue;
  try {
    before = await readQueue(ctx, ref, FOR_CHANGE);
  } catch (error) {
    return failed(ctx, 'settings', target, undefined, error, { requested: changes });
  }
  const send = diffSettings(before, changes);
  if (Object.keys(send).length === 0)
    return noop(
      ctx,
      'settings',
      target,
      before,
      `Nothing to change: ${target} already has those settings.`,
      {},
    );
  let after: Queue;
  try {
    after = await ctx.trunk.updateQueue({ ...address(ref), ...send });
  } catch (error) {
    return failed(ctx, 'settings', target, before, error, { changes: send });
  }
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const key of Object.keys(send)) {
    const k = key === 'deleteRequiredStatuses' ? 'requiredStatuses' : key;
    was[k] = (before as unknown as Record<string, unknown>)[k];
    now[k] = (after as unknown as Record<string, unknown>)[k];
  }
  // Trunk applied it: from here on the result is 'ok' whatever the audit write does.
  await auditBy(ctx, 'settings', target, 'ok', { changes: send, before: was, after: now });
  return { outcome: 'ok', action: 'settings', target, before, after, view: withPrs(after, before) };
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

export async function claimClick(ctx: QueueContext, clickKey: string): Promise<boolean> {
  return ctx.store.claimOnce(clickClaimKey(ctx, clickKey), CLICK_TTL_MS);
}

function clickClaimKey(ctx: QueueContext, clickKey: string): string {
  return `click:${ctx.workspaceId}:${clickKey}`;
}

/**
 * A claim covers only a change that was applied: when Trunk (or the store) failed before that, the claim
 * is given back so the person can click again at once. If even that fails the claim expires by itself.
 */
export async function releaseClick(ctx: QueueContext, clickKey: string | undefined): Promise<void> {
  if (!clickKey) return;
  await ctx.store.releaseClaim(clickClaimKey(ctx, clickKey)).catch(() => undefined);
}

async function noop(
  ctx: QueueContext,
  action: QueueAction,
  target: string,
  before: Queue | undefined,
  reason: string,
  detail: Record<string, unknown>,
): Promise<ChangeResult> {
  await auditBy(ctx, action, target, 'noop', { ...detail, why: reason, current: before?.state });
  const r: ChangeResult = { outcome: 'noop', action, target, reason };
  if (before) r.before = before;
  return r;
}

async function failed(
  ctx: QueueContext,
  action: QueueAction,
  target: string,
  before: Queue | undefined,
  thrown: unknown,
  detail: Record<string, unknown>,
): Promise<ChangeResult> {
  const trunk = isTrunkError(thrown) ? thrown : undefined;
  await auditBy(ctx, action, target, 'failed', {
    ...detail,
    error: trunk?.kind ?? 'internal',
    message: trunk?.userMessage ?? 'unexpected error',
    ...(trunk?.status !== undefined ? { status: trunk.status } : {}),
  });
  const error: ChangeError = trunk ?? (thrown instanceof Error ? thrown : new Error(String(thrown)));
  const r: ChangeResult = { outcome: 'failed', action, target, error };
  if (before) r.before = before;
  return r;
}
