import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DatabaseOption, type EngineFixture, storeContract } from './contract.ts';

async function sqliteFixture(): Promise<EngineFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'mq-store-'));
  let n = 0;
  return {
    dialect: 'sqlite',
    // A nested, not-yet-existing directory: the store creates it, as it does for ./data on first start.
    freshDatabase: async () => ({ kind: 'sqlite', path: join(dir, `db${++n}`, 'sub', 'mergequeue.db') }),
    dump: async (db: DatabaseOption) => {
      if (db.kind !== 'sqlite') throw new Error('not sqlite');
      return ['', '-wal', '-shm', '-journal']
        .map((suffix) => db.path + suffix)
        .filter((p) => existsSync(p))
        .map((p) => readFileSync(p).toString('latin1'))
        .join('\n');
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('store on SQLite (node:sqlite)', () => {
  storeContract(sqliteFixture);
});

describe('SQLite adapter', () => {
  it('fails clearly instead of hanging when a transaction callback uses the Db rather than its tx', async () => {
    const { openSqliteDb } = await import('../../src/store/db-sqlite.ts');
    const dir = mkdtempSync(join(tmpdir(), 'mq-sqlite-'));
    const db = openSqliteDb(join(dir, 'x.db'));
    try {
      await db.execute('CREATE TABLE t (v TEXT)');
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO t (v) VALUES ($1)', ['rolled back']);
          await db.query('SELECT v FROM t');
        }),
      ).rejects.toThrow(/run statements on the tx argument/);
      expect(await db.query('SELECT v FROM t')).toEqual([]);
      await expect(db.query('SELECT nope FROM t')).rejects.toThrow(/no such column/);
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
