import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';
import { type DatabaseOption, type EngineFixture, storeContract } from './contract.ts';

const enabled = await pgTestsEnabled('store on PostgreSQL');

async function postgresFixture(): Promise<EngineFixture> {
  const created: PgTestDatabase[] = [];
  return {
    dialect: 'postgres',
    freshDatabase: async () => {
      const db = await createPgTestDatabase();
      created.push(db);
      return { kind: 'postgres', url: db.url };
    },
    // Every row of every table, all columns rendered as text.
    dump: async (db: DatabaseOption) => {
      if (db.kind !== 'postgres') throw new Error('not postgres');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const tables = await client.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
        );
        const parts: string[] = [];
        for (const { table_name } of tables.rows) {
          const rows = await client.query<{ r: string }>(`SELECT t::text AS r FROM "${table_name}" t`);
          parts.push(`${table_name}:`, ...rows.rows.map((x) => x.r));
        }
        return parts.join('\n');
      } finally {
        await client.end();
      }
    },
    cleanup: async () => {
      for (const db of created) await db.drop();
    },
  };
}

describe.skipIf(!enabled)('store on PostgreSQL (pg)', () => {
  storeContract(postgresFixture);
});

describe.skipIf(!enabled)('PostgreSQL adapter', () => {
  it('parses BIGINT as numbers on its own pool only, leaving pg defaults alone', async () => {
    const { openPostgresDb } = await import('../../src/store/db-postgres.ts');
    const db = await createPgTestDatabase();
    const adapter = openPostgresDb(db.url);
    try {
      expect(await adapter.query('SELECT 9007199254740991::bigint AS n')).toEqual([{ n: 9007199254740991 }]);
      await expect(adapter.query('SELECT 9007199254740993::bigint AS n')).rejects.toThrow(/safe range/);
      const other = new pg.Client({ connectionString: db.url });
      await other.connect();
      try {
        expect((await other.query('SELECT 5::bigint AS n')).rows).toEqual([{ n: '5' }]);
      } finally {
        await other.end();
      }
    } finally {
      await adapter.close();
      await db.drop();
    }
  });
});

describe('opening an unreachable database', () => {
  it('says which database (without credentials) and why', async () => {
    const { openStore, StoreUnavailableError } = await import('../../src/store/open.ts');
    const err = await openStore({
      database: { kind: 'postgres', url: 'postgres://mq:hunter2-pw@127.0.0.1:1/mergequeue' },
      encryptionKeys: [],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(
      /^Cannot open the PostgreSQL database 127\.0\.0\.1:1\/mergequeue \(DATABASE_URL\): /,
    );
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect((err as Error).message).not.toContain('hunter2');
  });
});
