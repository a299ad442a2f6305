/**
 * Per followed queue: who polls it (a lease, store/leases.ts), what it looked like last (watch_snapshots) and the
 * health episodes of each watch (watch_health). A poll's result — snapshot, events, health — is written
 * in one transaction fenced by the lease, so a replica that lost its lease (it stalled and was taken over)
 * writes nothing, and a restart or takeover continues from exactly what was committed.
 */
import { recordQueueState } from '../history/repository.ts';
import { queueRunState } from '../history/types.ts';
import type { Db, DbExecutor, LeaseStore, Leases, Row } from '../store/types.ts';
import type { HealthRecord } from './health.ts';
import { isTransitionKind, recordPolledTransition } from './transitions.ts';
import type { StoredSnapshot, WatchEvent } from './types.ts';

/** The poll's write was refused: the lease is no longer ours, or another replica wrote a newer snapshot. */
export class LostLeaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LostLeaseError';
  }
}

export interface LeaseRow {
  workspaceId: string;
  queueKey: string;
  owner: string;
  leaseUntil: number;
}

/** The lease of one followed queue in the store's lease table (store/leases.ts): who polls it. */
export const POLL_LEASE = 'watch.poll';
const pollLease = (workspaceId: string, queueKey: string) => ({
  kind: POLL_LEASE,
  key: `${workspaceId}|${queueKey}`,
});

export class LeaseRepository {
  readonly #leases: Leases;
  constructor(store: Pick<LeaseStore, 'leases'>) {
    this.#leases = store.leases;
  }

  /**
   * Takes the queue's lease when free or expired, or renews it when already ours; two replicas racing for
   * an expired lease cannot both win.
   */
  async acquire(
    workspaceId: string,
    queueKey: string,
    owner: string,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    const got = await this.#leases.claim({
      ...pollLease(workspaceId, queueKey),
      workspaceId,
      holder: owner,
      ttlMs: leaseMs,
      now,
      mode: 'renew',
    });
    return got.acquired;
  }

  /** Gives the lease up (stop, or nobody follows the queue any more). */
  release(workspaceId: string, queueKey: string, owner: string): Promise<boolean> {
    return this.#leases.release({ ...pollLease(workspaceId, queueKey), holder: owner });
  }

  /** Who holds the queue's lease (undefined when nobody does: never taken, or given up). */
  async get(workspaceId: string, queueKey: string): Promise<LeaseRow | undefined> {
    const lease = await this.#leases.get(pollLease(workspaceId, queueKey));
    return lease?.state === 'held'
      ? { workspaceId, queueKey, owner: lease.holder, leaseUntil: lease.expiresAt }
      : undefined;
  }
}

function toHealth(r: Row): HealthRecord & { watchId: string } {
  const rec: HealthRecord & { watchId: string } = {
    watchId: String(r['watch_id']),
    condition: String(r['condition']) as HealthRecord['condition'],
    since: Number(r['since']),
  };
  if (r['alerted_at'] !== null && r['alerted_at'] !== undefined) rec.alertedAt = Number(r['alerted_at']);
  if (r['recovered_at'] !== null && r['recovered_at'] !== undefined)
    rec.recoveredAt = Number(r['recovered_at']);
  return rec;
}

export interface PollWrite {
  workspaceId: string;
  queueKey: string;
  owner: string;
  now: number;
  /** The lease is extended to this in the same transaction. */
  leaseUntil: number;
  /** The seq of the snapshot the diff was made against; undefined for the baseline. */
  prevSeq: number | undefined;
  next: StoredSnapshot;
  events: readonly WatchEvent[];
  /** The health records of each watch of the queue after this poll. */
  health: ReadonlyArray<{ watchId: string; records: readonly HealthRecord[] }>;
  /**
   * When the snapshot the diff was made against was taken: a PR transition a webhook delivered since then is
   * not written again (transitions.ts).
   */
  since?: number;
}

export class SnapshotRepository {
  readonly #db: Db;
  readonly #leases: Leases;
  constructor(store: LeaseStore) {
    this.#db = store.db;
    this.#leases = store.leases;
  }

