/**
 * The queue feature: which queue a request means, reading it (status, one PR, one test run), and changing
 * it (pause, drain, resume, concurrency, settings). Anyone may read; only operators change, checked here
 * every time. The domain rules (act on the queue's current state) are queue/operations.ts's, which returns
 * plain outcomes; this service adds who is asking, claims a clicked button once, and writes the audit row
 * of every refusal, change, no-op and failure (`changeQueueAs`, which the freezer's windows use too).
 */
import { formatQueueRef, type QueueRef, resolveTarget, type TargetSpec } from '../core/target.ts';
import {
  type ChangeResult,
  changeState,
  concurrencyError,
  type QueueAction,
  readPullRequest,
  readQueue,
  readTestRun,
  type SettingsChanges,
  setConcurrency,
  updateSettings,
} from '../queue/operations.ts';
import type { AuditEntry, Store } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { isTrunkError } from '../trunk/errors.ts';
import {
  CHANGE_FOR_STATE,
  type Queue,
  type QueueState,
  type SettableQueueState,
  type SubmittedPullRequest,
  type TestRun,
} from '../trunk/types.ts';
import type { MergeQueueOrder } from '../trunk/v2/schemas.ts';
import { queueKeyOf } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps, WorkspaceTrunk } from './ports.ts';

/** The queue a request means, with the workspace's Trunk access. */
export type Located =
  | { answer: 'located'; ref: QueueRef; trunk: WorkspaceTrunk }
  /** No queue typed, no channel or workspace default, no DEFAULT_REPO. */
  | { answer: 'no_target' }
  /** The workspace has no Trunk credentials. */
  | { answer: 'not_connected' };

/** Where a change or read acts: a located queue. */
export interface QueueAt {
  ref: QueueRef;
  trunk: WorkspaceTrunk;
}

/** A read of Trunk: the value, or Trunk's (or our) error for the Slack side to put in words. */
export type ReadAnswer<T> = { answer: 'read'; value: T } | { answer: 'read_failed'; error: unknown };

export type Authorization = { answer: 'allowed'; because: string } | { answer: 'refused'; because: string };

export type QueueChangeRequest =
  | {
      kind: 'state';
      desired: SettableQueueState;
      reason?: string;
      /** The state the clicked message showed; absent for typed commands. */
      expected?: QueueState;
      clickKey?: string;
    }
  | { kind: 'concurrency'; value: number; expectedCurrent?: number; clickKey?: string }
  | { kind: 'settings'; changes: SettingsChanges };

/** What a change did: queue/operations.ts's result, or a refusal (audited) when the person is no operator. */
export type QueueChangeAnswer =
  | ChangeResult
  | { outcome: 'refused'; action: QueueAction; target: string; because: string };

/** How long a person's `status` or click waits for the dispatch order before showing v1's list. */
export const ORDER_DEADLINE_MS = 5_000;

