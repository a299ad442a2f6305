/** Freeze windows in the freeze_windows table (migration 007) through the Db seam. */

import { newShortId } from '../core/short-id.ts';
import { parseTarget, type QueueRef } from '../core/target.ts';
import type { Db, Row, SqlValue } from '../store/types.ts';
import type { FreezeRule, RepeatDays } from './schedule.ts';
import type { FreezeAction, FreezeWindow } from './types.ts';

/**
 * The stored form of a queue: every window of one queue has the same key however it was typed, so
 * overlapping windows find each other. Git branch names are case-sensitive; GitHub names are not.
 */
export function targetKey(ref: QueueRef): string {
  const r = ref.repo;
  return `${r.host.toLowerCase()}/${r.owner.toLowerCase()}/${r.name.toLowerCase()}:${ref.branch}`;
}

export function targetFromKey(key: string): QueueRef {
  const parsed = parseTarget(key);
  if (!parsed.ok || !parsed.value.repo || parsed.value.branch === undefined)
    throw new Error(`stored freeze target "${key}" is not host/owner/name:branch`);
  return { repo: parsed.value.repo, branch: parsed.value.branch };
}

const COLUMNS =
  'id, workspace_id, channel_id, created_by, created_at, target, start_minute, end_minute, tz, days, once_date, action, reason, skip_start_at';

function toWindow(r: Row): FreezeWindow {
  const days = String(r['days']);
  const rule: FreezeRule =
    days === 'once'
      ? { kind: 'once', date: String(r['once_date']) }
      : { kind: 'repeat', days: days as RepeatDays };
  const w: FreezeWindow = {
    id: String(r['id']),
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    createdBy: String(r['created_by']),
    createdAt: Number(r['created_at']),
    target: targetFromKey(String(r['target'])),
    startMinute: Number(r['start_minute']),
    endMinute: Number(r['end_minute']),
    tz: String(r['tz']),
    rule,
    action: String(r['action']) as FreezeAction,
  };
  if (typeof r['reason'] === 'string' && r['reason']) w.reason = r['reason'];
  if (r['skip_start_at'] !== null && r['skip_start_at'] !== undefined)
    w.skipStartAt = Number(r['skip_start_at']);
  return w;
}

export class WindowRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts with a fresh id (retrying the rare id collision); returns the stored window. */
  async insert(w: Omit<FreezeWindow, 'id'>): Promise<FreezeWindow> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = newShortId('f');
      const params: SqlValue[] = [
        id,
        w.workspaceId,
        w.channelId,
        w.createdBy,
        w.createdAt,
        targetKey(w.target),
        w.startMinute,
        w.endMinute,
        w.tz,
        w.rule.kind === 'once' ? 'once' : w.rule.days,
        w.rule.kind === 'once' ? w.rule.date : null,
        w.action,
        w.reason ?? null,
        w.skipStartAt ?? null,
      ];
      const rows = await this.#db.query(
        `INSERT INTO freeze_windows (${COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        params,
      );
      if (rows.length === 1) return toWindow({ ...rowOf(params) });
    }
    throw new Error('could not allocate a freeze window id');
  }

  async get(workspaceId: string, id: string): Promise<FreezeWindow | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_windows WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0] ? toWindow(rows[0]) : undefined;
  }

  async list(workspaceId: string): Promise<FreezeWindow[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_windows WHERE workspace_id = $1 ORDER BY target, created_at, id`,
      [workspaceId],
    );
    return rows.map(toWindow);
  }

  async forTarget(workspaceId: string, target: QueueRef): Promise<FreezeWindow[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM freeze_windows WHERE workspace_id = $1 AND target = $2 ORDER BY created_at, id`,
      [workspaceId, targetKey(target)],
    );
    return rows.map(toWindow);
  }

  /** Every workspace's windows: what the freezer looks at each tick. */
  async all(): Promise<FreezeWindow[]> {
    const rows = await this.#db.query(`SELECT ${COLUMNS} FROM freeze_windows ORDER BY id`);
    return rows.map(toWindow);
  }

  async remove(workspaceId: string, id: string): Promise<boolean> {
    const n = await this.#db.execute('DELETE FROM freeze_windows WHERE workspace_id = $1 AND id = $2', [
      workspaceId,
      id,
    ]);
    return n > 0;
  }

  async setSkip(workspaceId: string, id: string, skipStartAt: number | null): Promise<boolean> {
    const n = await this.#db.execute(
      'UPDATE freeze_windows SET skip_start_at = $3 WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id, skipStartAt],
    );
    return n > 0;
  }
}

/** The insert's parameters as the row the database now holds. */
function rowOf(params: SqlValue[]): Row {
  const names = COLUMNS.split(', ');
  return Object.fromEntries(names.map((n, i) => [n, params[i]]));
}
