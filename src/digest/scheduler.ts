/**
 * The digests' pass and its claims. The loop that runs the pass (node-cron once a minute in UTC, built in
 * src/workers/digests.ts) is handed in as a PassLoop; each tick asks the database which
 * subscriptions have an occurrence due (next_due_at <= now) and which claims were abandoned (lease
 * expired), and claims as many as this replica has free slots for. Asking "what is due" instead of
 * registering one cron job per subscription keeps every replica in agreement, makes missed ticks and
 * downtime harmless (the next tick sees the same due rows) and handles DST through schedule.ts.
 *
 * Replicas share the work: each claims only up to its free slots, in a random order, and ticks again
 * as soon as a slot frees while work remains, so 500 digests due in one minute spread over replicas.
 */
import type { PassLoop } from '../core/periodic-passes.ts';
import type { ClaimRepository, RunRecord } from './claims.ts';
import type { SubscriptionRepository } from './repository.ts';
import { type RunnerContext, runClaimed } from './runner.ts';
import { latestOccurrence, nextOccurrence } from './schedule.ts';
import { MAX_DIGEST_ATTEMPTS } from './slack-outage.ts';
import type { RunOutcome, Subscription } from './types.ts';

/** Claimed later than this after its time, a digest says it is late. */
export const DIGEST_LATE_AFTER_MS = 5 * 60_000;
/** Finished claims are kept this long (for `digest` troubleshooting), then pruned about hourly. */
export const KEEP_RUNS_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/**
 * Shared collections are read by the digests due in their minute, within seconds; a digest taken over
 * later than this collects again. They hold a whole repository's list, so they are not kept for long.
 */
export const KEEP_COLLECTIONS_MS = 2 * 3_600_000;

export class Scheduler {
  readonly #ctx: RunnerContext;
  readonly #subs: SubscriptionRepository;
  readonly #claims: ClaimRepository;
  readonly #concurrency: number;
  readonly #inflight = new Set<Promise<RunOutcome>>();
  /** The loop running tick(): asked whether it is stopping, for one more tick, and after a run ends. */
  readonly #loop: PassLoop;
  #prunedAt = 0;

  constructor(ctx: RunnerContext, concurrency: number, loop: PassLoop) {
    this.#ctx = ctx;
    this.#subs = ctx.subs;
    this.#claims = ctx.claims;
    this.#concurrency = concurrency;
    this.#loop = loop;
  }

