/**
 * The autopilot's rows (migration 019): its settings per workspace and per queue, and the claim on each kick
 * it re-submits. A claim is one row per (workspace, queue, PR, head commit) on a lease (store/claim-rows.ts,
 * migration 022): whoever claims it sends the re-submission; the lease lets another replica take over a claim
 * whose owner died (after reading Trunk back, so nothing is sent twice), and once `done` or `refused` the row
 * is never claimed again, so a head commit is re-submitted at most once.
 */
import { ClaimRows, type ClaimRowsSpec, holdingOf } from '../store/claim-rows.ts';
import type { Db, LeaseStore, Row } from '../store/types.ts';
import { DEFAULT_REQUEUE, isKickClass, type KickClass } from './classify.ts';
import type { AutopilotSetting, EffectiveAutopilot } from './types.ts';

export type { AutopilotSetting, EffectiveAutopilot } from './types.ts';

/** The workspace's own row has this queue key. */
export const WORKSPACE_WIDE = '';

function toSetting(r: Row): AutopilotSetting {
  const enabled =
    r['enabled'] === null || r['enabled'] === undefined ? undefined : Number(r['enabled']) === 1;
  const classes = typeof r['classes'] === 'string' ? r['classes'].split(' ').filter(isKickClass) : undefined;
  return {
    workspaceId: String(r['workspace_id']),
    queueKey: String(r['queue_key']),
    enabled,
    classes,
    updatedBy: String(r['updated_by']),
    updatedAt: Number(r['updated_at']),
  };
}

