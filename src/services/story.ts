/**
 * A PR's story and its ETA (`/mergequeue why`, `/mergequeue eta`): read from Trunk's v2 API when the workspace
 * has a v2 key, and from v1 otherwise (its state and readiness, with how to add a key). Reading is for
 * everyone; the buttons that come with the answer keep the PR buttons' own rights.
 */
import { type AppEstimate, appEstimate } from '../history/eta.ts';
import { flakyCheckEvidence, recordEtaShown } from '../history/repository.ts';
import { classifyKick, FLAKY_WINDOW_MS, failingChecksOf, kickFactsOf } from '../kicks/classify.ts';
import type { PrStory } from '../queue/story.ts';
import type { EtaAnswer, StoryAnswer } from '../queue/story-reader.ts';
import type { SubmittedPullRequest } from '../trunk/types.ts';
import { queueKeyOf } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueAt, QueueService } from './queue.ts';
import { queueKeyOfRef } from './stats.ts';

export type WhyAnswer =
  | { answer: 'story'; value: Exclude<StoryAnswer, { kind: 'unknown' }> }
  | { answer: 'unknown'; what: 'repository' | 'queue' | 'pr' }
  /** No v2 key: what v1 says of the PR. */
  | { answer: 'v1'; pr: SubmittedPullRequest }
  | { answer: 'read_failed'; error: unknown };

export type EtaServiceAnswer =
  /** `app`: the app's own estimate from the queue's history, where Trunk gave none. */
  | { answer: 'eta'; value: EtaAnswer; app?: AppEstimate }
  /** No v2 key: estimates and the dispatch order need one; v1's PR state is shown instead. */
  | { answer: 'v1'; pr: SubmittedPullRequest }
  | { answer: 'read_failed'; error: unknown };

export class StoryService {
  readonly #deps: ServiceDeps;
  readonly #queue: QueueService;

  constructor(deps: ServiceDeps, queue: QueueService) {
    this.#deps = deps;
    this.#queue = queue;
  }

  async why(actor: Actor, at: QueueAt, prNumber: number): Promise<WhyAnswer> {
    try {
      const v2 = await this.#deps.trunk.v2For(actor.workspace.id, 'interactive');
      if (!v2) return this.#v1(actor, at, prNumber);
      const story = await v2.reader.story(address(at), prNumber);
      if (story.kind === 'unknown') return { answer: 'unknown', what: story.what };
      return { answer: 'story', value: await this.#withKick(actor, at, story) };
    } catch (error) {
      return { answer: 'read_failed', error };
    }
  }

  async eta(actor: Actor, at: QueueAt, prNumber: number): Promise<EtaServiceAnswer> {
    try {
      const v2 = await this.#deps.trunk.v2For(actor.workspace.id, 'interactive');
      if (!v2) return this.#v1(actor, at, prNumber);
      const value = await v2.reader.eta(address(at), prNumber);
      const app = value.kind === 'eta' ? await this.#etaTruth(actor, at, prNumber, value) : undefined;
      return { answer: 'eta', value, ...(app ? { app } : {}) };
    } catch (error) {
      return { answer: 'read_failed', error };
    }
  }

  /**
   * ETA truth: keeps the estimate shown (Trunk's, or where Trunk gave none the app's own from the queue's
   * history, returned to be shown). Never fails the answer: a store or read error leaves it unrecorded.
   */
  async #etaTruth(
    actor: Actor,
    at: QueueAt,
    prNumber: number,
    value: Extract<EtaAnswer, { kind: 'eta' }>,
  ): Promise<AppEstimate | undefined> {
    const db = this.#deps.store.db;
    const queueKey = queueKeyOfRef(at.ref);
    const now = actor.now();
    const shown = { workspaceId: actor.workspace.id, queueKey, prNumber, shownAt: now, surface: 'eta' };
    try {
      const trunkAt = value.estimate?.estimatedAt ? Date.parse(value.estimate.estimatedAt) : Number.NaN;
      if (
        value.estimate?.status === 'available' &&
        value.estimate.kind !== 'pendingFailureResolution' &&
        Number.isFinite(trunkAt)
      ) {
        await recordEtaShown(db, { ...shown, estimatedAt: trunkAt, source: 'trunk' });
        return undefined;
      }
      if (value.position !== 'testing' && value.position !== 'pending') return undefined;
      const queue = await this.#queue.queue(actor, at);
      const app = await appEstimate(db, {
        workspaceId: actor.workspace.id,
        queueKey,
        now,
        ahead: value.ahead.length,
        concurrency: queue.answer === 'read' ? queue.value.concurrency : 1,
        testing: value.position === 'testing',
      });
      if (app) await recordEtaShown(db, { ...shown, estimatedAt: app.estimatedAt, source: 'app' });
      return app;
    } catch (err) {
      this.#deps.logger.warn({ err }, 'could not keep the ETA shown');
      return undefined;
    }
  }

  /**
   * A story that ended in a kick, with the kick's class and evidence (issue 29): the queue's history says
   * which checks are flaky here; nothing more is read from Trunk. The history failing is no reason to fail
   * `why`: the class is then what Trunk's facts alone say.
   */
  async #withKick<S extends { story: PrStory }>(actor: Actor, at: QueueAt, value: S): Promise<S> {
    const ending = value.story.ending;
    if (ending?.kind !== 'failed' && ending?.kind !== 'cancelled') return value;
    const counts = new Map<string, number>();
    const checks = failingChecksOf(value.story);
    if (checks.length > 0)
      await flakyCheckEvidence(
        this.#deps.store.db,
        actor.workspace.id,
        queueKeyOf(at.ref),
        checks,
        actor.now() - FLAKY_WINDOW_MS,
      ).then(
        (found) => {
          for (const c of found) counts.set(c.check, c.failedThenPassed);
        },
        (err: unknown) => this.#deps.logger.warn({ err }, 'could not read flaky evidence for why'),
      );
    const kick = classifyKick(kickFactsOf(ending.kind, value.story, undefined, counts));
    return {
      ...value,
      story: { ...value.story, kick: { kickClass: kick.kickClass, evidence: kick.evidence } },
    };
  }

  /** Whether the workspace reads Trunk v2 (for the Home: which v2 features it has). */
  async hasV2(actor: Actor): Promise<{ has: boolean; source?: 'connect' | 'environment' }> {
    const v2 = await this.#deps.trunk.v2For(actor.workspace.id, 'view').catch(() => undefined);
    return v2 ? { has: true, source: v2.source } : { has: false };
  }

  async #v1(
    actor: Actor,
    at: QueueAt,
    prNumber: number,
  ): Promise<{ answer: 'v1'; pr: SubmittedPullRequest } | { answer: 'read_failed'; error: unknown }> {
    const read = await this.#queue.pullRequest(actor, at, prNumber);
    return read.answer === 'read'
      ? { answer: 'v1', pr: read.value }
      : { answer: 'read_failed', error: read.error };
  }
}

function address(at: QueueAt) {
  return { repo: at.ref.repo, targetBranch: at.ref.branch };
}
