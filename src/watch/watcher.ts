/**
 * The watcher loop. Each tick, for every followed queue: take or renew its lease (one replica polls a queue
 * at a time; a dead replica's lease expires and another takes over); when the queue is due, poll getQueue
 * once — however many channels, live messages and authors follow it — diff against the stored snapshot,
 * resolve departed PRs, evaluate health, and write snapshot + events in one transaction fenced by the
 * lease. Then hand the queue's undelivered events to `deliver`, claiming each (event, destination) first,
 * without waiting for them: each claim is settled when Slack answered (`settled()` waits for them all).
 * A queue nobody follows any more has its lease released and its snapshot forgotten.
 */

import { settleBy } from '../core/deadline.ts';
import { formatQueueRef } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { AuditEntry, Db, Leases } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { TrunkNotFoundError } from '../trunk/errors.ts';
import type { Queue } from '../trunk/types.ts';
import { OutboxRepository } from './deliveries.ts';
import {
  type DiffFacts,
  departedAs,
  diffSnapshots,
  noteProgress,
  ourChangesFromAudit,
  resolveDeparted,
  toSnapshot,
} from './diff.ts';
import { LiveMessageRepository, WatchRepository } from './feeds.ts';
import type { FollowedQueue } from './followed.ts';
import { evaluateHealth, type HealthRecord } from './health.ts';
import { PeopleRepository } from './people.ts';
import { LeaseRepository, LostLeaseError, SnapshotRepository } from './queue-state.ts';
import { SubmitterRepository } from './submitters.ts';
import { KEEP_TRANSITIONS_MS, pruneTransitions } from './transitions.ts';
import {
  type Deliver,
  type DeliverBatch,
  type DeliveryContext,
  type DeliveryResult,
  type DepartureFate,
  type Departures,
  type Destination,
  type QueueTarget,
  queueKeyOf,
  type Topic,
  type WatchEvent,
} from './types.ts';
import { StepWaitRepository } from './waits.ts';

export type WatchTrunk = Pick<TrunkApi, 'getQueue' | 'getSubmittedPullRequest'>;

export interface WatcherOptions {
  db: Db;
  /** The store's lease service (who polls a queue, who delivers an event). */
  leases: Leases;
  /** The queues to watch now (see listFollowedQueues). */
  followed(now: number): Promise<FollowedQueue[]>;
  /** The workspace's Trunk client; undefined while it has no credentials (its queues are skipped). */
  trunkFor(workspaceId: string): Promise<WatchTrunk | undefined> | WatchTrunk | undefined;
  deliver: Deliver;
  /**
   * Optional: every claimed (event, destinations) of one queue in one call, oldest first, so the Slack side
   * can group a burst into one message per channel. Answers one result list per item; used instead of
   * `deliver` when given.
   */
  deliverBatch?: DeliverBatch;
  /**
   * Optional: what became of the PRs that left in one poll, in one batch (Trunk v2), instead of one v1 read
   * per PR. Waited for at most `departuresWaitMs`; what it does not answer is asked of v1 as before.
   */
  departures?: Departures;
  /** Default 3 s. */
  departuresWaitMs?: number;
  /** Audit entries of a queue target (store.listAudit), to tell our changes from changes made elsewhere. */
  listAudit?(workspaceId: string, opts: { target: string; limit: number }): Promise<AuditEntry[]>;
  clock?: () => number;
  replicaId: string;
  intervalSeconds: number;
  stuckMinutes: number;
  pausedReminderHours: number;
  logger: Logger;
  metrics: Pick<Metrics, 'watchedQueues' | 'watchPolls' | 'watchEvents'>;
  /** How long a queue lease lasts without renewal; default 3 intervals (at least 15 s). */
  leaseMs?: number;
  /** How long a claimed delivery is protected from takeover; default 60 s. */
  deliveryLeaseMs?: number;
  /** Undelivered events are retried this long, then given up (logged); default 15 min. */
  deliveryGraceMs?: number;
  /** Queues handled at the same time; default 8. */
  concurrency?: number;
  /** Destinations beside the watch domain's own (the autopilot's, issue 29), decided per event. */
  extraDestinations?(event: WatchEvent): Promise<Destination[]>;
  /** Told after a poll that learned a PR merged was committed (slow-queue alerts are evaluated on every merge). */
  onMerged?: (workspaceId: string, target: QueueTarget) => void;
}

