/**
 * Slack users ↔ GitHub logins (watch_people), for notes to a PR's author. A login belongs to one person
 * per workspace (compared case-insensitively, as GitHub does): claiming one that someone else holds is
 * refused, and only an operator's link (`reassign`) moves it.
 */
import type { Db, Row } from '../store/types.ts';
import type { PersonLink } from './types.ts';

const COLUMNS = 'workspace_id, user_id, github_login, verified, notify, linked_by, linked_at';

function toLink(r: Row): PersonLink {
  return {
    workspaceId: String(r['workspace_id']),
    userId: String(r['user_id']),
    githubLogin: String(r['github_login']),
    verified: Number(r['verified']) === 1,
    notify: Number(r['notify']) === 1,
    linkedBy: String(r['linked_by']),
    linkedAt: Number(r['linked_at']),
  };
}

/** GitHub logins: 1–39 letters, digits or single hyphens, not starting or ending with a hyphen; `[bot]` apps too. */
export const GITHUB_LOGIN_RE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}(?:\[bot\])?$/;

export type LinkResult =
  | { ok: true; link: PersonLink; replaced?: string }
  | { ok: false; reason: 'taken'; heldBy: string }
  | { ok: false; reason: 'invalid'; message: string };

export interface LinkInput {
  workspaceId: string;
  userId: string;
  githubLogin: string;
  /** Who made the link: the person themselves, or an operator (then `verified`). */
  linkedBy: string;
  verified: boolean;
  /** An operator settling a dispute: the login moves from whoever held it. */
  reassign?: boolean;
  now: number;
}

export class PeopleRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async link(input: LinkInput): Promise<LinkResult> {
    const login = input.githubLogin.trim().replace(/^@/, '');
    if (!GITHUB_LOGIN_RE.test(login))
      return {
        ok: false,
        reason: 'invalid',
        message: `"${input.githubLogin.slice(0, 60)}" is not a GitHub login: use letters, digits and single hyphens, up to 39 characters, for example \`me github octocat\`.`,
      };
    const lc = login.toLowerCase();
    try {
      return await this.#db.transaction(async (tx) => {
        const holder = await tx.query<{ user_id: string }>(
          'SELECT user_id FROM watch_people WHERE workspace_id = $1 AND github_login_lc = $2',
          [input.workspaceId, lc],
        );
        const heldBy = holder[0]?.user_id;
        let replaced: string | undefined;
        if (heldBy !== undefined && heldBy !== input.userId) {
          if (!input.reassign) return { ok: false, reason: 'taken', heldBy } as const;
          await tx.execute('DELETE FROM watch_people WHERE workspace_id = $1 AND user_id = $2', [
            input.workspaceId,
            heldBy,
          ]);
          replaced = heldBy;
        }
        const rows = await tx.query(
          `INSERT INTO watch_people (workspace_id, user_id, github_login, github_login_lc, verified, notify, linked_by, linked_at)
           VALUES ($1,$2,$3,$4,$5,1,$6,$7)
           ON CONFLICT (workspace_id, user_id) DO UPDATE SET github_login = $3, github_login_lc = $4, verified = $5, linked_by = $6, linked_at = $7
           RETURNING ${COLUMNS}`,
          [input.workspaceId, input.userId, login, lc, input.verified ? 1 : 0, input.linkedBy, input.now],
        );
        const link = toLink(rows[0] as Row);
        return replaced ? { ok: true, link, replaced } : { ok: true, link };
      });
    } catch (err) {
      // Two people claiming one login at the same moment: the unique index lets one win.
      if (!/unique|duplicate/i.test(String((err as Error).message))) throw err;
      const holder = await this.byLogin(input.workspaceId, login);
      if (!holder) throw err;
      return { ok: false, reason: 'taken', heldBy: holder.userId };
    }
  }

  async get(workspaceId: string, userId: string): Promise<PersonLink | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM watch_people WHERE workspace_id = $1 AND user_id = $2`,
      [workspaceId, userId],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  async byLogin(workspaceId: string, githubLogin: string): Promise<PersonLink | undefined> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM watch_people WHERE workspace_id = $1 AND github_login_lc = $2`,
      [workspaceId, githubLogin.toLowerCase()],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  async list(workspaceId: string): Promise<PersonLink[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM watch_people WHERE workspace_id = $1 ORDER BY github_login_lc`,
      [workspaceId],
    );
    return rows.map(toLink);
  }

  /** `me forget`: false when there was no link. */
  async forget(workspaceId: string, userId: string): Promise<boolean> {
    const n = await this.#db.execute('DELETE FROM watch_people WHERE workspace_id = $1 AND user_id = $2', [
      workspaceId,
      userId,
    ]);
    return n > 0;
  }

  /** `me notify on|off`: false when the person has no link. */
  async setNotify(workspaceId: string, userId: string, on: boolean): Promise<boolean> {
    const n = await this.#db.execute(
      'UPDATE watch_people SET notify = $3 WHERE workspace_id = $1 AND user_id = $2',
      [workspaceId, userId, on ? 1 : 0],
    );
    return n > 0;
  }
}
