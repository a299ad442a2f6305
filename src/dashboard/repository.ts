/**
 * A channel's dashboard canvases (migration 020): one per (workspace, channel, queue). The canvas itself
 * lives in Slack; a row says which canvas, whether it is the channel's own canvas or a standalone one
 * shared in the channel, and what was last written to it and when.
 *
 * At most one edit a minute per canvas, across replicas: an edit is claimed by a conditional UPDATE that
 * moves `last_edit_at` only when the last claim is a minute old and the content differs from the last
 * written, so two replicas with the same change cannot both edit. An edit Slack did not take gives its
 * claim back (`last_hash` forgotten), so it is tried again after the minute.
 */
import { newShortId } from '../core/short-id.ts';
import type { QueueRef } from '../core/target.ts';
import type { Db, Row } from '../store/types.ts';

/** DESIGN: a dashboard is edited at most once a minute. */
export const MIN_EDIT_GAP_MS = 60_000;
/** Dashboards one channel may hold. */
export const MAX_DASHBOARDS_PER_CHANNEL = 5;

export interface Dashboard {
  id: string;
  workspaceId: string;
  channelId: string;
  queueKey: string;
  target: QueueRef;
  canvasId: string;
  /** The channel's own canvas (its tab); false: a standalone canvas shared in the channel. */
  channelCanvas: boolean;
  createdBy: string;
  createdAt: number;
  lastHash?: string;
  lastEditAt?: number;
}

const COLUMNS =
  'id, workspace_id, channel_id, queue_key, repo_host, repo_owner, repo_name, branch, canvas_id, channel_canvas, created_by, created_at, last_hash, last_edit_at';

function toDashboard(r: Row): Dashboard {
  const d: Dashboard = {
    id: String(r['id']),
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    queueKey: String(r['queue_key']),
    target: {
      repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
      branch: String(r['branch']),
    },
    canvasId: String(r['canvas_id']),
    channelCanvas: Number(r['channel_canvas']) === 1,
    createdBy: String(r['created_by']),
    createdAt: Number(r['created_at']),
  };
  if (typeof r['last_hash'] === 'string') d.lastHash = r['last_hash'];
  if (r['last_edit_at'] !== null && r['last_edit_at'] !== undefined) d.lastEditAt = Number(r['last_edit_at']);
  return d;
}

export class DashboardRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Stores a new dashboard; undefined when the channel already has one of that queue (another replica won). */
  async insert(d: Omit<Dashboard, 'id' | 'lastHash' | 'lastEditAt'>): Promise<Dashboard | undefined> {
    const id = newShortId('b');
    const rows = await this.#db.query(
      `INSERT INTO dashboards (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL, NULL)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        id,
        d.workspaceId,
        d.channelId,
        d.queueKey,
        d.target.repo.host,
        d.target.repo.owner,
        d.target.repo.name,
        d.target.branch,
        d.canvasId,
        d.channelCanvas ? 1 : 0,
        d.createdBy,
        d.createdAt,
      ],
    );
    return rows.length === 1 ? { ...d, id } : undefined;
  }

  async get(workspaceId: string, channelId: string, queueKey: string): Promise<Dashboard | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = $1 AND channel_id = $2 AND queue_key = $3`,
      [workspaceId, channelId, queueKey],
    );
    return rows[0] ? toDashboard(rows[0]) : undefined;
  }

  async byId(id: string): Promise<Dashboard | undefined> {
    const rows = await this.#db.query(`SELECT ${COLUMNS} FROM dashboards WHERE id = $1`, [id]);
    return rows[0] ? toDashboard(rows[0]) : undefined;
  }

  async listChannel(workspaceId: string, channelId: string): Promise<Dashboard[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM dashboards WHERE workspace_id = $1 AND channel_id = $2 ORDER BY created_at, id`,
      [workspaceId, channelId],
    );
    return rows.map(toDashboard);
  }

  /** Every dashboard, oldest first (the worker keeps them current). */
  async listAll(limit = 1000): Promise<Dashboard[]> {
    const rows = await this.#db.query(`SELECT ${COLUMNS} FROM dashboards ORDER BY created_at, id LIMIT $1`, [
      limit,
    ]);
    return rows.map(toDashboard);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.#db.execute('DELETE FROM dashboards WHERE id = $1', [id])) > 0;
  }

  /**
   * Claims the edit of `hash` now: true when this replica should edit (the content differs from the last
   * written and the last edit was at least a minute ago), and then the row already says so.
   */
  async claimEdit(id: string, hash: string, now: number, gapMs = MIN_EDIT_GAP_MS): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE dashboards SET last_hash = $2, last_edit_at = $3
       WHERE id = $1 AND (last_hash IS NULL OR last_hash <> $2) AND (last_edit_at IS NULL OR last_edit_at <= $4)`,
      [id, hash, now, now - gapMs],
    );
    return n === 1;
  }

  /** The claimed edit did not reach Slack: forget its content so it is tried again (after the minute). */
  async giveBack(id: string, hash: string, detail: string): Promise<void> {
    await this.#db.execute(
      'UPDATE dashboards SET last_hash = NULL, detail = $3 WHERE id = $1 AND last_hash = $2',
      [id, hash, detail],
    );
  }
}
