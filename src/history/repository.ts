/**
 * The queue's memory in the store (migration 017), as functions over a DbExecutor so they join the caller's
 * transaction (the watch domain records a transition in the transaction that decides it is new).
 *
 * Once per (workspace, queue, PR, state, time): the webhook and poll paths record a row exactly when
 * watch/transitions.ts says the transition is new (so a transition both saw is one row); a read-back row is
 * left out when a row of the same PR and state lies within READBACK_SAME_MS of it (the poll stamps what it
 * saw with its own clock when Trunk gives no time), and an identical row is never written twice.
 *
 * A PR's *attempt* is its rows after its previous conclusion (merged, failed, cancelled) up to and including
 * the next one: "time in queue" runs from the attempt's first `submitted` to `merged`.
 */
import type { DbExecutor, Row, SqlValue } from '../store/types.ts';
import {
  type EtaEstimateRecord,
  HISTORY_STATES,
  type HistoryState,
  type KickClass,
  type MergedStay,
  type PrTransitionRecord,
  type QueueStateRecord,
} from './types.ts';

/** How close a read-back transition may lie to one the app already has and still be the same one. */
export const READBACK_SAME_MS = 2 * 60_000;

const COLUMNS =
  'workspace_id, queue_key, pr_number, state, occurred_at, head_sha, priority, no_batch, reason_code, ' +
  'failing_checks, kick_class, kick_evidence, submitted_by, source, recorded_at, title, author';

function values(r: PrTransitionRecord): SqlValue[] {
  return [
    r.workspaceId,
    r.queueKey,
    r.prNumber,
    r.state,
    r.occurredAt,
    r.headSha ?? null,
    r.priority ?? null,
    r.noBatch === undefined ? null : r.noBatch ? 1 : 0,
    r.reasonCode ?? null,
    r.failingChecks ? JSON.stringify(r.failingChecks) : null,
    r.kickClass ?? null,
    r.kickEvidence ?? null,
    r.submittedBy ?? null,
    r.source,
    r.recordedAt,
    r.title ?? null,
    r.author ?? null,
  ];
}

/**
 * Keeps one transition. A webhook's or poll's row is written unless the identical row exists; a read-back
 * row also unless a row of the same PR and state lies within READBACK_SAME_MS. True when written.
 */
export async function recordTransition(db: DbExecutor, r: PrTransitionRecord): Promise<boolean> {
  const written = await insertTransition(db, r);
  if (written && r.state !== 'queued') await refreshStays(db, r);
  // A merge settles the estimates shown for the PR (ETA truth).
  if (written && r.state === 'merged')
    await settleEtas(db, r.workspaceId, r.queueKey, r.prNumber, r.occurredAt);
  return written;
}

async function insertTransition(db: DbExecutor, r: PrTransitionRecord): Promise<boolean> {
  if (r.source !== 'readback')
    return (
      (await db.execute(
        `INSERT INTO queue_history (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT (workspace_id, queue_key, pr_number, state, occurred_at) DO NOTHING`,
        values(r),
      )) === 1
    );
  return (
    (await db.execute(
      `INSERT INTO queue_history (${COLUMNS})
       SELECT $1, $2, CAST($3 AS INTEGER), $4, CAST($5 AS BIGINT), $6, CAST($7 AS INTEGER), CAST($8 AS INTEGER),
         $9, $10, $11, $12, $13, $14, CAST($15 AS BIGINT), $16, $17
       WHERE NOT EXISTS (SELECT 1 FROM queue_history h WHERE h.workspace_id = $1 AND h.queue_key = $2
         AND h.pr_number = CAST($3 AS INTEGER) AND h.state = $4
         AND h.occurred_at BETWEEN CAST($5 AS BIGINT) - ${READBACK_SAME_MS} AND CAST($5 AS BIGINT) + ${READBACK_SAME_MS})
       ON CONFLICT (workspace_id, queue_key, pr_number, state, occurred_at) DO NOTHING`,
      values(r),
    )) === 1
  );
}

/** Keeps many transitions (recordTransition each); the number written. */
export async function recordTransitions(
  db: DbExecutor,
  records: readonly PrTransitionRecord[],
): Promise<number> {
  let written = 0;
  for (const r of records) if (await recordTransition(db, r)) written++;
  return written;
}

