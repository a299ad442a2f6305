/**
 * Bulk history for the stats benchmark, written with one INSERT … SELECT per engine (never through the app):
 * `queues` busy queues over `days` days, `prsPerDay` PRs a day each. Every PR is submitted, queued, tested
 * and merged; one in four fails its first test run on e2e first and goes round again on the same commit:
 * about five transitions a PR (50 queues × 90 days × 200 PRs ≈ 4.5 million rows).
 */
import pg from 'pg';
import { FILL_STAYS_SQL } from '../src/history/repository.ts';
import type { Db } from '../src/store/types.ts';

/** Runs one bulk statement: on PostgreSQL through its own connection, without the store's statement timeout. */
export async function bulk(db: Db, url: string | undefined, sql: string): Promise<number> {
  if (db.dialect !== 'postgres' || !url) return db.execute(sql);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET statement_timeout = 0');
    return (await client.query(sql)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}

export interface HistoryDataShape {
  workspaceId: string;
  queues: number;
  days: number;
  prsPerDay: number;
  /** The history ends here (epoch ms). */
  now: number;
}

export const queueKeyOf = (q: number) => `github.com/bench/q${q}:main`;

const MIN = 60_000;

/**
 * Steps of a PR: (step, state, offset in minutes from entering, whether only a failing PR has it). `w` is
 * its wait before testing, `t` its test run, both in minutes; a failing PR tests twice.
 */
const STEPS = [
  [0, 'submitted', '0', 0],
  [1, 'queued', '1', 0],
  [2, 'testing', 'w', 0],
  [3, 'merged', 'w + t', 2],
  [4, 'failed', 'w + t', 1],
  [5, 'submitted', 'w + t + 10', 1],
  [6, 'queued', 'w + t + 11', 1],
  [7, 'testing', 'w + t + 12', 1],
  [8, 'merged', 'w + t + 12 + t', 1],
] as const;

/** The secondary indexes of queue_history (migrations 017, 023), dropped for the load and built again after it (faster). */
const INDEXES = [
  ['queue_history_window', 'queue_history (workspace_id, queue_key, state, occurred_at)'],
] as const;

/** Writes the rows; resolves to how many. */
export async function writeHistoryData(db: Db, s: HistoryDataShape, pgUrl?: string): Promise<number> {
  for (const [name] of INDEXES) await bulk(db, pgUrl, `DROP INDEX ${name}`);
  const n = await insertRows(db, s, pgUrl);
  for (const [name, on] of INDEXES) await bulk(db, pgUrl, `CREATE INDEX ${name} ON ${on}`);
  // The stays (migration 021) that recording keeps, computed once for the whole load.
  await bulk(db, pgUrl, FILL_STAYS_SQL);
  await bulk(db, pgUrl, 'ANALYZE queue_history');
  await bulk(db, pgUrl, 'ANALYZE queue_stays');
  return n;
}

async function insertRows(db: Db, s: HistoryDataShape, pgUrl?: string): Promise<number> {
  const total = s.queues * s.days * s.prsPerDay;
  const start = s.now - s.days * 1440 * MIN;
  const spacing = (s.days * 1440 * MIN) / (s.days * s.prsPerDay);
  // 0: every PR; 1: failing PRs only; 2: passing PRs only.
  const steps = STEPS.map(([k, state, , only]) => `(${k}, '${state}', ${only})`).join(', ');
  const offsetSql = `CASE st.k ${STEPS.map(([k, , off]) => `WHEN ${k} THEN ${off.replaceAll('w', '(2 + (p.i * 104729) % 40)').replaceAll('t', '(8 + (p.i * 1299709) % 30)')}`).join(' ')} END`;
  const cols =
    'workspace_id, queue_key, pr_number, state, occurred_at, head_sha, priority, no_batch, reason_code, failing_checks, source, recorded_at, title, author';
  // PR i is the (i mod perQueue)-th of queue i div perQueue: rows arrive in primary-key order, queue by queue.
  const perQueue = s.days * s.prsPerDay;
  const select = (numbers: string, queueKey: string, bigint: (x: string) => string) => `
    INSERT INTO queue_history (${cols})
    SELECT '${s.workspaceId}', ${queueKey}, p.i % ${perQueue}, st.state,
      ${bigint(`${start} + (p.i % ${perQueue}) * ${Math.floor(spacing)} + (p.i * 7919) % ${Math.floor(spacing)} + (${offsetSql}) * ${MIN}`)},
      'sha' || p.i, 100, 0,
      CASE st.state WHEN 'failed' THEN 'TEST_RUN_REQUIRED_STATUS_FAILED' WHEN 'merged' THEN 'MERGE_GRAPH_MERGE' ELSE NULL END,
      CASE st.state WHEN 'failed' THEN '["e2e"]' ELSE NULL END,
      'readback', ${s.now}, 'Bench PR', 'octocat'
    FROM ${numbers} CROSS JOIN steps AS st
    WHERE st.who = 0 OR (st.who = 1 AND p.i % 4 = 0) OR (st.who = 2 AND p.i % 4 <> 0)`;
  const stepsCte = `steps(k, state, who) AS (VALUES ${steps})`;
  if (db.dialect === 'postgres')
    return bulk(
      db,
      pgUrl,
      `WITH ${stepsCte} ` +
        select(
          `generate_series(0::bigint, ${total - 1}) AS p(i)`,
          `'github.com/bench/q' || (p.i / ${perQueue}) || ':main'`,
          (x) => `(${x})::bigint`,
        ),
    );
  return bulk(
    db,
    pgUrl,
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${total - 1}), ${stepsCte}
     ${select('n AS p', `'github.com/bench/q' || (p.i / ${perQueue}) || ':main'`, (x) => x)}`,
  );
}
