/** Subscriptions and the owner → mention map, in the digest tables (migration 002) through the Db seam. */
import { newShortId } from '../core/short-id.ts';
import type { Db, Row, SqlValue } from '../store/types.ts';
import type { DaysRule } from './schedule.ts';
import type { Baseline, DigestKind, Subscription } from './types.ts';

/** Short ids people can type: `digest remove d7k2m9`. */
export function newSubscriptionId(): string {
  return newShortId('d');
}

const COLUMNS =
  'id, workspace_id, channel_id, kind, repo_host, repo_owner, repo_name, minute_of_day, tz, days, skip_empty, top_n, created_by, created_at, next_due_at, owner_filter, repo_branch';

function toSubscription(r: Row): Subscription {
  const sub: Subscription = {
    id: String(r['id']),
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    kind: String(r['kind']) as DigestKind,
    repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
    minuteOfDay: Number(r['minute_of_day']),
    tz: String(r['tz']),
    days: String(r['days']) as DaysRule,
    skipEmpty: Number(r['skip_empty']) === 1,
    topN: Number(r['top_n']),
    createdBy: String(r['created_by']),
    createdAt: Number(r['created_at']),
    nextDueAt: Number(r['next_due_at']),
  };
  if (typeof r['owner_filter'] === 'string' && r['owner_filter']) sub.owner = r['owner_filter'];
  if (typeof r['repo_branch'] === 'string' && r['repo_branch']) sub.branch = r['repo_branch'];
  return sub;
}

export class SubscriptionRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts with a fresh id (retrying the rare id collision); returns the stored subscription. */
  async insert(sub: Omit<Subscription, 'id'>): Promise<Subscription> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newSubscriptionId();
      const params: SqlValue[] = [
        id,
        sub.workspaceId,
        sub.channelId,
        sub.kind,
        sub.repo.host,
        sub.repo.owner,
        sub.repo.name,
        sub.minuteOfDay,
        sub.tz,
        sub.days,
        sub.skipEmpty ? 1 : 0,
        sub.topN,
        sub.createdBy,
        sub.createdAt,
        sub.nextDueAt,
        sub.owner ?? null,
        sub.branch ?? null,
      ];
      const rows = await this.#db.query(
        `INSERT INTO digest_subscriptions (${COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        params,
      );
      if (rows.length === 1) return { ...sub, id };
    }
    throw new Error('could not allocate a digest id');
  }

  async get(workspaceId: string, id: string): Promise<Subscription | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_subscriptions WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0] ? toSubscription(rows[0]) : undefined;
  }

  async byId(id: string): Promise<Subscription | undefined> {
    const rows = await this.#db.query(`SELECT ${COLUMNS} FROM digest_subscriptions WHERE id = $1`, [id]);
    return rows[0] ? toSubscription(rows[0]) : undefined;
  }

  async list(workspaceId: string): Promise<Subscription[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_subscriptions WHERE workspace_id = $1 ORDER BY channel_id, created_at, id`,
      [workspaceId],
    );
    return rows.map(toSubscription);
  }

  async countInChannel(workspaceId: string, channelId: string): Promise<number> {
    const rows = await this.#db.query<{ n: unknown }>(
      'SELECT COUNT(*) AS n FROM digest_subscriptions WHERE workspace_id = $1 AND channel_id = $2',
      [workspaceId, channelId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async remove(workspaceId: string, id: string): Promise<boolean> {
    const n = await this.#db.execute('DELETE FROM digest_subscriptions WHERE workspace_id = $1 AND id = $2', [
      workspaceId,
      id,
    ]);
    return n > 0;
  }

  /** Changes the options people set after creation; nextDueAt is recomputed by the caller when time changes. */
  async update(
    sub: Pick<
      Subscription,
      'id' | 'workspaceId' | 'minuteOfDay' | 'tz' | 'days' | 'skipEmpty' | 'topN' | 'nextDueAt'
    >,
  ): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE digest_subscriptions SET minute_of_day = $3, tz = $4, days = $5, skip_empty = $6, top_n = $7, next_due_at = $8
       WHERE workspace_id = $1 AND id = $2`,
      [
        sub.workspaceId,
        sub.id,
        sub.minuteOfDay,
        sub.tz,
        sub.days,
        sub.skipEmpty ? 1 : 0,
        sub.topN,
        sub.nextDueAt,
      ],
    );
    return n > 0;
  }

  /** Subscriptions whose next occurrence has come, oldest first. */
  async due(now: number, limit: number): Promise<Subscription[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM digest_subscriptions WHERE next_due_at <= $1 ORDER BY next_due_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map(toSubscription);
  }

  /** Moves the schedule on, only from the value this replica saw (another replica may have moved it). */
  async advance(id: string, from: number, to: number): Promise<void> {
    await this.#db.execute(
      'UPDATE digest_subscriptions SET next_due_at = $3 WHERE id = $1 AND next_due_at = $2',
      [id, from, to],
    );
  }

  async baseline(id: string): Promise<Baseline | undefined> {
    const rows = await this.#db.query<{ baseline: unknown }>(
      'SELECT baseline FROM digest_subscriptions WHERE id = $1',
      [id],
    );
    const raw = rows[0]?.baseline;
    if (typeof raw !== 'string' || raw === '') return undefined;
    try {
      return JSON.parse(raw) as Baseline;
    } catch {
      return undefined;
    }
  }

  /** Only a newer scheduled digest replaces the baseline. */
  async setBaseline(id: string, baseline: Baseline, at: number): Promise<void> {
    await this.#db.execute(
      `UPDATE digest_subscriptions SET baseline = $2, baseline_at = $3
       WHERE id = $1 AND (baseline_at IS NULL OR baseline_at < $3)`,
      [id, JSON.stringify(baseline), at],
    );
  }

  // ---- owner → mention map (workspace-wide)

  async setMentions(workspaceId: string, codeowner: string, mentions: string[], by: string, at: number) {
    if (mentions.length === 0) {
      return (
        (await this.#db.execute(
          'DELETE FROM digest_owner_mentions WHERE workspace_id = $1 AND codeowner = $2',
          [workspaceId, codeowner],
        )) > 0
      );
    }
    await this.#db.execute(
      `INSERT INTO digest_owner_mentions (workspace_id, codeowner, mentions, updated_by, updated_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, codeowner) DO UPDATE SET mentions = $3, updated_by = $4, updated_at = $5`,
      [workspaceId, codeowner, mentions.join(' '), by, at],
    );
    return true;
  }

  async mentions(workspaceId: string): Promise<Map<string, string[]>> {
    const rows = await this.#db.query<{ codeowner: unknown; mentions: unknown }>(
      'SELECT codeowner, mentions FROM digest_owner_mentions WHERE workspace_id = $1 ORDER BY codeowner',
      [workspaceId],
    );
    return new Map(rows.map((r) => [String(r.codeowner), String(r.mentions).split(' ').filter(Boolean)]));
  }
}