export class AutopilotRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async list(workspaceId: string): Promise<AutopilotSetting[]> {
    const rows = await this.#db.query(
      'SELECT * FROM autopilot_settings WHERE workspace_id = $1 ORDER BY queue_key',
      [workspaceId],
    );
    return rows.map(toSetting);
  }

  /** What applies to one queue: its own row where it has one, else the workspace's (off, `flaky infra`). */
  async effective(workspaceId: string, queueKey: string): Promise<EffectiveAutopilot> {
    const rows = await this.#db.query(
      'SELECT * FROM autopilot_settings WHERE workspace_id = $1 AND queue_key IN ($2, $3)',
      [workspaceId, WORKSPACE_WIDE, queueKey],
    );
    const all = rows.map(toSetting);
    const ws = all.find((s) => s.queueKey === WORKSPACE_WIDE);
    const q = queueKey === WORKSPACE_WIDE ? undefined : all.find((s) => s.queueKey === queueKey);
    return {
      enabled: q?.enabled ?? ws?.enabled ?? false,
      classes: q?.classes ?? ws?.classes ?? [...DEFAULT_REQUEUE],
      enabledFrom: q?.enabled !== undefined ? 'queue' : 'workspace',
      classesFrom: q?.classes !== undefined ? 'queue' : 'workspace',
    };
  }

  /** Whether any row of the workspace turns the autopilot on (a cheap check before the per-queue one). */
  async anyOn(workspaceId: string): Promise<boolean> {
    const rows = await this.#db.query(
      'SELECT 1 AS one FROM autopilot_settings WHERE workspace_id = $1 AND enabled = 1 LIMIT 1',
      [workspaceId],
    );
    return rows.length > 0;
  }

  /** Sets one part of a row (the other part of a new queue row follows the workspace). */
  async set(
    workspaceId: string,
    queueKey: string,
    change: { enabled: boolean } | { classes: readonly KickClass[] },
    by: string,
    now: number,
  ): Promise<void> {
    const enabled = 'enabled' in change ? (change.enabled ? 1 : 0) : null;
    const classes = 'classes' in change ? change.classes.join(' ') : null;
    const column = 'enabled' in change ? 'enabled' : 'classes';
    await this.#db.execute(
      `INSERT INTO autopilot_settings (workspace_id, queue_key, enabled, classes, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (workspace_id, queue_key) DO UPDATE SET ${column} = excluded.${column},
         updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [workspaceId, queueKey, enabled, classes, by, now],
    );
  }
}

/** One kick the autopilot may re-submit. */
export interface KickKey {
  workspaceId: string;
  queueKey: string;
  prNumber: number;
  headSha: string;
}

export type ClaimOutcome =
  /**
   * This replica sends it; `takeover` when an earlier owner's claim lapsed (read Trunk back first: anything
   * the PR did after `claimedAt` means the earlier owner's write landed).
   */
  { acquired: true; takeover: boolean; claimedAt: number } | { acquired: false; status: string };

/** The lease of each re-submission claim, in the store's lease table (see migration 022). */
const RESUBMIT_LEASE = 'autopilot.resubmit';
/** One row per kick in `autopilot_resubmissions`, its lease `autopilot.resubmit`. */
const RESUBMISSION_ROWS: ClaimRowsSpec = {
  kind: RESUBMIT_LEASE,
  table: 'autopilot_resubmissions',
  // The queue key first: a branch name may hold `|`, which only the lease key's first part may.
  key: ['queue_key', 'workspace_id', 'pr_number', 'head_sha'],
  columns: [
    'workspace_id',
    'queue_key',
    'pr_number',
    'head_sha',
    'kick_class',
    'evidence',
    'status',
    'owner',
    'attempts',
    'detail',
    'created_at',
  ],
};
const keyValues = (k: KickKey) => [k.queueKey, k.workspaceId, k.prNumber, k.headSha];
const CLAIMED = { whileStatus: ['claimed'] } as const;

/** The kicks' claim rows (`autopilot_resubmissions`) on their leases (store/claim-rows.ts). */
export class ResubmissionClaims {
  readonly #rows: ClaimRows;
  constructor(store: LeaseStore) {
    this.#rows = new ClaimRows(store, RESUBMISSION_ROWS);
  }

  async claim(
    k: KickKey,
    kick: { kickClass: KickClass; evidence: string },
    owner: string,
    now: number,
    ttlMs: number,
  ): Promise<ClaimOutcome> {
    const got = await this.#rows.claim(
      { key: keyValues(k), workspaceId: k.workspaceId, holder: owner, ttlMs, now },
      // A takeover (the owner let the lease lapse, or released it) makes the row its own; a first claim
      // inserts it. Refused when the row is settled (`done`, `refused`): never claimed again.
      (tx, c) =>
        c.takenOver
          ? this.#rows.update(tx, keyValues(k), { owner, attempts: c.attempts }, CLAIMED)
          : this.#rows.insert(
              {
                workspace_id: k.workspaceId,
                queue_key: k.queueKey,
                pr_number: k.prNumber,
                head_sha: k.headSha,
                kick_class: kick.kickClass,
                evidence: kick.evidence,
                status: 'claimed',
                owner,
                attempts: c.attempts,
                created_at: now,
              },
              { tx },
            ),
    );
    // When the kick was first claimed: the lease's creation, as the row's (022 gave older leases the row's).
    if (got) return { acquired: true, takeover: got.takenOver, claimedAt: got.lease.createdAt };
    const held = await this.get(k);
    return { acquired: false, status: held?.status ?? 'claimed' };
  }

  /** Settles a claim this owner holds; false when it no longer holds it (taken over meanwhile). */
  finish(
    k: KickKey,
    owner: string,
    status: 'done' | 'refused',
    now: number,
    detail?: string,
  ): Promise<boolean> {
    return this.#rows.write(
      keyValues(k),
      owner,
      { step: 'finish', now, result: status },
      { status, detail: detail ?? null, done_at: now },
      CLAIMED,
    );
  }

  /** Gives a claim up at once (Trunk or the store failed halfway): the next attempt takes it over. */
  async release(k: KickKey, owner: string, detail: string): Promise<void> {
    await this.#rows.write(keyValues(k), owner, { step: 'release' }, { detail }, CLAIMED);
  }

  async get(k: KickKey): Promise<{ status: string; attempts: number; detail?: string } | undefined> {
    const found = await this.#rows.get(keyValues(k));
    if (!found) return undefined;
    const r = found.row;
    return {
      status: String(r['status']),
      attempts: holdingOf(found).attempts,
      ...(typeof r['detail'] === 'string' ? { detail: r['detail'] } : {}),
    };
  }

  /** The re-submissions of a queue in a window, newest first (the Home, tests and benches). */
  async list(
    workspaceId: string,
    queueKey: string | undefined,
    since: number,
    limit = 50,
  ): Promise<Array<KickKey & { kickClass: string; evidence: string; status: string; createdAt: number }>> {
    const rows = await this.#rows.select(
      "workspace_id = $1 AND ($2 = '' OR queue_key = $2) AND created_at >= $3",
      [workspaceId, queueKey ?? '', since, limit],
      'ORDER BY created_at DESC LIMIT $4',
    );
    return rows.map(({ row: r }) => ({
      workspaceId: String(r['workspace_id']),
      queueKey: String(r['queue_key']),
      prNumber: Number(r['pr_number']),
      headSha: String(r['head_sha']),
      kickClass: String(r['kick_class']),
      evidence: String(r['evidence']),
      status: String(r['status']),
      createdAt: Number(r['created_at']),
    }));
  }
}
