/**
 * The autopilot (issue 29, DESIGN "Queue memory"): a kick of a class the workspace chose is submitted again,
 * once per head commit, with its previous priority and batching. Never another class, never while the queue
 * is paused or draining or inside a freeze window, never after a person cancelled it or pushed to it (those
 * kicks are `cancelled` and `superseded`, which are never chosen), never twice for one head commit.
 *
 * Exactly once across replicas is a claim on the kick, not a timer: one claim row on a lease per (workspace,
 * queue, PR, head commit) in `autopilot_resubmissions` (repository.ts). Whoever claims it first sends; a claim
 * whose owner died is taken over after its lease lapses, and the new owner reads Trunk first: a PR already
 * back in the queue means the first owner's write landed, so it is reported as done, never sent again. A
 * write whose answer was lost is settled by the Trunk client reading the PR back (trunk/pr-writes.ts), never
 * by a blind second send.
 *
 * The caller (the queue event delivery) calls `consider` for each failed or cancelled event once it has the
 * kick's class (one shared v2 history read); a `retry` answer leaves the event's delivery to be tried again.
 */
import { formatQueueRef, type QueueRef } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { isTrunkError, TrunkNotFoundError } from '../trunk/errors.ts';
import { isInQueue } from '../trunk/pr-writes.ts';
import type { SubmittedPullRequest } from '../trunk/types.ts';
import { type Kick, NEVER_REQUEUE } from './classify.ts';
import type { AutopilotRepository, EffectiveAutopilot, KickKey, ResubmissionClaims } from './repository.ts';

/** The Slack user id the app's own acts are audited and counted as (history's `submitted_by`). */
export const AUTOPILOT_ACTOR = 'app:autopilot';

/** How long a claim holds before another replica may take it over (a write takes at most Trunk's 30 s). */
export const CLAIM_MS = 45_000;

export interface KickAtHand {
  workspaceId: string;
  target: QueueRef;
  queueKey: string;
  pr: { number: number; title: string; author: string };
  kick: Kick;
  /** From the v2 history: the attempt's priority and batching (absent without a v2 key). */
  entry?: { priorityValue?: number | undefined; allowBatching?: boolean | undefined } | undefined;
}

export type AutopilotResult =
  | { outcome: 'skipped'; why: string }
  | {
      outcome: 'resubmitted';
      rule: string;
      priority: number | undefined;
      noBatch: boolean;
      /** A takeover found the first owner's write already applied: reported as done, not sent again. */
      confirmedBy: 'answer' | 'read_back' | 'takeover';
    }
  | { outcome: 'refused'; rule: string; reason: string }
  /** Trunk or the store failed halfway: the claim is released and the kick tried again. */
  | { outcome: 'retry'; error: string };

export interface AutopilotDeps {
  settings: AutopilotRepository;
  claims: ResubmissionClaims;
  /** The workspace's Trunk client as a person's (a re-submission is a person-class write, served first). */
  trunkFor(workspaceId: string): Promise<TrunkApi | undefined>;
  /** The queue's state as the watcher last saw it (running, paused, draining…); undefined when unknown. */
  queueState(workspaceId: string, queueKey: string): Promise<string | undefined>;
  /** Whether a freeze window of the queue is open now. */
  frozen(workspaceId: string, target: QueueRef): Promise<boolean>;
  /** Says it in the queue's feeds and the author's note (an `autopilot` queue event), once. */
  announce(
    k: KickAtHand,
    r: Extract<AutopilotResult, { outcome: 'resubmitted' | 'refused' }>,
    headSha: string,
  ): Promise<void>;
  /** An audit entry as the app (retried; a lost entry never turns a done write into a failure). */
  audit(
    workspaceId: string,
    action: string,
    target: string,
    outcome: 'ok' | 'failed',
    detail: Record<string, unknown>,
  ): Promise<void>;
  clock: () => number;
  replicaId: string;
  logger: Logger;
  claimMs?: number;
}

/** The rule's words, as audited and shown: `autopilot requeue flaky infra (acme/web:main)`. */
export function ruleOf(s: EffectiveAutopilot, target: QueueRef): string {
  const where = s.classesFrom === 'queue' || s.enabledFrom === 'queue' ? formatQueueRef(target) : 'workspace';
  return `autopilot requeue ${s.classes.join(' ')} (${where})`;
}

export class Autopilot {
  readonly #d: AutopilotDeps;
  constructor(deps: AutopilotDeps) {
    this.#d = deps;
  }

