/**
 * The stored feeds of a queue: channel watches (watch_channels) and live status messages
 * (watch_live_messages), through the store's Db seam. Which queues are followed at all is followed.ts's.
 */
import { randomInt } from 'node:crypto';
import type { Db, Row } from '../store/types.ts';
import { type LiveMessage, type QueueTarget, queueKeyOf, TOPICS, type Topic, type Watch } from './types.ts';

const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Short ids people can type (`unwatch` may name one). */
export function newWatchId(): string {
  let id = 'w';
  for (let i = 0; i < 5; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

function targetOf(r: Row): QueueTarget {
  return {
    repo: { host: String(r['repo_host']), owner: String(r['repo_owner']), name: String(r['repo_name']) },
    branch: String(r['branch']),
  };
}

function toWatch(r: Row): Watch {
  const w: Watch = {
    id: String(r['id']),
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    target: targetOf(r),
    topics: String(r['topics'])
      .split(',')
      .filter((t): t is Topic => (TOPICS as readonly string[]).includes(t)),
    createdBy: String(r['created_by']),
    createdAt: Number(r['created_at']),
  };
  if (r['stuck_minutes'] !== null && r['stuck_minutes'] !== undefined)
    w.stuckMinutes = Number(r['stuck_minutes']);
  return w;
}

function toLive(r: Row): LiveMessage {
  return {
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    ts: String(r['message_ts']),
    target: targetOf(r),
    liveUntil: Number(r['live_until']),
  };
}

const WATCH_COLUMNS =
  'id, workspace_id, channel_id, repo_host, repo_owner, repo_name, branch, topics, stuck_minutes, created_by, created_at';

export class WatchRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Creates this channel's watch of the queue, or replaces its topics and threshold when it already has
   * one (one watch per channel and queue). Returns the stored watch.
   */
  async upsert(w: Omit<Watch, 'id'>): Promise<Watch> {
    const topics = TOPICS.filter((t) => w.topics.includes(t)).join(',');
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newWatchId();
      try {
        const rows = await this.#db.query(
          `INSERT INTO watch_channels (id, workspace_id, channel_id, queue_key, repo_host, repo_owner, repo_name, branch, topics, stuck_minutes, created_by, created_at)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
           ON CONFLICT (workspace_id, channel_id, queue_key) DO UPDATE SET topics = $9, stuck_minutes = $10
           RETURNING ${WATCH_COLUMNS}`,
          [
            id,
            w.workspaceId,
            w.channelId,
            queueKeyOf(w.target),
            w.target.repo.host,
            w.target.repo.owner,
            w.target.repo.name,
            w.target.branch,
            topics,
            w.stuckMinutes ?? null,
            w.createdBy,
            w.createdAt,
          ],
        );
        if (rows[0]) return toWatch(rows[0]);
      } catch (err) {
        // Only an id collision (primary key) is worth another try.
        if (!/unique|duplicate/i.test(String((err as Error).message)) || attempt === 4) throw err;
      }
    }
    throw new Error('could not allocate a watch id');
  }

  async get(workspaceId: string, id: string): Promise<Watch | undefined> {
    const rows = await this.#db.query(
      `SELECT ${WATCH_COLUMNS} FROM watch_channels WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0] ? toWatch(rows[0]) : undefined;
  }

  async listChannel(workspaceId: string, channelId: string): Promise<Watch[]> {
    const rows = await this.#db.query(
      `SELECT ${WATCH_COLUMNS} FROM watch_channels WHERE workspace_id = $1 AND channel_id = $2 ORDER BY created_at, id`,
      [workspaceId, channelId],
    );
    return rows.map(toWatch);
  }

  async listQueue(workspaceId: string, queueKey: string): Promise<Watch[]> {
    const rows = await this.#db.query(
      `SELECT ${WATCH_COLUMNS} FROM watch_channels WHERE workspace_id = $1 AND queue_key = $2 ORDER BY created_at, id`,
      [workspaceId, queueKey],
    );
    return rows.map(toWatch);
  }

  /** Every watch of one workspace (the Home tab lists them). */
  async listWorkspace(workspaceId: string): Promise<Watch[]> {
    const rows = await this.#db.query(
      `SELECT ${WATCH_COLUMNS} FROM watch_channels WHERE workspace_id = $1 ORDER BY queue_key, channel_id`,
      [workspaceId],
    );
    return rows.map(toWatch);
  }

  async listAll(): Promise<Watch[]> {
    const rows = await this.#db.query(
      `SELECT ${WATCH_COLUMNS} FROM watch_channels ORDER BY workspace_id, id`,
    );
    return rows.map(toWatch);
  }

  /** Ends this channel's watch of the queue; false when there was none. */
  async remove(workspaceId: string, channelId: string, target: QueueTarget): Promise<boolean> {
    const n = await this.#db.execute(
      'DELETE FROM watch_channels WHERE workspace_id = $1 AND channel_id = $2 AND queue_key = $3',
      [workspaceId, channelId, queueKeyOf(target)],
    );
    return n > 0;
  }
}

const LIVE_COLUMNS =
  'workspace_id, channel_id, message_ts, repo_host, repo_owner, repo_name, branch, live_until';

export class LiveMessageRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Records (or extends) a status message that keeps itself current until liveUntil. */
  async upsert(m: LiveMessage, now: number): Promise<void> {
    await this.#db.execute(
      `INSERT INTO watch_live_messages (workspace_id, channel_id, message_ts, queue_key, repo_host, repo_owner, repo_name, branch, live_until, created_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)
       ON CONFLICT (workspace_id, channel_id, message_ts) DO UPDATE SET live_until = $9`,
      [
        m.workspaceId,
        m.channelId,
        m.ts,
        queueKeyOf(m.target),
        m.target.repo.host,
        m.target.repo.owner,
        m.target.repo.name,
        m.target.branch,
        m.liveUntil,
        now,
      ],
    );
  }

  async get(workspaceId: string, channelId: string, ts: string): Promise<LiveMessage | undefined> {
    const rows = await this.#db.query(
      `SELECT ${LIVE_COLUMNS} FROM watch_live_messages WHERE workspace_id = $1 AND channel_id = $2 AND message_ts = $3`,
      [workspaceId, channelId, ts],
    );
    return rows[0] ? toLive(rows[0]) : undefined;
  }

  /** The queue's messages still live at `now`. */
  async listQueue(workspaceId: string, queueKey: string, now: number): Promise<LiveMessage[]> {
    const rows = await this.#db.query(
      `SELECT ${LIVE_COLUMNS} FROM watch_live_messages WHERE workspace_id = $1 AND queue_key = $2 AND live_until > $3
       ORDER BY channel_id, message_ts`,
      [workspaceId, queueKey, now],
    );
    return rows.map(toLive);
  }

  async listLive(now: number): Promise<LiveMessage[]> {
    const rows = await this.#db.query(
      `SELECT ${LIVE_COLUMNS} FROM watch_live_messages WHERE live_until > $1 ORDER BY workspace_id, channel_id, message_ts`,
      [now],
    );
    return rows.map(toLive);
  }

  /** Forgets a message (Slack says it is gone): it is neither redrawn nor ended. */
  async forget(workspaceId: string, channelId: string, ts: string): Promise<void> {
    await this.#db.execute(
      'DELETE FROM watch_live_messages WHERE workspace_id = $1 AND channel_id = $2 AND message_ts = $3',
      [workspaceId, channelId, ts],
    );
  }

  /** Messages whose live period ended before `now` (the Slack side redraws them as no longer live), then forgets them. */
  async takeExpired(now: number, limit = 100): Promise<LiveMessage[]> {
    const rows = await this.#db.query(
      `SELECT ${LIVE_COLUMNS} FROM watch_live_messages WHERE live_until <= $1 ORDER BY live_until LIMIT $2`,
      [now, limit],
    );
    const out: LiveMessage[] = [];
    for (const r of rows) {
      const m = toLive(r);
      // Whoever deletes the row owns the final redraw: two replicas never both get it.
      const n = await this.#db.execute(
        'DELETE FROM watch_live_messages WHERE workspace_id = $1 AND channel_id = $2 AND message_ts = $3 AND live_until <= $4',
        [m.workspaceId, m.channelId, m.ts, now],
      );
      if (n === 1) out.push(m);
    }
    return out;
  }
}