/**
 * Keeps a change of the queue's own state. A change equal to the state in force at that moment (the last
 * one before it) is not a change and is not kept. True when written.
 */
export async function recordQueueState(db: DbExecutor, r: QueueStateRecord): Promise<boolean> {
  const before = await db.query(
    `SELECT state FROM queue_state_history WHERE workspace_id = $1 AND queue_key = $2 AND occurred_at <= $3
     ORDER BY occurred_at DESC LIMIT 1`,
    [r.workspaceId, r.queueKey, r.occurredAt],
  );
  if (before[0]?.['state'] === r.state) return false;
  return (
    (await db.execute(
      `INSERT INTO queue_state_history (workspace_id, queue_key, state, occurred_at, source)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (workspace_id, queue_key, occurred_at) DO NOTHING`,
      [r.workspaceId, r.queueKey, r.state, r.occurredAt, r.source],
    )) === 1
  );
}

/** The queue-state changes in [from, to), with the one in force at `from` first (when there is one). */
export async function queueStatesBetween(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  from: number,
  to: number,
): Promise<QueueStateRecord[]> {
  const rows = await db.query(
    `SELECT * FROM (SELECT workspace_id, queue_key, state, occurred_at, source FROM queue_state_history
       WHERE workspace_id = $1 AND queue_key = $2 AND occurred_at < $3 ORDER BY occurred_at DESC LIMIT 1) AS s
     UNION ALL
     SELECT workspace_id, queue_key, state, occurred_at, source FROM queue_state_history
       WHERE workspace_id = $1 AND queue_key = $2 AND occurred_at >= $3 AND occurred_at < $4
     ORDER BY occurred_at`,
    [workspaceId, queueKey, from, to],
  );
  return rows.map((r) => ({
    workspaceId: String(r['workspace_id']),
    queueKey: String(r['queue_key']),
    state: String(r['state']) as QueueStateRecord['state'],
    occurredAt: Number(r['occurred_at']),
    source: String(r['source']) as QueueStateRecord['source'],
  }));
}

export function toTransitionRecord(r: Row): PrTransitionRecord {
  const opt = <T>(v: unknown, f: (x: unknown) => T): T | undefined =>
    v === null || v === undefined ? undefined : f(v);
  const rec: PrTransitionRecord = {
    workspaceId: String(r['workspace_id']),
    queueKey: String(r['queue_key']),
    prNumber: Number(r['pr_number']),
    state: String(r['state']) as HistoryState,
    occurredAt: Number(r['occurred_at']),
    source: String(r['source']) as PrTransitionRecord['source'],
    recordedAt: Number(r['recorded_at']),
  };
  const optional: Partial<PrTransitionRecord> = {
    headSha: opt(r['head_sha'], String),
    priority: opt(r['priority'], Number),
    noBatch: opt(r['no_batch'], (v) => Number(v) === 1),
    reasonCode: opt(r['reason_code'], String),
    failingChecks: opt(r['failing_checks'], (v) => parseChecks(String(v))),
    kickClass: opt(r['kick_class'], (v) => String(v) as KickClass),
    kickEvidence: opt(r['kick_evidence'], String),
    submittedBy: opt(r['submitted_by'], String),
    title: opt(r['title'], String),
    author: opt(r['author'], String),
  };
  for (const [k, v] of Object.entries(optional))
    if (v !== undefined) (rec as unknown as Record<string, unknown>)[k] = v;
  return rec;
}

