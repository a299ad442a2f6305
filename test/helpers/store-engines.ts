/**
 * The two engines a store-level test runs against: a fresh SQLite file, and (where PostgreSQL tests run) a
 * fresh PostgreSQL database per open. Each entry opens a migrated store and says how to drop it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { createPgTestDatabase } from './pg.ts';

export type StoreEngine = [string, () => Promise<{ store: Store; drop(): Promise<void> }>];

export function storeEngines(pgEnabled: boolean, tmpPrefix: string): StoreEngine[] {
  const engines: StoreEngine[] = [
    [
      'SQLite',
      async () => ({
        store: await openStore({
          database: { kind: 'sqlite', path: join(mkdtempSync(join(tmpdir(), tmpPrefix)), 'mq.db') },
          encryptionKeys: [],
        }),
        drop: async () => {},
      }),
    ],
  ];
  if (pgEnabled)
    engines.push([
      'PostgreSQL',
      async () => {
        const db = await createPgTestDatabase();
        return {
          store: await openStore({ database: { kind: 'postgres', url: db.url }, encryptionKeys: [] }),
          drop: () => db.drop(),
        };
      },
    ]);
  return engines;
}
