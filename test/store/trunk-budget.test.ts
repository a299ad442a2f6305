/**
 * The shared Trunk budget's ledger (migration 011) on both engines: claims are atomic, never overlap, and
 * stop at `latest`; on PostgreSQL, three connections claiming at once get disjoint start times.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.ts';
import { trunkBudgetClaims } from '../../src/store/trunk-budget.ts';
import type { Store } from '../../src/store/types.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';

const pgEnabled = await pgTestsEnabled('trunk budget ledger on PostgreSQL');
const dir = mkdtempSync(join(tmpdir(), 'mq-budget-'));
const dbs: PgTestDatabase[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dbs) await d.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function sqlite(): Promise<Store[]> {
  const s = await openStore({ database: { kind: 'sqlite', path: join(dir, 'a.db') }, encryptionKeys: [] });
  stores.push(s);
  return [s];
}

async function postgres(): Promise<Store[]> {
  const d = await createPgTestDatabase();
  dbs.push(d);
  const out: Store[] = [];
  for (let i = 0; i < 3; i++) {
    const s = await openStore({ database: { kind: 'postgres', url: d.url }, encryptionKeys: [] });
    stores.push(s);
    out.push(s);
  }
  return out;
}

for (const [engine, open, enabled] of [
  ['SQLite', sqlite, true],
  ['PostgreSQL', postgres, pgEnabled],
] as const) {
  describe.skipIf(!enabled)(`Trunk budget ledger on ${engine}`, () => {
    it('hands out start times one after the other, from notBefore, and stops at latest', async () => {
      const [store] = await open();
      const ledger = trunkBudgetClaims(store!.db);
      const t = 1_700_000_000_000;
      expect(await ledger.claim('Acme', 3, 105, t, t + 1_000)).toBe(t);
      // The next claim starts where the last ended, whatever notBefore says earlier.
      expect(await ledger.claim('acme', 2, 105, t + 10, t + 1_000)).toBe(t + 315);
      // Another organization has its own row.
      expect(await ledger.claim('globex', 1, 105, t, t)).toBe(t);
      // Nothing claimed when the next free start is past `latest`.
      expect(await ledger.claim('acme', 1, 105, t, t + 500)).toBeUndefined();
      expect(await ledger.claim('acme', 1, 105, t, t + 525)).toBe(t + 525);
      // After a quiet spell, claims start from now, not from the past.
      expect(await ledger.claim('acme', 1, 105, t + 60_000, t + 61_000)).toBe(t + 60_000);
    });

    it('claims made at once by every connection never overlap', async () => {
      const all = await open();
      const t = 1_800_000_000_000;
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          trunkBudgetClaims(all[i % all.length]!.db).claim('acme', 3, 105, t, t + 60_000),
        ),
      );
      const firsts = claims.map((c) => c as number).sort((a, b) => a - b);
      expect(firsts).toEqual(Array.from({ length: 30 }, (_, i) => t + i * 315));
    });
  });
}
