/**
 * The message each channel got last about each test (test_feed_messages, migration 014): its ts, so an
 * investigation summary or an override announcement threads under it, and the card it shows, so a button
 * redraws it and knows whose test it is from the store rather than from the button's value.
 */
import type { Db, Row } from '../store/types.ts';
import type { FeedMessage, TestCard } from './types.ts';

const COLUMNS = 'workspace_id, channel_id, test_id, message_ts, status_at, override_seq, snapshot';

function toMessage(r: Row): FeedMessage {
  return {
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    testId: String(r['test_id']),
    ts: String(r['message_ts']),
    statusAt: Number(r['status_at']),
    overrideSeq: Number(r['override_seq']),
    card: JSON.parse(String(r['snapshot'])) as TestCard,
  };
}

export class FeedMessageRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async get(workspaceId: string, channelId: string, testId: string): Promise<FeedMessage | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM test_feed_messages WHERE workspace_id = $1 AND channel_id = $2 AND test_id = $3`,
      [workspaceId, channelId, testId],
    );
    return rows[0] ? toMessage(rows[0]) : undefined;
  }

  /** Records a new status message for (channel, test), replacing the one before it. */
  async record(m: Omit<FeedMessage, 'overrideSeq'>, now: number): Promise<void> {
    await this.#db.execute(
      `INSERT INTO test_feed_messages (workspace_id, channel_id, test_id, message_ts, status_at, override_seq, snapshot, updated_at)
       VALUES ($1,$2,$3,$4,$5,0,$6,$7)
       ON CONFLICT (workspace_id, channel_id, test_id)
       DO UPDATE SET message_ts = $4, status_at = $5, snapshot = $6, updated_at = $7`,
      [m.workspaceId, m.channelId, m.testId, m.ts, m.statusAt, JSON.stringify(m.card), now],
    );
  }

  /**
   * Saves what the message shows after a change made from Slack, if nothing changed it meanwhile (`seq` is
   * the override count it was read with); bumps the count when `override` is set. False when refused.
   */
  async update(
    m: Pick<FeedMessage, 'workspaceId' | 'channelId' | 'testId' | 'overrideSeq' | 'card'>,
    now: number,
    opts: { override?: boolean } = {},
  ): Promise<boolean> {
    const n = await this.#db.execute(
      `UPDATE test_feed_messages SET snapshot = $4, updated_at = $5, override_seq = override_seq + $6
       WHERE workspace_id = $1 AND channel_id = $2 AND test_id = $3 AND override_seq = $7`,
      [
        m.workspaceId,
        m.channelId,
        m.testId,
        JSON.stringify(m.card),
        now,
        opts.override ? 1 : 0,
        m.overrideSeq,
      ],
    );
    return n === 1;
  }
}
