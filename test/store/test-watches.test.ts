/**
 * The flaky-test feeds' tables (migration 014) on both engines, through the domain's repositories: a channel's
 * watches (one per repository and owner, compared ignoring case), which watches hear about a test, removal,
 * the last message per (channel, test) with its override count as a fence, and deleteWorkspace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FeedMessageRepository, type TestCard, TestWatchRepository } from '../../src/flaky/index.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';

const pgEnabled = await pgTestsEnabled('test watches on PostgreSQL');
const dir = mkdtempSync(join(tmpdir(), 'mq-test-watches-'));
const dbs: PgTestDatabase[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dbs) await d.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function sqlite(): Promise<Store> {
  const s = await openStore({ database: { kind: 'sqlite', path: join(dir, 'a.db') }, encryptionKeys: [] });
  stores.push(s);
  return s;
}

async function postgres(): Promise<Store> {
  const d = await createPgTestDatabase();
  dbs.push(d);
  const s = await openStore({ database: { kind: 'postgres', url: d.url }, encryptionKeys: [] });
  stores.push(s);
  return s;
}

const card = (status: string): TestCard => ({
  test: { id: 'tc-1', name: 'charges card', codeowners: ['@acme/payments'] },
  newStatus: status,
  mentions: {},
  v2: true,
  at: 1,
});

for (const [engine, open, enabled] of [
  ['SQLite', sqlite, true],
  ['PostgreSQL', postgres, pgEnabled],
] as const) {
  describe.runIf(enabled)(`test watches on ${engine}`, () => {
    it('keeps one watch per channel, repository and owner, and finds who hears about a test', async () => {
      const store = await open();
      const watches = new TestWatchRepository(store.db);
      const base = { workspaceId: 'T1', createdBy: 'U1', createdAt: 1 };
      const a = await watches.add({
        ...base,
        channelId: 'C1',
        repo: 'acme/widgets',
        owner: '@acme/payments',
      });
      expect(a.created).toBe(true);
      const again = await watches.add({
        ...base,
        channelId: 'C1',
        repo: 'ACME/Widgets',
        owner: '@ACME/payments',
      });
      expect(again).toEqual({ watch: a.watch, created: false });
      await watches.add({ ...base, channelId: 'C2', owner: 'web' });
      await watches.add({ ...base, channelId: 'C3', repo: 'acme/other' });
      await watches.add({ ...base, workspaceId: 'T2', channelId: 'C9' });
      const test = { id: 'x', codeowners: ['@acme/payments'] };
      expect((await watches.matching('T1', test, 'acme/widgets')).map((w) => w.channelId)).toEqual(['C1']);
      expect(
        (await watches.matching('T1', { id: 'y', codeowners: ['@acme/web'] }, 'acme/other'))
          .map((w) => w.channelId)
          .sort(),
      ).toEqual(['C2', 'C3']);
      expect(await watches.matching('T1', test, undefined)).toEqual([]);
      // A repository typed with its host matches the payload's owner/name.
      await watches.add({ ...base, channelId: 'C4', repo: 'gitlab.com/acme/lab' });
      expect(
        (await watches.matching('T1', { id: 'z', codeowners: [] }, 'acme/lab')).map((w) => w.channelId),
      ).toEqual(['C4']);
      expect((await watches.remove('T1', 'C1', 'acme/widgets')).map((w) => w.id)).toEqual([a.watch.id]);
      expect(await watches.listChannel('T1', 'C1')).toEqual([]);
      expect(await watches.remove('T1', 'C1')).toEqual([]);
      await store.deleteWorkspace('T1');
      expect(await watches.listWorkspace('T1')).toEqual([]);
      expect(await watches.listWorkspace('T2')).toHaveLength(1);
    });

    it('remembers the last message per channel and test, fenced by its override count', async () => {
      const store = await open();
      const messages = new FeedMessageRepository(store.db);
      await messages.record(
        { workspaceId: 'T5', channelId: 'C1', testId: 'tc-1', ts: '1.1', statusAt: 10, card: card('FLAKY') },
        1,
      );
      await messages.record(
        { workspaceId: 'T5', channelId: 'C1', testId: 'tc-1', ts: '2.2', statusAt: 20, card: card('BROKEN') },
        2,
      );
      const m = (await messages.get('T5', 'C1', 'tc-1'))!;
      expect([m.ts, m.statusAt, m.overrideSeq, m.card.newStatus]).toEqual(['2.2', 20, 0, 'BROKEN']);
      const changed = { ...m.card, override: { mode: 'alwaysQuarantine' as const, by: 'U1', at: 3 } };
      expect(await messages.update({ ...m, card: changed }, 3, { override: true })).toBe(true);
      // Read before that change: refused.
      expect(await messages.update({ ...m, card: m.card }, 4, { override: true })).toBe(false);
      const after = (await messages.get('T5', 'C1', 'tc-1'))!;
      expect([after.overrideSeq, after.card.override?.mode]).toEqual([1, 'alwaysQuarantine']);
      await store.deleteWorkspace('T5');
      expect(await messages.get('T5', 'C1', 'tc-1')).toBeUndefined();
    });
  });
}