const AUTHOR_KINDS = new Set(['testing', 'merged', 'failed', 'cancelled', 'autopilot']);
/** The PR left the queue: a Workflow Builder step waiting for it completes. */
const STEP_KINDS = new Set(['merged', 'failed', 'cancelled', 'left']);
const TOPIC_OF: Record<WatchEvent['kind'], Topic | undefined> = {
  state: 'state',
  submitted: 'submitted',
  testing: 'testing',
  merged: 'merged',
  failed: 'failed',
  cancelled: 'failed',
  health: 'health',
  autopilot: 'failed',
  slow: 'health',
  left: undefined,
};
const KEEP_EVENTS_MS = 7 * 24 * 3_600_000;

export class Watcher {
  readonly #o: WatcherOptions;
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #leaseMs: number;
  readonly leases: LeaseRepository;
  readonly snapshots: SnapshotRepository;
  readonly outbox: OutboxRepository;
  readonly watches: WatchRepository;
  readonly live: LiveMessageRepository;
  readonly people: PeopleRepository;
  readonly submitters: SubmitterRepository;
  readonly waits: StepWaitRepository;
  /** Queues whose lease this replica holds: `workspace|queueKey` → the queue. */
  readonly #owned = new Map<string, FollowedQueue>();
  /** Deliveries handed to the Slack side and not yet settled (the tick does not wait for them). */
  readonly #inFlight = new Set<Promise<void>>();
  /** `eventId|destination` of those deliveries. */
  readonly #sending = new Set<string>();
  /** Last poll attempt per queue, so a failing poll waits an interval too. */
  readonly #attempted = new Map<string, number>();
  #prunedAt = 0;

  constructor(o: WatcherOptions) {
    this.#o = o;
    this.#now = o.clock ?? Date.now;
    this.#intervalMs = o.intervalSeconds * 1000;
    this.#leaseMs = o.leaseMs ?? Math.max(3 * this.#intervalMs, 15_000);
    this.leases = new LeaseRepository(o);
    this.snapshots = new SnapshotRepository(o);
    this.outbox = new OutboxRepository(o);
    this.watches = new WatchRepository(o.db);
    this.live = new LiveMessageRepository(o.db);
    this.people = new PeopleRepository(o.db);
    this.submitters = new SubmitterRepository(o.db);
    this.waits = new StepWaitRepository(o);
  }