export class QueueService {
  readonly #deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.#deps = deps;
  }

  /** The workspace's Trunk access; undefined when it is not connected. */
  trunk(actor: Actor): Promise<WorkspaceTrunk | undefined> {
    return this.#deps.trunk.trunkFor(actor.workspace.id);
  }

  /**
   * The queue's dispatch order for what a person asked for (`status`, a click that redraws a status
   * message): undefined without a v2 key, and when it cannot be read within ORDER_DEADLINE_MS (logged:
   * v1's list is shown).
   */
  async dispatchOrder(actor: Actor, target: QueueRef): Promise<MergeQueueOrder | undefined> {
    const workspaceId = actor.workspace.id;
    try {
      const v2 = await this.#deps.trunk.v2For(workspaceId, 'interactive');
      if (!v2) return undefined;
      return await v2.reader.order(
        { repo: target.repo, targetBranch: target.branch },
        { deadlineMs: ORDER_DEADLINE_MS },
      );
    } catch (err) {
      this.#deps.logger.warn(
        { err, workspace: workspaceId, queue: queueKeyOf(target) },
        "could not read the queue's dispatch order from Trunk v2; showing v1's list",
      );
      return undefined;
    }
  }

  /** The queue a command means: typed, else the channel's default, the workspace's, then DEFAULT_REPO. */
  /** `how.cached`: a listing that only shows may be answered from the process's short read cache. */
  async locate(
    actor: Actor,
    channelId: string | undefined,
    typed: TargetSpec | undefined,
    how: { cached?: boolean } = {},
  ): Promise<Located> {
    const [ref, trunk] = await Promise.all([
      this.resolveRef(actor, channelId, typed),
      how.cached ? this.#deps.trunk.readsFor(actor.workspace.id) : this.trunk(actor),
    ]);
    if (!ref) return { answer: 'no_target' };
    if (!trunk) return { answer: 'not_connected' };
    return { answer: 'located', ref, trunk };
  }

  /** The queue a target means, without Trunk access (undefined when nothing names one). */
  async resolveRef(
    actor: Actor,
    channelId: string | undefined,
    typed: TargetSpec | undefined,
  ): Promise<QueueRef | undefined> {
    if (typed?.repo && typed.branch !== undefined) return resolveTarget(typed);
    const { store } = this.#deps;
    const workspaceId = actor.workspace.id;
    const [channelDefault, ws] = await Promise.all([
      channelId ? store.getChannelDefault(workspaceId, channelId) : Promise.resolve(undefined),
      store.getWorkspace(workspaceId),
    ]);
    return resolveTarget(typed, channelDefault, ws?.defaultTarget, this.#deps.defaults().defaultTarget);
  }

  /**
   * Whether the person may change the queue (operators only). A refusal is audited under `action`; a form
   * that opens first (settings, the Pause reason) asks here before opening, and the change asks again.
   */
  async authorize(actor: Actor, action: string, target: string): Promise<Authorization> {
    const decision = await actor.operator();
    if (decision.allowed) return { answer: 'allowed', because: decision.because };
    await actor.audit(action, target, 'refused', { because: decision.because });
    return { answer: 'refused', because: decision.because };
  }

  /** Changes the queue, if the person is an operator: against its current state, audited either way. */
  async change(actor: Actor, at: QueueAt, req: QueueChangeRequest): Promise<QueueChangeAnswer> {
    const action = actionOf(req);
    const target = formatQueueRef(at.ref);
    const allowed = await this.authorize(actor, action, target);
    if (allowed.answer === 'refused') return { outcome: 'refused', action, target, because: allowed.because };
    return changeQueueAs(this.changer(actor, at.trunk), at.ref, req);
  }

  /** The queue as Trunk has it now (anyone may read). */
  queue(_actor: Actor, at: QueueAt): Promise<ReadAnswer<Queue>> {
    return read(() => readQueue({ trunk: at.trunk.api }, at.ref));
  }

  /** One submitted PR (anyone may read). */
  pullRequest(_actor: Actor, at: QueueAt, prNumber: number): Promise<ReadAnswer<SubmittedPullRequest>> {
    return read(() => readPullRequest({ trunk: at.trunk.api }, at.ref, prNumber));
  }

  /** One test run (anyone may read). */
  testRun(_actor: Actor, at: QueueAt, testRunId: string): Promise<ReadAnswer<TestRun>> {
    return read(() => readTestRun({ trunk: at.trunk.api }, at.ref, testRunId));
  }

  /** Who changes the queue and where the audit row and click claim go: this person, for the domain's changes. */
  changer(actor: Actor, trunk: WorkspaceTrunk): QueueChanger {
    return {
      trunk: trunk.api,
      workspaceId: actor.workspace.id,
      audit: (action, target, outcome, detail) => actor.audit(action, target, outcome, detail),
      claims: this.#deps.store,
    };
  }
}

// ---- the audited change flow ---------------------------------------------------------------------------

/** Writes one audit row as whoever acts (Actor.audit, retried; a lost row is logged, never thrown). */
export type AuditWrite = (
  action: string,
  target: string,
  outcome: AuditEntry['outcome'],
  detail: Record<string, unknown>,
) => Promise<void>;

/** Who changes a queue: their Trunk client, workspace, audit writer, and the store's click claims. */
export interface QueueChanger {
  trunk: TrunkApi;
  workspaceId: string;
  audit: AuditWrite;
  /** Repeated clicks of one rendered button count once: a short claim per click. */
  claims: Pick<Store, 'claimOnce' | 'releaseClaim'>;
}

const CLICK_TTL_MS = 30_000;

/**
 * One change as the application runs it, for a person (QueueService.change) and for a freeze window acting
 * as its creator (workers/freezer.ts): a clicked button is claimed once, the queue domain decides and
 * changes (queue/operations.ts), a failure gives the click back, and one audit row says what came of it.
 * What Trunk applied is `ok` whatever the audit write does (the writer's lost-entry sink).
 */