/** failing_checks as stored (a JSON array of names); anything else reads as none. */
export function parseChecks(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Every transition the app knows of one PR in one queue, oldest first (same moment: in attempt order). */
export async function transitionsOfPr(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
): Promise<PrTransitionRecord[]> {
  const rows = await db.query(
    `SELECT ${COLUMNS} FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3
     ORDER BY occurred_at, CASE state WHEN 'submitted' THEN 1 WHEN 'queued' THEN 2 WHEN 'testing' THEN 3 ELSE 4 END`,
    [workspaceId, queueKey, prNumber],
  );
  return rows.map(toTransitionRecord);
}

/**
 * Sets the kick class and its evidence of one failed or cancelled transition (the kicks domain classes a
 * kick once it knows enough). True when the row exists.
 */
export async function setKickClass(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
  occurredAt: number,
  kickClass: KickClass,
  evidence: string,
): Promise<boolean> {
  return (
    (await db.execute(
      `UPDATE queue_history SET kick_class = $5, kick_evidence = $6
       WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3 AND occurred_at = $4
         AND state IN ('failed', 'cancelled')`,
      [workspaceId, queueKey, prNumber, occurredAt, kickClass, evidence],
    )) > 0
  );
}

/**
 * Sets who submitted a PR from Slack on its `submitted` row nearest `occurredAt` within READBACK_SAME_MS
 * (a Slack user id, or `app:autopilot`). True when a row was found.
 */
export async function setSubmittedBy(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
  occurredAt: number,
  submittedBy: string,
): Promise<boolean> {
  return (
    (await db.execute(
      `UPDATE queue_history SET submitted_by = $5
       WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3 AND state = 'submitted'
         AND occurred_at BETWEEN CAST($4 AS BIGINT) - ${READBACK_SAME_MS} AND CAST($4 AS BIGINT) + ${READBACK_SAME_MS}`,
      [workspaceId, queueKey, prNumber, occurredAt, submittedBy],
    )) > 0
  );
}

/**
 * A PR's attempts (migration 021): each of its rows belongs to the attempt that its first conclusion at or
 * after it (merged, failed, cancelled) ends, so an attempt holds the rows after the PR's previous conclusion
 * and up to its own; the attempts that end `merged` at or after `since`, as `queue_stays` rows, of the rows
 * that `where` picks. mergedAttemptsFrom is the same for one PR's rows in hand.
 */
const staysOf = (where: string, since: string) => `
  SELECT workspace_id, queue_key, pr_number, ends_at,
    MIN(CASE WHEN state = 'submitted' THEN occurred_at END),
    MAX(CASE WHEN state = 'testing' THEN occurred_at END)
  FROM (
    SELECT workspace_id, queue_key, pr_number, state, occurred_at,
      MIN(CASE WHEN state IN ('merged', 'failed', 'cancelled') THEN occurred_at END) OVER (
        PARTITION BY workspace_id, queue_key, pr_number ORDER BY occurred_at
        RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS ends_at
    FROM queue_history WHERE ${where} AND state IN ('submitted', 'testing', 'merged', 'failed', 'cancelled')
  ) AS attempt_rows
  WHERE ends_at >= ${since}
  GROUP BY workspace_id, queue_key, pr_number, ends_at
  HAVING MAX(CASE WHEN state = 'merged' AND occurred_at = ends_at THEN 1 ELSE 0 END) = 1`;

const STAY_COLUMNS = 'workspace_id, queue_key, pr_number, merged_at, entered_at, tested_at';

const CONCLUSIONS: ReadonlySet<string> = new Set(['merged', 'failed', 'cancelled']);

interface AttemptStay {
  mergedAt: number;
  enteredAt: number | null;
  testedAt: number | null;
}

/** staysOf over one PR's rows (state, time): its attempts that end merged at or after `since`. */
function mergedAttemptsFrom(
  rows: ReadonlyArray<{ state: string; at: number }>,
  since: number,
): AttemptStay[] {
  const ends = [...new Set(rows.filter((r) => CONCLUSIONS.has(r.state)).map((r) => r.at))].sort(
    (a, b) => a - b,
  );
  const stays: AttemptStay[] = [];
  let after = Number.NEGATIVE_INFINITY;
  for (const end of ends) {
    if (end >= since && rows.some((r) => r.state === 'merged' && r.at === end)) {
      const stay: AttemptStay = { mergedAt: end, enteredAt: null, testedAt: null };
      for (const r of rows) {
        if (r.at <= after || r.at > end) continue;
        if (r.state === 'submitted' && (stay.enteredAt === null || r.at < stay.enteredAt))
          stay.enteredAt = r.at;
        if (r.state === 'testing' && (stay.testedAt === null || r.at > stay.testedAt)) stay.testedAt = r.at;
      }
      stays.push(stay);
    }
    after = end;
  }
  return stays;
}

/**
 * The stay of a merge at $4 that is its PR's only conclusion (its first attempt, the usual merge): every
 * row of the PR up to the merge, in one statement. Writes nothing when the PR has another conclusion.
 */
const FIRST_STAY_SQL = `INSERT INTO queue_stays (${STAY_COLUMNS})
  SELECT $1, $2, CAST($3 AS INTEGER), CAST($4 AS BIGINT),
    MIN(CASE WHEN state = 'submitted' AND occurred_at <= CAST($4 AS BIGINT) THEN occurred_at END),
    MAX(CASE WHEN state = 'testing' AND occurred_at <= CAST($4 AS BIGINT) THEN occurred_at END)
  FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = CAST($3 AS INTEGER)
  HAVING COUNT(CASE WHEN state IN ('merged', 'failed', 'cancelled') THEN 1 END) = 1
  ON CONFLICT (workspace_id, queue_key, pr_number, merged_at)
    DO UPDATE SET entered_at = excluded.entered_at, tested_at = excluded.tested_at`;

/**
 * Keeps `queue_stays` true after a row of the PR was written at `at`: a row changes only the attempts that
 * end at or after it, so those are computed again from the PR's rows (a few, one range of the primary key;
 * in hand rather than by staysOf's window, which costs a webhook delivery's apply several times more) and
 * written over. Every merged row has its stay row (its entry unknown or not), so the attempts recomputed
 * are exactly the stay rows at or after `at`: nothing is left stale. A row with no merge of the PR at or
 * after it (a `submitted` or `testing` in the usual order) changes nothing and costs one primary-key probe.
 */
async function refreshStays(db: DbExecutor, r: PrTransitionRecord): Promise<void> {
  const pr = [r.workspaceId, r.queueKey, r.prNumber];
  if (r.state === 'merged' && (await db.execute(FIRST_STAY_SQL, [...pr, r.occurredAt])) === 1) return;
  if (r.state !== 'merged') {
    const later = await db.query(
      `SELECT 1 AS later FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3
         AND state = 'merged' AND occurred_at >= $4 LIMIT 1`,
      [...pr, r.occurredAt],
    );
    if (later.length === 0) return;
  }
  const rows = await db.query(
    'SELECT state, occurred_at FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3',
    pr,
  );
  const attempts = rows.map((row) => ({ state: String(row['state']), at: Number(row['occurred_at']) }));
  for (const stay of mergedAttemptsFrom(attempts, r.occurredAt))
    await db.execute(
      `INSERT INTO queue_stays (${STAY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (workspace_id, queue_key, pr_number, merged_at)
         DO UPDATE SET entered_at = excluded.entered_at, tested_at = excluded.tested_at`,
      [...pr, stay.mergedAt, stay.enteredAt, stay.testedAt],
    );
}

/**
 * The statement that fills an empty `queue_stays` from the whole of `queue_history`, for bulk loads that
 * write `queue_history` directly (the benchmark's).
 */
export const FILL_STAYS_SQL = `INSERT INTO queue_stays (${STAY_COLUMNS})
  ${staysOf('1 = 1', String(Number.MIN_SAFE_INTEGER))}`;

/**
 * The PRs merged in [from, to) whose whole stay the app knows (it has the attempt's `submitted`), oldest
 * merge first: one range of `queue_stays_window`, kept as transitions are recorded (refreshStays).
 */
export async function mergedStays(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  from: number,
  to: number,
): Promise<MergedStay[]> {
  const rows = await db.query(
    `SELECT pr_number, merged_at, entered_at, tested_at FROM queue_stays
     WHERE workspace_id = $1 AND queue_key = $2 AND merged_at >= $3 AND merged_at < $4 AND entered_at IS NOT NULL
     ORDER BY merged_at, pr_number`,
    [workspaceId, queueKey, from, to],
  );
  return rows.map((r) => {
    const stay: MergedStay = {
      prNumber: Number(r['pr_number']),
      enteredAt: Number(r['entered_at']),
      mergedAt: Number(r['merged_at']),
    };
    if (r['tested_at'] !== null && r['tested_at'] !== undefined)
      stay.testingMs = stay.mergedAt - Number(r['tested_at']);
    return stay;
  });
}

export interface FlakyCheckEvidence {
  check: string;
  /**
   * In the window: how many times the check failed this queue's PR on a head commit that this queue later
   * merged, or saw pass the check (a later failure of the same commit without that check), with the same
   * head commit.
   */
  failedThenPassed: number;
}

/**
 * Per check named, the failures in [since, now) on a head commit that later passed it here without a new
 * commit: the same PR, the same head_sha, and a later `merged`, or a later `failed` whose failing checks do
 * not include it. Failures without a known head commit do not count.
 */
export async function flakyCheckEvidence(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  checkNames: readonly string[],
  since: number,
): Promise<FlakyCheckEvidence[]> {
  const out = new Map(checkNames.map((c) => [c, 0]));
  if (out.size === 0) return [];
  const rows = await db.query(
    `SELECT f.pr_number, f.occurred_at, f.failing_checks,
       (SELECT COUNT(*) FROM queue_history m WHERE m.workspace_id = f.workspace_id AND m.queue_key = f.queue_key
         AND m.pr_number = f.pr_number AND m.state = 'merged' AND m.head_sha = f.head_sha
         AND m.occurred_at > f.occurred_at) AS merged_after,
       (SELECT COUNT(*) FROM queue_history l WHERE l.workspace_id = f.workspace_id AND l.queue_key = f.queue_key
         AND l.pr_number = f.pr_number AND l.state = 'failed' AND l.head_sha = f.head_sha
         AND l.occurred_at > f.occurred_at) AS later_failures
     FROM queue_history f
     WHERE f.workspace_id = $1 AND f.queue_key = $2 AND f.state = 'failed' AND f.occurred_at >= $3
       AND f.head_sha IS NOT NULL AND f.failing_checks IS NOT NULL`,
    [workspaceId, queueKey, since],
  );
  // Later failures of the same commit: read their checks only for the rows that have some.
  for (const r of rows) {
    const failed = parseChecks(String(r['failing_checks'])).filter((c) => out.has(c));
    if (failed.length === 0) continue;
    let passedLater = new Set<string>();
    if (Number(r['merged_after']) > 0) passedLater = new Set(failed);
    else if (Number(r['later_failures']) > 0) {
      const later = await db.query(
        `SELECT failing_checks FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3
           AND state = 'failed' AND occurred_at > $4
           AND head_sha = (SELECT head_sha FROM queue_history WHERE workspace_id = $1 AND queue_key = $2
             AND pr_number = $3 AND state = 'failed' AND occurred_at = $4)`,
        [workspaceId, queueKey, Number(r['pr_number']), Number(r['occurred_at'])],
      );
      for (const c of failed)
        if (later.some((l) => !parseChecks(String(l['failing_checks'] ?? '[]')).includes(c)))
          passedLater.add(c);
    }
    for (const c of passedLater) out.set(c, (out.get(c) ?? 0) + 1);
  }
  return [...out].map(([check, failedThenPassed]) => ({ check, failedThenPassed }));
}

/** Keeps an ETA the app showed (the same estimate shown again keeps its first showing). */
export async function recordEtaShown(db: DbExecutor, e: EtaEstimateRecord): Promise<boolean> {
  return (
    (await db.execute(
      `INSERT INTO eta_estimates (workspace_id, queue_key, pr_number, shown_at, estimated_at, source, surface)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id, queue_key, pr_number, estimated_at, source) DO NOTHING`,
      [e.workspaceId, e.queueKey, e.prNumber, e.shownAt, e.estimatedAt, e.source, e.surface],
    )) === 1
  );
}

/**
 * The PR merged at `mergedAt`: every estimate shown for it before then and not yet settled gets its error.
 * The number of estimates settled.
 */
export function settleEtas(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
  mergedAt: number,
): Promise<number> {
  return db.execute(
    `UPDATE eta_estimates SET merged_at = $4, error_ms = $4 - estimated_at
     WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3 AND merged_at IS NULL AND shown_at <= $4`,
    [workspaceId, queueKey, prNumber, mergedAt],
  );
}

/** The estimates of one PR, oldest showing first. */
export async function etasOfPr(
  db: DbExecutor,
  workspaceId: string,
  queueKey: string,
  prNumber: number,
): Promise<EtaEstimateRecord[]> {
  const rows = await db.query(
    `SELECT * FROM eta_estimates WHERE workspace_id = $1 AND queue_key = $2 AND pr_number = $3 ORDER BY shown_at`,
    [workspaceId, queueKey, prNumber],
  );
  return rows.map((r) => {
    const e: EtaEstimateRecord = {
      workspaceId: String(r['workspace_id']),
      queueKey: String(r['queue_key']),
      prNumber: Number(r['pr_number']),
      shownAt: Number(r['shown_at']),
      estimatedAt: Number(r['estimated_at']),
      source: String(r['source']) as EtaEstimateRecord['source'],
      surface: String(r['surface']),
    };
    if (r['merged_at'] !== null) e.mergedAt = Number(r['merged_at']);
    if (r['error_ms'] !== null) e.errorMs = Number(r['error_ms']);
    return e;
  });
}

/**
 * Each distinct value of the leading `columns` of one of `table`'s indexes, one index probe apiece (a loose
 * scan), ascending.
 */
async function distinctKeys(db: DbExecutor, table: string, columns: readonly string[]): Promise<Row[]> {
  const list = columns.join(', ');
  const keys: Row[] = [];
  let after: SqlValue[] = columns.map(() => '');
  for (;;) {
    const [next] = await db.query(
      `SELECT ${list} FROM ${table} WHERE (${list}) > (${columns.map((_, i) => `$${i + 1}`).join(', ')})
       ORDER BY ${list} LIMIT 1`,
      after,
    );
    if (!next) return keys;
    keys.push(next);
    after = columns.map((c) => next[c] as SqlValue);
  }
}

/**
 * Forgets history that happened before `before` (HISTORY_DAYS); the number of rows removed. No index leads
 * with the time (each would be one more page for every transition recorded, migration 023): the old rows are
 * cut from each queue's range of `queue_history_window` per state, and of `queue_stays`'s keys.
 */
export async function pruneHistory(db: DbExecutor, before: number): Promise<number> {
  let n = 0;
  for (const k of await distinctKeys(db, 'queue_history', ['workspace_id', 'queue_key', 'state']))
    n += await db.execute(
      `DELETE FROM queue_history WHERE workspace_id = $1 AND queue_key = $2 AND state = $3 AND occurred_at < $4`,
      [k['workspace_id'] as string, k['queue_key'] as string, k['state'] as string, before],
    );
  // A stay that began before the cut is known from its rows that remain, as mergedStays always read them.
  for (const k of await distinctKeys(db, 'queue_stays', ['workspace_id', 'queue_key']))
    await db.execute(
      'DELETE FROM queue_stays WHERE workspace_id = $1 AND queue_key = $2 AND merged_at < $3',
      [k['workspace_id'] as string, k['queue_key'] as string, before],
    );
  await db.execute(
    `UPDATE queue_stays SET entered_at = (SELECT MIN(h.occurred_at) FROM queue_history h
       WHERE h.workspace_id = queue_stays.workspace_id AND h.queue_key = queue_stays.queue_key
         AND h.pr_number = queue_stays.pr_number AND h.state = 'submitted' AND h.occurred_at >= $1
         AND h.occurred_at <= queue_stays.merged_at)
     WHERE entered_at < $1`,
    [before],
  );
  await db.execute('UPDATE queue_stays SET tested_at = NULL WHERE tested_at < $1', [before]);
  // The last state change before the cut stays: it is the state in force when the kept history begins.
  n += await db.execute(
    `DELETE FROM queue_state_history WHERE occurred_at < $1 AND occurred_at < (SELECT MAX(k.occurred_at)
       FROM queue_state_history k WHERE k.workspace_id = queue_state_history.workspace_id
         AND k.queue_key = queue_state_history.queue_key AND k.occurred_at < $1)`,
    [before],
  );
  n += await db.execute('DELETE FROM eta_estimates WHERE shown_at < $1', [before]);
  return n;
}

export function isHistoryState(s: string): s is HistoryState {
  return (HISTORY_STATES as readonly string[]).includes(s);
}
