/**
 * The queue feature: which queue a request means, reading it (status, one PR, one test run), and changing
 * it (pause, drain, resume, concurrency, settings). Anyone may read; only operators change, checked here
 * every time, and every refusal, change, no-op and failure audited. The domain rules (act on the queue's
 * current state, a double click counts once) are queue/service.ts's; this service adds who is asking.
 */
import { formatQueueRef, type QueueRef, resolveTarget, type TargetSpec } from '../core/target.ts';
import {
  type ChangeResult,
  changeState,
  type QueueAction,
  type QueueContext,
  readPullRequest,
  readQueue,
  readTestRun,
  type SettingsChanges,
  setConcurrency,
  updateSettings,
} from '../queue/service.ts';
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

/** What a change did: queue/service.ts's result, or a refusal (audited) when the person is no operator. */
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
    const action: QueueAction =
      req.kind === 'state'
        ? CHANGE_FOR_STATE[req.desired]
        : req.kind === 'concurrency'
          ? 'concurrency'
          : 'settings';
    const target = formatQueueRef(at.ref);
    const allowed = await this.authorize(actor, action, target);
    if (allowed.answer === 'refused') return { outcome: 'refused', action, target, because: allowed.because };
    const ctx = this.context(actor, at.trunk);
    switch (req.kind) {
      case 'state':
        return changeState(ctx, at.ref, req.desired, {
          ...(req.reason ? { reason: req.reason } : {}),
          ...(req.expected !== undefined ? { expected: req.expected } : {}),
          ...(req.clickKey ? { clickKey: req.clickKey } : {}),
        });
      case 'concurrency':
        return setConcurrency(ctx, at.ref, req.value, {
          ...(req.expectedCurrent !== undefined ? { expectedCurrent: req.expectedCurrent } : {}),
          ...(req.clickKey ? { clickKey: req.clickKey } : {}),
        });
      case 'settings':
        return updateSettings(ctx, at.ref, req.changes);
    }
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

  /** What the queue domain's functions need to act and audit as this person. */
  context(actor: Actor, trunk: WorkspaceTrunk): QueueContext {
    const ctx: QueueContext = {
      trunk: trunk.api,
      store: this.#deps.store,
      workspaceId: actor.workspace.id,
      userId: actor.userId,
      now: actor.now,
    };
    if (actor.auditActor.auditLost) ctx.auditLost = actor.auditActor.auditLost;
    return ctx;
  }
}

async function read<T>(load: () => Promise<T>): Promise<ReadAnswer<T>> {
  try {
    return { answer: 'read', value: await load() };
  } catch (error) {
    return { answer: 'read_failed', error };
  }
}