  get #stopped(): boolean {
    return this.#loop.stopped;
  }

  /** The digests this replica is posting now (the loop's stop and idle wait for them). */
  get inFlight(): Iterable<Promise<unknown>> {
    return this.#inflight;
  }

  /** One pass: take over abandoned claims, then claim due occurrences, up to the free slots. */
  async tick(): Promise<void> {
    const now = this.#ctx.now();
    if (now - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = now;
      const n = await this.#claims.prune(now - KEEP_RUNS_MS);
      if (n > 0) this.#ctx.logger.info({ pruned: n }, 'old digest claims pruned');
      const c = await this.#ctx.collections.prune(now - KEEP_COLLECTIONS_MS);
      if (c > 0) this.#ctx.logger.info({ pruned: c }, 'old shared digest collections pruned');
    }
    let free = this.#concurrency - this.#inflight.size;
    if (free <= 0) return;
    for (const rec of await this.#claims.expired(now, free)) {
      if (this.#stopped) return;
      if (await this.#takeOver(rec, now)) free--;
    }
    if (free <= 0) return;
    // Read more than we can take, shuffled, so replicas ticking together mostly try different rows.
    const limit = free * 3;
    const due = shuffle(await this.#subs.due(now, limit));
    // Rows this replica could not claim were advanced, so a full batch means more may be waiting.
    let more = due.length === limit;
    for (const sub of due) {
      if (free <= 0 || this.#stopped) {
        this.#loop.requestAgain();
        return;
      }
      try {
        if (await this.#handleDue(sub, now)) free--;
      } catch (err) {
        // One broken row must not stop the others; it is retried at the next minute's tick, not in a loop.
        more = false;
        this.#ctx.logger.error({ err, digest: sub.id }, 'could not schedule a digest');
      }
    }
    if (more) this.#loop.requestAgain();
  }

  async #takeOver(rec: RunRecord, now: number): Promise<boolean> {
    if (!(await this.#claims.takeOver(rec, this.#ctx.deps.replicaId, now + this.#ctx.leaseMs))) return false;
    const mine = { ...rec, owner: this.#ctx.deps.replicaId, attempts: rec.attempts + 1 };
    const sub = await this.#subs.byId(rec.subscriptionId);
    const log = this.#ctx.logger.child({ digest: rec.subscriptionId });
    if (!sub || mine.attempts > MAX_DIGEST_ATTEMPTS) {
      const why = sub ? `gave up after ${MAX_DIGEST_ATTEMPTS} attempts` : 'the subscription was removed';
      await this.#claims.finish(rec, mine.owner, 'failed', 'failed', now, why);
      log.warn({ why }, 'abandoned digest claim closed');
      return false;
    }
    log.info({ postedBefore: rec.postedCount, previousOwner: rec.owner }, 'taking over an abandoned digest');
    this.#launch(sub, mine);
    return true;
  }

  /** Returns true when this replica claimed (and started) the occurrence. */
  async #handleDue(sub: Subscription, now: number): Promise<boolean> {
    const spec = { minuteOfDay: sub.minuteOfDay, tz: sub.tz, days: sub.days };
    const latest = latestOccurrence(spec, now);
    const next = nextOccurrence(spec, now);
    const log = this.#ctx.logger.child({ digest: sub.id, workspace: sub.workspaceId });
    let started = false;
    if (latest < sub.nextDueAt) {
      // The schedule changed under us (digest set … time); nothing is due yet.
    } else if (now - latest > this.#ctx.graceMs) {
      const detail = `missed by ${Math.round((now - latest) / 60_000)} min, more than the grace period`;
      if (
        await this.#claims.recordSkipped(
          { subscriptionId: sub.id, scheduledAt: latest, workspaceId: sub.workspaceId },
          this.#ctx.deps.replicaId,
          now,
          detail,
        )
      ) {
        this.#ctx.metrics.digests.inc({ outcome: 'skipped_late' });
        log.warn({ scheduledAt: new Date(latest).toISOString() }, `digest skipped: ${detail}`);
      }
    } else {
      if (latest > sub.nextDueAt)
        log.warn(
          { from: new Date(sub.nextDueAt).toISOString() },
          'earlier missed occurrences are superseded by the latest',
        );
      const late = now - latest > DIGEST_LATE_AFTER_MS;
      const key = {
        subscriptionId: sub.id,
        scheduledAt: latest,
        workspaceId: sub.workspaceId,
        manual: false,
        late,
      };
      if (await this.#claims.claim(key, this.#ctx.deps.replicaId, now, this.#ctx.leaseMs)) {
        this.#ctx.metrics.digests.inc({ outcome: 'run' });
        this.#launch(sub, {
          ...key,
          status: 'running',
          owner: this.#ctx.deps.replicaId,
          leaseUntil: now + this.#ctx.leaseMs,
          attempts: 1,
          postedCount: 0,
        });
        started = true;
      }
    }
    await this.#subs.advance(sub.id, sub.nextDueAt, next);
    return started;
  }

  /** Starts a run without awaiting it; a finished run frees a slot and asks for another tick. */
  #launch(sub: Subscription, rec: RunRecord): Promise<RunOutcome> {
    return this.#track(runClaimed(this.#ctx, sub, rec));
  }

  #track(p: Promise<RunOutcome>): Promise<RunOutcome> {
    this.#inflight.add(p);
    p.finally(() => {
      this.#inflight.delete(p);
      this.#loop.request();
    }).catch(() => {});
    return p;
  }

  /** Digests this replica is posting now, scheduled and manual alike. */
  get running(): number {
    return this.#inflight.size;
  }

  /**
   * A manual run that takes one of the replica's slots like a scheduled digest, or undefined when every
   * slot is taken: a burst of `digest run` must not push this replica past its concurrency.
   */
  startManual(sub: Subscription): Promise<RunOutcome> | undefined {
    if (this.#stopped || this.#inflight.size >= this.#concurrency) return undefined;
    return this.runManual(sub);
  }

  /**
   * A manual run ("digest run <id>"): its own claim keyed by the current ms. Scheduled occurrences are
   * whole minutes, so should it coincide with one, the next free millisecond is used instead.
   */
  runManual(sub: Subscription): Promise<RunOutcome> {
    const me = this.#ctx.deps.replicaId;
    return this.#track(
      (async (): Promise<RunOutcome> => {
        const now = this.#ctx.now();
        for (let k = 1; k <= 5; k++) {
          const key = {
            subscriptionId: sub.id,
            scheduledAt: now + k,
            workspaceId: sub.workspaceId,
            manual: true,
            late: false,
          };
          if (!(await this.#claims.claim(key, me, now, this.#ctx.leaseMs))) continue;
          const rec: RunRecord = {
            ...key,
            status: 'running',
            owner: me,
            leaseUntil: now + this.#ctx.leaseMs,
            attempts: 1,
            postedCount: 0,
          };
          return runClaimed(this.#ctx, sub, rec);
        }
        return { outcome: 'lost_claim' };
      })(),
    );
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