export async function changeQueueAs(
  as: QueueChanger,
  ref: QueueRef,
  req: QueueChangeRequest,
): Promise<ChangeResult> {
  const action = actionOf(req);
  const target = formatQueueRef(ref);
  const base = baseDetail(req);
  // A concurrency no queue can have fails before any click is claimed.
  const clickKey =
    req.kind === 'settings' || (req.kind === 'concurrency' && concurrencyError(req.value))
      ? undefined
      : req.clickKey;
  if (clickKey && !(await claimClick(as, clickKey))) {
    const reason = 'That click was already handled.';
    await as.audit(action, target, 'noop', { ...base, why: reason, current: undefined });
    return { outcome: 'noop', action, target, reason };
  }
  const ctx = { trunk: as.trunk };
  const r =
    req.kind === 'state'
      ? await changeState(ctx, ref, req.desired, {
          ...(req.reason ? { reason: req.reason } : {}),
          ...(req.expected !== undefined ? { expected: req.expected } : {}),
        })
      : req.kind === 'concurrency'
        ? await setConcurrency(
            ctx,
            ref,
            req.value,
            req.expectedCurrent !== undefined ? { expectedCurrent: req.expectedCurrent } : {},
          )
        : await updateSettings(ctx, ref, req.changes);
  if (r.outcome === 'failed') await releaseClick(as, clickKey);
  await as.audit(action, target, r.outcome, changeDetail(req, base, r));
  return r;
}

function actionOf(req: QueueChangeRequest): QueueAction {
  return req.kind === 'state'
    ? CHANGE_FOR_STATE[req.desired]
    : req.kind === 'concurrency'
      ? 'concurrency'
      : 'settings';
}

/** What every audit row of the request says: how it was asked (typed or clicked) and what was wanted. */
function baseDetail(req: QueueChangeRequest): Record<string, unknown> {
  if (req.kind === 'settings') return {};
  if (req.kind === 'concurrency')
    return { via: req.expectedCurrent === undefined ? 'command' : 'button', desired: req.value };
  const base: Record<string, unknown> = {
    via: req.expected === undefined ? 'command' : 'button',
    desired: req.desired,
  };
  if (req.reason) base.reason = req.reason;
  if (req.expected !== undefined) base.expected = req.expected;
  return base;
}

/** The audit row's detail for what came of the change. */
function changeDetail(
  req: QueueChangeRequest,
  base: Record<string, unknown>,
  r: ChangeResult,
): Record<string, unknown> {
  if (r.outcome === 'noop') return { ...base, why: r.reason, current: r.before?.state };
  if (r.outcome === 'failed') {
    const asked = req.kind !== 'settings' ? base : r.sent ? { changes: r.sent } : { requested: req.changes };
    return { ...asked, ...failureDetail(r.error) };
  }
  if (req.kind === 'state') return { ...base, before: r.before.state, after: r.after.state };
  if (req.kind === 'concurrency')
    return { ...base, before: r.before.concurrency, after: r.after.concurrency };
  const sent = r.sent ?? {};
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  for (const key of Object.keys(sent)) {
    const k = key === 'deleteRequiredStatuses' ? 'requiredStatuses' : key;
    was[k] = (r.before as unknown as Record<string, unknown>)[k];
    now[k] = (r.after as unknown as Record<string, unknown>)[k];
  }
  return { changes: sent, before: was, after: now };
}

/** How an audit row records a failure: Trunk's kind, its words for a person, and its status, if any. */
export function failureDetail(error: unknown): Record<string, unknown> {
  const trunk = isTrunkError(error) ? error : undefined;
  return {
    error: trunk?.kind ?? 'internal',
    message: trunk?.userMessage ?? 'unexpected error',
    ...(trunk?.status !== undefined ? { status: trunk.status } : {}),
  };
}

function clickClaimKey(as: Pick<QueueChanger, 'workspaceId'>, clickKey: string): string {
  return `click:${as.workspaceId}:${clickKey}`;
}

/** Claims one click; false when it was already claimed (a double click, a retried payload). */
export function claimClick(
  as: Pick<QueueChanger, 'workspaceId' | 'claims'>,
  clickKey: string,
): Promise<boolean> {
  return as.claims.claimOnce(clickClaimKey(as, clickKey), CLICK_TTL_MS);
}

/**
 * A claim covers only a change that was applied: when Trunk (or the store) failed before that, the claim
 * is given back so the person can click again at once. If even that fails the claim expires by itself.
 */
export async function releaseClick(
  as: Pick<QueueChanger, 'workspaceId' | 'claims'>,
  clickKey: string | undefined,
): Promise<void> {
  if (!clickKey) return;
  await as.claims.releaseClaim(clickClaimKey(as, clickKey)).catch(() => undefined);
}

async function read<T>(load: () => Promise<T>): Promise<ReadAnswer<T>> {
  try {
    return { answer: 'read', value: await load() };
  } catch (error) {
    return { answer: 'read_failed', error };
  }
}
