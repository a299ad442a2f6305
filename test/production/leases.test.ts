/**
 * The lease migration, finished (issue 27, ADR 0008): one lease table read and written only by
 * store/leases.ts, one lease service handed out by the store, no `lease_until` (nor the autopilot's
 * `claimed_until`) left but in the migrations that shipped it and the one that drops it (018, 022), and claim
 * rows on a lease written once (store/claim-rows.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const files = sourceFiles(join(ROOT, 'src')).map((file) => ({
  path: relative(ROOT, file).split('\\').join('/'),
  text: readFileSync(file, 'utf8'),
}));
const where = (re: RegExp) => files.filter((f) => re.test(f.text)).map((f) => f.path);
const MIGRATIONS = /^src\/store\/migrations\//;

describe('leases, finished', () => {
  it('no SQL on the leases table outside store/leases.ts (and the migrations)', () => {
    const sql = /\b(FROM|JOIN|INTO|UPDATE|TABLE)\s+leases\b/;
    expect(where(sql).filter((p) => !MIGRATIONS.test(p))).toEqual(['src/store/leases.ts']);
  });

  it('lease_until only in the migrations that shipped it and 018, which drops it', () => {
    expect(where(/lease_until/).filter((p) => !MIGRATIONS.test(p))).toEqual([]);
    expect(where(/lease_until/).filter((p) => MIGRATIONS.test(p))).toEqual([
      'src/store/migrations/002_digests.ts',
      'src/store/migrations/006_watch.ts',
      'src/store/migrations/007_freeze.ts',
      'src/store/migrations/008_digest_collections.ts',
      'src/store/migrations/009_leases.ts',
      'src/store/migrations/018_leases_finished.ts',
    ]);
  });

  it('claimed_until only in the migrations that shipped it (019) and 022, which drops it', () => {
    expect(where(/claimed_until/)).toEqual([
      'src/store/migrations/019_autopilot.ts',
      'src/store/migrations/022_autopilot_leases.ts',
    ]);
  });

  it('the store builds the one lease service; everyone else is handed store.leases', () => {
    expect(where(/new SqlLeases\(/)).toEqual(['src/store/sql-store.ts']);
  });

  it('claim rows on a lease are written once: digests, collections, freeze phases, deliveries and the autopilot use them', () => {
    expect(where(/new ClaimRows\(/).sort()).toEqual([
      'src/digest/claims.ts',
      'src/digest/shared-collection.ts',
      'src/freeze/claims.ts',
      'src/kicks/repository.ts',
      'src/watch/deliveries.ts',
    ]);
  });

  it('lease heartbeats on a timer go through keepRenewed (store/leases.ts)', () => {
    expect(
      where(/\bsetInterval\(/).filter((p) => /^src\/(digest|freeze|watch|webhooks|flaky)\//.test(p)),
    ).toEqual([]);
  });
});