  async consider(k: KickAtHand): Promise<AutopilotResult> {
    const d = this.#d;
    const s = await d.settings.effective(k.workspaceId, k.queueKey);
    if (!s.enabled) return { outcome: 'skipped', why: 'autopilot off' };
    if (NEVER_REQUEUE.has(k.kick.kickClass) || !s.classes.includes(k.kick.kickClass))
      return { outcome: 'skipped', why: `class ${k.kick.kickClass} not chosen` };
    const state = (await d.queueState(k.workspaceId, k.queueKey))?.toLowerCase();
    if (state === 'paused' || state === 'draining') return { outcome: 'skipped', why: `queue ${state}` };
    if (await d.frozen(k.workspaceId, k.target)) return { outcome: 'skipped', why: 'inside a freeze window' };
    const api = await d.trunkFor(k.workspaceId);
    if (!api) return { outcome: 'skipped', why: 'no Trunk connection' };
    const rule = ruleOf(s, k.target);
    const address = { repo: k.target.repo, targetBranch: k.target.branch };

    let pr: SubmittedPullRequest;
    try {
      pr = await api.getSubmittedPullRequest({ ...address, pr: { number: k.pr.number } });
    } catch (err) {
      if (err instanceof TrunkNotFoundError)
        return { outcome: 'skipped', why: 'Trunk no longer knows the PR' };
      return { outcome: 'retry', error: describe(err) };
    }
    const headSha = pr.prSha || 'unknown';
    const key: KickKey = {
      workspaceId: k.workspaceId,
      queueKey: k.queueKey,
      prNumber: k.pr.number,
      headSha,
    };
    const now = d.clock();
    if (isInQueue(pr)) {
      // Back in the queue: a person re-submitted it, or a replica that died after Trunk accepted our write.
      const held = await d.claims.get(key);
      if (held?.status === 'done') {
        // Ours, settled, and its announcement perhaps not written (the store failed halfway): say it now
        // (the event's id is the kick's, so an announcement already written is not written twice).
        await d.announce(
          k,
          {
            outcome: 'resubmitted',
            rule,
            priority: pr.priorityValue,
            noBatch: k.entry?.allowBatching === false,
            confirmedBy: 'answer',
          },
          headSha,
        );
        return { outcome: 'skipped', why: 'already re-submitted for this head commit' };
      }
      if (held?.status !== 'claimed') return { outcome: 'skipped', why: 'already back in the queue' };
      const took = await d.claims.claim(key, k.kick, d.replicaId, now, d.claimMs ?? CLAIM_MS);
      if (!took.acquired) return { outcome: 'skipped', why: 'another replica has it' };
      const done: AutopilotResult = {
        outcome: 'resubmitted',
        rule,
        priority: pr.priorityValue,
        noBatch: k.entry?.allowBatching === false,
        confirmedBy: 'takeover',
      };
      await this.#settle(k, key, done, headSha, pr);
      return done;
    }
    if (pr.state === 'merged') return { outcome: 'skipped', why: 'merged' };
    const took = await d.claims.claim(key, k.kick, d.replicaId, now, d.claimMs ?? CLAIM_MS);
    if (!took.acquired)
      return {
        outcome: 'skipped',
        why: took.status === 'claimed' ? 'another replica has it' : `head commit already ${took.status}`,
      };

    const priority = k.entry?.priorityValue ?? pr.priorityValue;
    const noBatch = k.entry?.allowBatching === false;
    // Taking over a lapsed claim: the PR moved after the first owner claimed the kick (it went back in the
    // queue, and maybe left it again), so that owner's write landed. Reported as done; never sent twice.
    const movedAt = Date.parse(pr.stateChangedAt);
    if (took.takeover && Number.isFinite(movedAt) && movedAt > took.claimedAt) {
      const done: AutopilotResult = {
        outcome: 'resubmitted',
        rule,
        priority,
        noBatch,
        confirmedBy: 'takeover',
      };
      await this.#settle(k, key, done, headSha, pr);
      return done;
    }
    try {
      const change = await api.submitPullRequest({
        ...address,
        pr: { number: k.pr.number },
        ...(priority !== undefined ? { priority } : {}),
        ...(noBatch ? { noBatch: true } : {}),
      });
      const done: AutopilotResult = {
        outcome: 'resubmitted',
        rule,
        priority,
        noBatch,
        confirmedBy: change.confirmedBy,
      };
      await this.#settle(k, key, done, headSha, pr);
      return done;
    } catch (err) {
      if (isTrunkError(err) && !err.retryable) {
        const refused: AutopilotResult = { outcome: 'refused', rule, reason: describe(err) };
        await this.#settle(k, key, refused, headSha, pr);
        return refused;
      }
      await d.claims
        .release(key, d.replicaId, describe(err))
        .catch((e: unknown) => d.logger.warn({ err: e }, 'could not release an autopilot claim; it lapses'));
      return { outcome: 'retry', error: describe(err) };
    }
  }

  /**
   * Trunk answered: the claim is settled, the act audited as the app and announced. What Trunk accepted stays
   * done whatever fails afterwards (a lost audit entry is logged; the announcement is the outbox's to retry).
   */
  async #settle(
    k: KickAtHand,
    key: KickKey,
    r: Extract<AutopilotResult, { outcome: 'resubmitted' | 'refused' }>,
    headSha: string,
    pr: SubmittedPullRequest,
  ): Promise<void> {
    const d = this.#d;
    const status = r.outcome === 'resubmitted' ? 'done' : 'refused';
    const detail = r.outcome === 'refused' ? r.reason : r.confirmedBy;
    await d.claims
      .finish(key, d.replicaId, status, d.clock(), detail)
      .catch((err: unknown) => d.logger.warn({ err }, 'could not settle an autopilot claim'));
    await d
      .audit(
        k.workspaceId,
        'autopilot.resubmit',
        `${formatQueueRef(k.target)}#${k.pr.number}`,
        r.outcome === 'resubmitted' ? 'ok' : 'failed',
        {
          rule: r.rule,
          kickClass: k.kick.kickClass,
          evidence: k.kick.evidence,
          headSha,
          before: pr.state ?? null,
          ...(r.outcome === 'resubmitted'
            ? { priority: r.priority ?? null, noBatch: r.noBatch, confirmedBy: r.confirmedBy }
            : { refused: r.reason }),
        },
      )
      .catch((err: unknown) => d.logger.error({ err }, 'autopilot audit entry lost'));
    await d.announce(k, r, headSha);
  }
}

function describe(err: unknown): string {
  if (isTrunkError(err)) return err.userMessage;
  return err instanceof Error ? err.message : String(err);
}