  /** Queues this replica polls now. */
  get owned(): FollowedQueue[] {
    return [...this.#owned.values()];
  }

  async tick(): Promise<void> {
    const now = this.#now();
    const followed = new Map<string, FollowedQueue>();
    for (const q of await this.#o.followed(now)) followed.set(`${q.workspaceId}|${queueKeyOf(q.target)}`, q);

    for (const [id, q] of this.#owned) {
      if (followed.has(id)) continue;
      this.#owned.delete(id);
      this.#attempted.delete(id);
      const key = queueKeyOf(q.target);
      // Only the holder forgets the snapshot, so a new follower later starts from a fresh baseline.
      if (await this.leases.release(q.workspaceId, key, this.#o.replicaId))
        await this.snapshots.forget(q.workspaceId, key);
      this.#o.logger.info(
        { workspace: q.workspaceId, queue: key },
        'queue no longer followed; polling stopped',
      );
    }

    await pool([...followed.entries()], this.#o.concurrency ?? 8, async ([id, q]) => {
      try {
        await this.#handle(id, q, now);
      } catch (err) {
        // One queue's trouble must not stop the others; it is tried again next tick.
        this.#o.logger.error({ err, workspace: q.workspaceId, queue: id }, 'watching a queue failed');
      }
    });
    this.#o.metrics.watchedQueues.set(this.#owned.size);

    if (now - this.#prunedAt > 3_600_000) {
      this.#prunedAt = now;
      await this.outbox.prune(now - KEEP_EVENTS_MS);
      await pruneTransitions(this.#o.db, now - KEEP_TRANSITIONS_MS);
      // A queue unfollowed while its poller was dead kept its snapshot; following it again must start
      // from a fresh baseline, not announce what changed in between.
      for (const o of await this.snapshots.orphans(now))
        if (!followed.has(`${o.workspaceId}|${o.queueKey}`))
          await this.snapshots.forget(o.workspaceId, o.queueKey);
    }
  }

  /** Gives up every lease this replica holds (orderly shutdown), so another replica takes over at once. */
  async releaseAll(): Promise<void> {
    for (const q of this.#owned.values())
      await this.leases.release(q.workspaceId, queueKeyOf(q.target), this.#o.replicaId).catch(() => false);
    this.#owned.clear();
    this.#o.metrics.watchedQueues.set(0);
  }

  async #handle(id: string, q: FollowedQueue, now: number): Promise<void> {
    const key = queueKeyOf(q.target);
    if (!(await this.leases.acquire(q.workspaceId, key, this.#o.replicaId, now, this.#leaseMs))) {
      this.#owned.delete(id);
      return;
    }
    this.#owned.set(id, q);
    const stored = await this.snapshots.get(q.workspaceId, key);
    const last = Math.max(stored?.takenAt ?? 0, this.#attempted.get(id) ?? 0);
    let polled: Queue | undefined;
    if (!stored || now - last >= this.#intervalMs) {
      this.#attempted.set(id, now);
      polled = await this.#poll(q, key, stored, now);
    }
    await this.#deliverPending(q, key, now, polled ? { queue: polled } : {});
  }

  async #poll(
    q: FollowedQueue,
    key: string,
    stored: Awaited<ReturnType<SnapshotRepository['get']>>,
    now: number,
  ): Promise<Queue | undefined> {
    const api = await this.#o.trunkFor(q.workspaceId);
    if (!api) return undefined;
    const address = { repo: q.target.repo, targetBranch: q.target.branch };
    const log = this.#o.logger.child({ workspace: q.workspaceId, queue: key });
    let queue: Awaited<ReturnType<WatchTrunk['getQueue']>>;
    try {
      queue = await api.getQueue(address);
      this.#o.metrics.watchPolls.inc({ outcome: 'ok' });
    } catch (err) {
      this.#o.metrics.watchPolls.inc({ outcome: 'failed' });
      log.warn({ err }, 'polling the queue failed; trying again next interval');
      return undefined;
    }
    const facts: DiffFacts = {
      workspaceId: q.workspaceId,
      queueKey: key,
      target: q.target,
      // A fresh baseline (a queue followed again) continues after the events kept from before: their ids
      // carry the seq, and an id seen before would be taken for an event already delivered.
      seq: (stored?.seq ?? (await this.#lastEventSeq(q.workspaceId, key))) + 1,
      at: now,
      ourChanges: stored ? await this.#ourChanges(q, stored.takenAt) : [],
    };
    const next = toSnapshot(queue, stored?.snapshot, now);
    const diff = diffSnapshots(stored?.snapshot, next, facts);
    const events = [...diff.events];
    const fates = await this.#departures(q, diff.departed, log);
    for (const pr of diff.departed) {
      const fate = fates?.get(pr.number);
      if (fate) {
        events.push(departedAs(pr, fate, facts));
        continue;
      }
      try {
        events.push(
          resolveDeparted(
            pr,
            await api.getSubmittedPullRequest({ ...address, pr: { number: pr.number } }),
            facts,
          ),
        );
      } catch (err) {
        if (!(err instanceof TrunkNotFoundError)) {
          // Nothing is stored: the next poll diffs against the same snapshot and asks again.
          log.warn({ err, pr: pr.number }, 'could not learn what became of a PR; retrying next interval');
          return undefined;
        }
        events.push(resolveDeparted(pr, undefined, facts));
      }
    }
    const snapshot = noteProgress(next, events, now);

    const previousHealth = await this.snapshots.health(q.workspaceId, key);
    const health: Array<{ watchId: string; records: HealthRecord[] }> = [];
    for (const w of await this.watches.listQueue(q.workspaceId, key)) {
      if (!w.topics.includes('health')) continue;
      const h = evaluateHealth({
        workspaceId: q.workspaceId,
        queueKey: key,
        target: q.target,
        watchId: w.id,
        snapshot,
        ...(stored ? { previousState: stored.snapshot.state } : {}),
        now,
        thresholds: {
          stuckMinutes: w.stuckMinutes ?? this.#o.stuckMinutes,
          pausedReminderHours: this.#o.pausedReminderHours,
        },
        previous: previousHealth.get(w.id) ?? [],
      });
      health.push({ watchId: w.id, records: h.records });
      for (const e of h.events) events.push({ ...e, seq: facts.seq });
    }

    try {
      await this.snapshots.commitPoll({
        workspaceId: q.workspaceId,
        queueKey: key,
        owner: this.#o.replicaId,
        now,
        leaseUntil: now + this.#leaseMs,
        prevSeq: stored?.seq,
        ...(stored ? { since: stored.takenAt } : {}),
        next: { seq: facts.seq, takenAt: now, snapshot },
        events,
        health,
      });
      if (events.some((e) => e.kind === 'merged')) this.#o.onMerged?.(q.workspaceId, q.target);
      return queue;
    } catch (err) {
      if (!(err instanceof LostLeaseError)) throw err;
      this.#owned.delete(`${q.workspaceId}|${key}`);
      log.warn({ reason: err.message }, 'lost the queue lease; another replica polls it now');
      return undefined;
    }
  }

  /** The fates of departed PRs from the batch port, when there is one and it answers in time; else undefined. */
  async #departures(
    q: FollowedQueue,
    departed: ReadonlyArray<{ number: number; stateChangedAt?: string }>,
    log: Logger,
  ): Promise<Map<number, DepartureFate> | undefined> {
    const port = this.#o.departures;
    if (!port || departed.length === 0) return undefined;
    const asked = port(
      q.workspaceId,
      q.target,
      departed.map((p) => ({
        number: p.number,
        ...(p.stateChangedAt ? { stateChangedAt: p.stateChangedAt } : {}),
      })),
    );
    const settled = await settleBy(asked, Date.now() + (this.#o.departuresWaitMs ?? 3_000));
    if (settled.kind === 'ok') return settled.value;
    if (settled.kind === 'error')
      log.warn(
        { err: settled.error },
        'could not read what became of departed PRs in one batch; asking one by one',
      );
    return undefined;
  }

  async #lastEventSeq(workspaceId: string, queueKey: string): Promise<number> {
    const rows = await this.#o.db.query(
      'SELECT MAX(seq) AS seq FROM watch_events WHERE workspace_id = $1 AND queue_key = $2',
      [workspaceId, queueKey],
    );
    return Number(rows[0]?.['seq'] ?? 0);
  }

  /** Changes made through this app since one interval before the previous poll (so none slips between). */
  async #ourChanges(q: FollowedQueue, prevTakenAt: number) {
    if (!this.#o.listAudit) return [];
    const entries = await this.#o.listAudit(q.workspaceId, { target: formatQueueRef(q.target), limit: 50 });
    return ourChangesFromAudit(entries.filter((e) => e.at >= prevTakenAt - this.#intervalMs));
  }

  /**
   * Where an event goes now: watching channels of its topic, live messages, the linked author, and the
   * Workflow Builder steps waiting for the PR to leave the queue.
   */
  async destinations(event: WatchEvent, now: number): Promise<Destination[]> {
    const out: Destination[] = [];
    const topic = TOPIC_OF[event.kind];
    if (topic)
      for (const w of await this.watches.listQueue(event.workspaceId, event.queueKey)) {
        if (!w.topics.includes(topic)) continue;
        if (event.kind === 'health' && w.id !== event.watchId) continue;
        out.push({
          kind: 'channel',
          key: `channel:${w.channelId}`,
          workspaceId: w.workspaceId,
          channelId: w.channelId,
          watchId: w.id,
        });
      }
    if (event.kind !== 'health' && event.kind !== 'slow')
      for (const m of await this.live.listQueue(event.workspaceId, event.queueKey, now))
        out.push({
          kind: 'live',
          key: `live:${m.channelId}:${m.ts}`,
          workspaceId: m.workspaceId,
          channelId: m.channelId,
          ts: m.ts,
          liveUntil: m.liveUntil,
        });
    // A refused re-submission is said once, in the feed (issue 29).
    if (
      AUTHOR_KINDS.has(event.kind) &&
      'pr' in event &&
      !(event.kind === 'autopilot' && event.outcome !== 'resubmitted')
    ) {
      const person = await this.people.byLogin(event.workspaceId, event.pr.author);
      if (person?.notify)
        out.push({
          kind: 'author',
          key: `author:${person.userId}`,
          workspaceId: person.workspaceId,
          userId: person.userId,
          githubLogin: person.githubLogin,
          verified: person.verified,
        });
      const submitter = await this.#submitter(event, person?.userId);
      if (submitter) out.push(submitter);
    }
    if (this.#o.extraDestinations) out.push(...(await this.#o.extraDestinations(event)));
    if (STEP_KINDS.has(event.kind) && 'pr' in event)
      for (const w of await this.waits.waitingFor(event.workspaceId, event.queueKey, event.pr.number))
        out.push({
          kind: 'step',
          key: `step:${w.executionId}`,
          workspaceId: w.workspaceId,
          executionId: w.executionId,
        });
    return out;
  }

  /**
   * The person who submitted the PR from Slack, when not its author (who hears already): the same note, with
   * the same opt-out (`me notify off`, on their link or, without one, their opt-out row).
   */
  async #submitter(event: WatchEvent & { pr: { number: number } }, authorUserId: string | undefined) {
    const s = await this.submitters.get(event.workspaceId, event.queueKey, event.pr.number);
    if (!s || s.userId === authorUserId || s.userId.startsWith('app:')) return undefined;
    const link = await this.people.get(event.workspaceId, s.userId);
    if (link ? !link.notify : await this.submitters.optedOut(event.workspaceId, s.userId)) return undefined;
    return {
      kind: 'author' as const,
      key: `author:${s.userId}`,
      workspaceId: event.workspaceId,
      userId: s.userId,
      githubLogin: link?.githubLogin ?? '',
      verified: link?.verified ?? false,
      role: 'submitter' as const,
    };
  }

  async #deliverPending(q: FollowedQueue, key: string, now: number, context: DeliveryContext): Promise<void> {
    const grace = this.#o.deliveryGraceMs ?? 15 * 60_000;
    const log = this.#o.logger.child({ workspace: q.workspaceId, queue: key });
    // Claim everything due first, then send: with deliverBatch the Slack side sees every pending event of
    // the queue at once and can group a burst into one message per channel while the claims are held.
    const batch: Array<{ event: WatchEvent; dests: Destination[]; claimed: Destination[] }> = [];
    for (const { event, createdAt } of await this.outbox.pending(q.workspaceId, key)) {
      const dests = await this.destinations(event, now);
      if (now - createdAt > grace) {
        const rows = await this.outbox.deliveries(event.id);
        const missed = dests.filter((d) => !rows.some((r) => r.destination === d.key && r.status === 'sent'));
        await this.outbox.finish(event.id, now, true);
        if (missed.length > 0)
          log.warn(
            { event: event.id, kind: event.kind, missed: missed.map((d) => d.key) },
            'queue event not delivered within its grace period; giving up',
          );
        continue;
      }
      const claimed: Destination[] = [];
      for (const d of dests)
        if (
          // Still being sent by this replica (a busy channel's lane): not claimed again, however long it takes.
          !this.#sending.has(`${event.id}|${d.key}`) &&
          (await this.outbox.claim(
            event.id,
            d.key,
            q.workspaceId,
            this.#o.replicaId,
            now,
            this.#o.deliveryLeaseMs ?? 60_000,
          ))
        )
          claimed.push(d);
      batch.push({ event, dests, claimed });
    }
    const toSend = batch.filter((b) => b.claimed.length > 0);
    await this.#finishSettled(
      batch.filter((b) => b.claimed.length === 0),
      now,
    );
    if (toSend.length === 0) return;
    // The tick does not wait for Slack: the writes queue in the outbox (one lane per channel) and each
    // claim is settled when its write is answered. One busy channel so delays no other queue or workspace.
    const keys = toSend.flatMap((b) => b.claimed.map((d) => `${b.event.id}|${d.key}`));
    for (const k of keys) this.#sending.add(k);
    const sending: Promise<void> = this.#sendAll(toSend, context, log)
      .then(async (results) => {
        const at = this.#now();
        for (const [i, b] of toSend.entries())
          await this.#settle(b.event, b.claimed, results[i] ?? [], at, log);
        await this.#finishSettled(toSend, at);
      })
      .catch((err: unknown) =>
        log.error({ err }, 'settling queue-event deliveries failed; retried after the claim lease'),
      )
      .finally(() => {
        for (const k of keys) this.#sending.delete(k);
        this.#inFlight.delete(sending);
      });
    this.#inFlight.add(sending);
  }

  /**
   * Hands the queue's waiting events to the Slack side now, without polling (a webhook wrote one): each
   * (event, destination) is claimed first, so this is safe beside the queue's poller on any replica.
   */
  async deliverNow(workspaceId: string, target: QueueTarget): Promise<void> {
    await this.#deliverPending({ workspaceId, target }, queueKeyOf(target), this.#now(), {});
  }

  /** Marks done the events whose every destination was sent or failed for good. */
  async #finishSettled(
    batch: Array<{ event: WatchEvent; dests: Destination[] }>,
    now: number,
  ): Promise<void> {
    for (const { event, dests } of batch) {
      const rows = await this.outbox.deliveries(event.id);
      const settled = dests.every((d) =>
        rows.some((r) => r.destination === d.key && (r.status === 'sent' || r.status === 'failed')),
      );
      if (settled) await this.outbox.finish(event.id, now, false);
    }
  }

  /** Resolves when every delivery this replica started has been answered and settled. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /** One result list per item; a throw counts as no result (retried next tick). */
  async #sendAll(
    items: Array<{ event: WatchEvent; claimed: Destination[] }>,
    context: DeliveryContext,
    log: Logger,
  ): Promise<DeliveryResult[][]> {
    if (items.length === 0) return [];
    const { deliverBatch } = this.#o;
    if (deliverBatch) {
      try {
        return await deliverBatch(
          items.map((i) => ({ event: i.event, destinations: i.claimed })),
          context,
        );
      } catch (err) {
        log.warn({ err, events: items.length }, 'delivering queue events failed; retrying next tick');
        return [];
      }
    }
    const out: DeliveryResult[][] = [];
    for (const { event, claimed } of items) {
      try {
        out.push(await this.#o.deliver(event, claimed));
      } catch (err) {
        log.warn({ err, event: event.id }, 'delivering a queue event failed; retrying next tick');
        out.push([]);
      }
    }
    return out;
  }

  async #settle(
    event: WatchEvent,
    claimed: Destination[],
    results: DeliveryResult[],
    now: number,
    log: Logger,
  ): Promise<void> {
    for (const d of claimed) {
      const r = results.find((x) => x.key === d.key);
      if (r?.ok) {
        await this.outbox.settle(event.id, d.key, this.#o.replicaId, 'sent', now);
        this.#o.metrics.watchEvents.inc({ kind: event.kind, destination: d.kind });
      } else {
        const error = r && !r.ok ? r.error : 'no result from deliver';
        const final = r && !r.ok && r.final === true;
        await this.outbox.settle(event.id, d.key, this.#o.replicaId, final ? 'failed' : 'retry', now, error);
        if (final)
          log.warn({ event: event.id, destination: d.key, error }, 'queue event delivery failed for good');
      }
    }
  }
}

/** Runs fn over items with at most `size` at a time. */
async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
}