  async get(workspaceId: string, queueKey: string): Promise<StoredSnapshot | undefined> {
    const rows = await this.#db.query(
      'SELECT seq, snapshot, taken_at FROM watch_snapshots WHERE workspace_id = $1 AND queue_key = $2',
      [workspaceId, queueKey],
    );
    const r = rows[0];
    return r
      ? { seq: Number(r['seq']), takenAt: Number(r['taken_at']), snapshot: JSON.parse(String(r['snapshot'])) }
      : undefined;
  }

  /** A queue nobody follows is forgotten, so following it again starts from a fresh baseline. */
  async forget(workspaceId: string, queueKey: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.execute('DELETE FROM watch_snapshots WHERE workspace_id = $1 AND queue_key = $2', [
        workspaceId,
        queueKey,
      ]);
      await tx.execute('DELETE FROM watch_health WHERE workspace_id = $1 AND queue_key = $2', [
        workspaceId,
        queueKey,
      ]);
    });
  }

  /**
   * Snapshots of queues nobody polls (no lease, or an expired one): a queue left unfollowed while its
   * poller was dead. The caller forgets those no longer followed.
   */
  async orphans(now: number): Promise<Array<{ workspaceId: string; queueKey: string }>> {
    const rows = await this.#db.query('SELECT workspace_id, queue_key FROM watch_snapshots');
    const queues = rows.map((r) => ({
      workspaceId: String(r['workspace_id']),
      queueKey: String(r['queue_key']),
    }));
    const leases = await this.#leases.getMany(
      POLL_LEASE,
      queues.map((q) => pollLease(q.workspaceId, q.queueKey).key),
    );
    return queues.filter((q) => {
      const lease = leases.get(pollLease(q.workspaceId, q.queueKey).key);
      return lease?.state !== 'held' || lease.expiresAt < now;
    });
  }

  async health(workspaceId: string, queueKey: string): Promise<Map<string, HealthRecord[]>> {
    const rows = await this.#db.query(
      'SELECT watch_id, condition, since, alerted_at, recovered_at FROM watch_health WHERE workspace_id = $1 AND queue_key = $2',
      [workspaceId, queueKey],
    );
    const out = new Map<string, HealthRecord[]>();
    for (const r of rows) {
      const { watchId, ...rec } = toHealth(r);
      out.set(watchId, [...(out.get(watchId) ?? []), rec]);
    }
    return out;
  }

  /** Snapshot, outbox events and health in one transaction; throws LostLeaseError (nothing written) when fenced off. */
  async commitPoll(w: PollWrite): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const renewed = await this.#leases.heartbeat(
        { ...pollLease(w.workspaceId, w.queueKey), holder: w.owner, liveAt: w.now, expiresAt: w.leaseUntil },
        tx,
      );
      if (!renewed) throw new LostLeaseError(`lease of ${w.queueKey} is no longer ours`);
      const snap = JSON.stringify(w.next.snapshot);
      const written =
        w.prevSeq === undefined
          ? await tx.execute(
              `INSERT INTO watch_snapshots (workspace_id, queue_key, seq, snapshot, taken_at) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (workspace_id, queue_key) DO NOTHING`,
              [w.workspaceId, w.queueKey, w.next.seq, snap, w.next.takenAt],
            )
          : await tx.execute(
              `UPDATE watch_snapshots SET seq = $3, snapshot = $4, taken_at = $5
               WHERE workspace_id = $1 AND queue_key = $2 AND seq = $6`,
              [w.workspaceId, w.queueKey, w.next.seq, snap, w.next.takenAt, w.prevSeq],
            );
      if (written !== 1) throw new LostLeaseError(`snapshot of ${w.queueKey} moved on under us`);
      const fresh: WatchEvent[] = [];
      for (const e of w.events)
        if (!('pr' in e) || !isTransitionKind(e.kind) || (await recordPolledTransition(tx, polled(e, w))))
          fresh.push(e);
      await insertEvents(tx, fresh, w.now);
      if (w.prevSeq === undefined || w.events.some((e) => e.kind === 'state'))
        await rememberQueueState(tx, w);
      for (const h of w.health) await saveHealth(tx, w.workspaceId, w.queueKey, h.watchId, h.records);
    });
  }
}

/** The queue's state after this poll, kept in its history when it changed (history/). */
async function rememberQueueState(tx: DbExecutor, w: PollWrite): Promise<void> {
  const state = queueRunState(w.next.snapshot.state);
  if (!state) return;
  const since = w.next.snapshot.haltedSince;
  await recordQueueState(tx, {
    workspaceId: w.workspaceId,
    queueKey: w.queueKey,
    state,
    occurredAt: state !== 'running' && since !== undefined ? since : w.now,
    source: 'poll',
  });
}

/** The transition a poll's PR event stands for: when Trunk says the PR's state changed, else now. */
function polled(e: Extract<WatchEvent, { pr: unknown }>, w: PollWrite) {
  const at = e.pr.stateChangedAt ? Date.parse(e.pr.stateChangedAt) : Number.NaN;
  return {
    workspaceId: e.workspaceId,
    queueKey: e.queueKey,
    prNumber: e.pr.number,
    kind: e.kind as Parameters<typeof recordPolledTransition>[1]['kind'],
    occurredAt: Number.isFinite(at) ? at : w.now,
    now: w.now,
    since: w.since ?? w.now,
    detail: { title: e.pr.title, author: e.pr.author, reasonCode: 'reason' in e ? e.reason : undefined },
  };
}

/** Writes events to the outbox (an id written before is left as it is). */
export async function insertEvents(
  tx: DbExecutor,
  events: readonly WatchEvent[],
  now: number,
): Promise<void> {
  for (const e of events)
    await tx.execute(
      `INSERT INTO watch_events (event_id, workspace_id, queue_key, seq, kind, payload, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (event_id) DO NOTHING`,
      [e.id, e.workspaceId, e.queueKey, e.seq, e.kind, JSON.stringify(e), now],
    );
}

async function saveHealth(
  tx: DbExecutor,
  workspaceId: string,
  queueKey: string,
  watchId: string,
  records: readonly HealthRecord[],
): Promise<void> {
  for (const r of records)
    await tx.execute(
      `INSERT INTO watch_health (watch_id, workspace_id, queue_key, condition, since, alerted_at, recovered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (watch_id, condition) DO UPDATE SET since = $5, alerted_at = $6, recovered_at = $7`,
      [watchId, workspaceId, queueKey, r.condition, r.since, r.alertedAt ?? null, r.recoveredAt ?? null],
    );
}
