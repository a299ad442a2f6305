/**
 * `/mergequeue stats [target] [1d|7d|30d]`: how the queue did over the window beside the window before it.
 * Reading is for everyone. The first ask of a queue reads Trunk's record back first (history/readback.ts,
 * once per queue across replicas), as what a person looks at (the budget's `view` line); when that takes
 * longer than READBACK_PATIENCE_MS the listener is told (`reading`) so it can say "reading Trunk's record…"
 * and edit the answer in place once the figures are ready.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { settleBy } from '../core/deadline.ts';
import type { QueueRef } from '../core/target.ts';
import { type ReadbackOutcome, readBack, readbackProgress } from '../history/readback.ts';
import { computeQueueStats, previousWindow, type QueueStats, statsWindow } from '../history/stats.ts';
import { createV2Ids } from '../trunk/v2/ids.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueAt } from './queue.ts';

/** How long a first ask waits for the read-back before saying it is reading. */
export const READBACK_PATIENCE_MS = 2_000;

/** What is known of the queue's past. */
export interface PastKnowledge {
  /** The read-back of Trunk's record: done (now or before), still going elsewhere, failed, or none possible. */
  readback: 'done' | 'busy' | 'failed';
  /** Trunk's transitions were read (v2 key); without, only the ends of concluded PRs are known from Trunk. */
  withV2: boolean;
  /** From when the read-back covers the queue. */
  since?: number;
}

export type StatsAnswer =
  | {
      answer: 'stats';
      ref: QueueRef;
      days: number;
      tz: string;
      current: QueueStats;
      previous: QueueStats;
      past: PastKnowledge;
    }
  | { answer: 'read_failed'; error: unknown };

export interface StatsHooks {
  /** The read-back is taking a while: say so (called at most once, before the answer). */
  reading?: () => Promise<unknown>;
}

const HOLDER = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

export function queueKeyOfRef(ref: QueueRef): string {
  return `${ref.repo.host}/${ref.repo.owner}/${ref.repo.name}`.toLowerCase() + `:${ref.branch}`;
}

export class StatsService {
  readonly #deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.#deps = deps;
  }

  async stats(actor: Actor, at: QueueAt, days: number, hooks: StatsHooks = {}): Promise<StatsAnswer> {
    const workspaceId = actor.workspace.id;
    const queueKey = queueKeyOfRef(at.ref);
    const db = this.#deps.store.db;
    try {
      let progress = await readbackProgress(db, workspaceId, queueKey);
      let outcome: ReadbackOutcome | undefined;
      if (!progress?.finishedAt) {
        const reading = this.#readBack(workspaceId, queueKey, at);
        const first = await settleBy(reading, Date.now() + READBACK_PATIENCE_MS);
        if (first.kind === 'timeout') await hooks.reading?.();
        outcome = await reading;
        progress = await readbackProgress(db, workspaceId, queueKey);
      }
      if (outcome?.kind === 'failed')
        this.#deps.logger.warn(
          { err: outcome.error, queue: queueKey },
          'reading the queue history back failed',
        );
      const tz = (await actor.standing()).tz ?? 'UTC';
      const window = statsWindow(actor.now(), days, tz);
      const daysPerBucket = Math.ceil(days / 20);
      const query = { workspaceId, queueKey, tz, daysPerBucket };
      const current = await computeQueueStats(db, { ...query, ...window });
      const previous = await computeQueueStats(db, { ...query, ...previousWindow(window) });
      const past: PastKnowledge = {
        readback: progress?.finishedAt ? 'done' : outcome?.kind === 'failed' ? 'failed' : 'busy',
        withV2: progress?.withV2 ?? false,
        ...(progress ? { since: progress.windowFrom } : {}),
      };
      return { answer: 'stats', ref: at.ref, days, tz, current, previous, past };
    } catch (error) {
      this.#deps.logger.warn({ err: error, queue: queueKey }, 'stats could not be computed');
      return { answer: 'read_failed', error };
    }
  }

  async #readBack(workspaceId: string, queueKey: string, at: QueueAt): Promise<ReadbackOutcome> {
    const v1 = (await this.#deps.trunk.readsFor(workspaceId))?.api ?? at.trunk.api;
    const v2 = await this.#deps.trunk.v2For(workspaceId, 'view').catch(() => undefined);
    return readBack(
      this.#deps.store.db,
      this.#deps.store.leases,
      { v1, ...(v2 ? { v2: { api: v2.api, ids: createV2Ids(v2.api) } } : {}) },
      {
        workspaceId,
        queueKey,
        address: { repo: at.ref.repo, targetBranch: at.ref.branch },
        holder: HOLDER,
      },
    );
  }
}
