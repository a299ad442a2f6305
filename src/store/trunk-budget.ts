/**
 * The ledger of the Trunk request budget shared by replicas on PostgreSQL (src/trunk/budget.ts explains the
 * rule). One row per organization holds the next start time not yet claimed; a claim moves it forward by
 * `count` starts in one atomic statement, so two replicas never get the same start time.
 */
import type { TrunkBudgetLedger } from '../trunk/budget.ts';
import type { Db } from './types.ts';

export function trunkBudgetClaims(db: Db): TrunkBudgetLedger {
  return {
    async claim(org, count, spacingMs, notBefore, latest) {
      if (!org || !Number.isInteger(count) || count < 1 || !Number.isInteger(spacingMs) || spacingMs < 1)
        throw new RangeError('trunk budget claim: org, a positive count and spacing are needed');
      const span = count * spacingMs;
      // Inserted, or moved on from max(next free, notBefore), unless the next free start is past `latest`.
      const rows = await db.query<{ first: number | string }>(
        `INSERT INTO trunk_budget (org, next_at) VALUES ($1, CAST($2 AS BIGINT) + CAST($3 AS BIGINT))
         ON CONFLICT (org) DO UPDATE SET next_at =
           (CASE WHEN trunk_budget.next_at > CAST($2 AS BIGINT) THEN trunk_budget.next_at ELSE CAST($2 AS BIGINT) END)
           + CAST($3 AS BIGINT)
         WHERE trunk_budget.next_at <= CAST($4 AS BIGINT)
         RETURNING next_at - CAST($3 AS BIGINT) AS first`,
        [org.toLowerCase(), Math.round(notBefore), span, Math.round(latest)],
      );
      const first = rows[0]?.first;
      return first === undefined ? undefined : Number(first);
    },
  };
}
