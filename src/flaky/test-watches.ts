/**
 * The stored test watches (test_watches, migration 014) and which of them hear about a test: a channel's
 * watch matches when its repository is the test's (ignoring case; none = every repository) and its owner is
 * one of the test's code owners (core/codeowners.ts's rule; none = every owner).
 */
import { ownedBy } from '../core/codeowners.ts';
import { newShortId } from '../core/short-id.ts';
import type { Db, Row } from '../store/types.ts';
import type { TestCaseInfo, TestWatch } from './types.ts';

/** A channel keeps at most this many test watches. */
export const MAX_TEST_WATCHES_PER_CHANNEL = 20;

const COLUMNS = 'id, workspace_id, channel_id, repo, owner, created_by, created_at';

function toWatch(r: Row): TestWatch {
  const w: TestWatch = {
    id: String(r['id']),
    workspaceId: String(r['workspace_id']),
    channelId: String(r['channel_id']),
    createdBy: String(r['created_by']),
    createdAt: Number(r['created_at']),
  };
  if (r['repo']) w.repo = String(r['repo']);
  if (r['owner']) w.owner = String(r['owner']);
  return w;
}

const keyOf = (s: string | undefined) => (s ?? '').toLowerCase();

/** `owner/name` of `[host/]owner/name`, lower-cased: Trunk's payloads name the repository by its URL's path. */
const repoPath = (r: string | undefined) => keyOf(r).split('/').slice(-2).join('/');

/** Whether a watch hears about this test of `repo`. */
export function watchMatches(
  w: Pick<TestWatch, 'repo' | 'owner'>,
  test: TestCaseInfo,
  repo?: string,
): boolean {
  if (w.repo && repoPath(w.repo) !== repoPath(repo)) return false;
  return ownedBy(test.codeowners, w.owner);
}

/** Whether two watches are the same channel's same (repository, owner) pair. */
export function sameWatch(
  a: Pick<TestWatch, 'repo' | 'owner'>,
  b: Pick<TestWatch, 'repo' | 'owner'>,
): boolean {
  return keyOf(a.repo) === keyOf(b.repo) && keyOf(a.owner) === keyOf(b.owner);
}

export class TestWatchRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Adds the channel's watch of (repo, owner); `created` false when it had it already (kept as it was). */
  async add(w: Omit<TestWatch, 'id'>): Promise<{ watch: TestWatch; created: boolean }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const rows = await this.#db.query(
          `INSERT INTO test_watches (id, workspace_id, channel_id, repo_key, owner_key, repo, owner, created_by, created_at)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)
           ON CONFLICT (workspace_id, channel_id, repo_key, owner_key) DO NOTHING
           RETURNING ${COLUMNS}`,
          [
            newShortId('t'),
            w.workspaceId,
            w.channelId,
            keyOf(w.repo),
            keyOf(w.owner),
            w.repo ?? '',
            w.owner ?? '',
            w.createdBy,
            w.createdAt,
          ],
        );
        if (rows[0]) return { watch: toWatch(rows[0]), created: true };
        const existing = (await this.listChannel(w.workspaceId, w.channelId)).find((x) => sameWatch(x, w));
        if (existing) return { watch: existing, created: false };
      } catch (err) {
        // Only an id collision (primary key) is worth another try.
        if (!/unique|duplicate/i.test(String((err as Error).message)) || attempt === 4) throw err;
      }
    }
    throw new Error('could not allocate a test watch id');
  }

  async listChannel(workspaceId: string, channelId: string): Promise<TestWatch[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM test_watches WHERE workspace_id = $1 AND channel_id = $2 ORDER BY created_at, id`,
      [workspaceId, channelId],
    );
    return rows.map(toWatch);
  }

  async listWorkspace(workspaceId: string): Promise<TestWatch[]> {
    const rows = await this.#db.query(
      `SELECT ${COLUMNS} FROM test_watches WHERE workspace_id = $1 ORDER BY channel_id, created_at, id`,
      [workspaceId],
    );
    return rows.map(toWatch);
  }

  /** The watches that hear about this test, one per channel (the first that matches). */
  async matching(workspaceId: string, test: TestCaseInfo, repo?: string): Promise<TestWatch[]> {
    const byChannel = new Map<string, TestWatch>();
    for (const w of await this.listWorkspace(workspaceId))
      if (!byChannel.has(w.channelId) && watchMatches(w, test, repo)) byChannel.set(w.channelId, w);
    return [...byChannel.values()];
  }

  /** Removes the channel's watches of `repo` (every repository's when undefined); the removed ones. */
  async remove(workspaceId: string, channelId: string, repo?: string): Promise<TestWatch[]> {
    const all = await this.listChannel(workspaceId, channelId);
    const gone = repo === undefined ? all : all.filter((w) => keyOf(w.repo) === keyOf(repo));
    for (const w of gone)
      await this.#db.execute('DELETE FROM test_watches WHERE workspace_id = $1 AND id = $2', [
        workspaceId,
        w.id,
      ]);
    return gone;
  }
}
