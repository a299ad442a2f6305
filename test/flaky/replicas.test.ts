/**
 * A flaky-test delivery reaches each watching channel once across replicas: three sinks (as three replicas
 * build them, each its own store connection and Slack outbox) apply the same delivery at once, on SQLite and
 * on PostgreSQL; a post Slack did not take for now makes the delivery throw (the inbox retries it) and the
 * retry posts it once; a final refusal is not retried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWatchRepository } from '../../src/flaky/index.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { createTestCaseSink, type TestCaseSink } from '../../src/workers/test-case-sink.ts';
import { startWorld, usePostgresWorld, type World, type WriteFaults } from '../helpers/world.ts';
import { delivery, statusChanged } from './helpers.ts';

const WS = 'T0DEFAULT';
const pg = await usePostgresWorld('flaky-test feed replicas (PostgreSQL)', { stores: 3 });
let sqliteWorld: World;
beforeAll(async () => {
  sqliteWorld = await startWorld({ stores: 3 });
});
afterAll(async () => sqliteWorld?.close());

async function sinks(world: World, faults?: WriteFaults): Promise<TestCaseSink[]> {
  const app = await world.app();
  return world.stores.map((store, i) =>
    createTestCaseSink({
      store,
      workspaces: app.workspaces,
      outbox: world.outbox(faults ? { faults } : {}),
      appUrl: 'https://app.trunk.example',
      logger: silentLogger(),
      now: () => Date.now(),
      replicaId: `replica-${i}`,
    }),
  );
}

const posts = (world: World, channel: string) =>
  world.slack.channelMessages(channel).filter((m) => m.via === 'api' && !m.threadTs);

for (const [engine, worldOf, enabled] of [
  ['SQLite', () => sqliteWorld, true],
  ['PostgreSQL', () => pg.world, pg.enabled],
] as const) {
  describe.runIf(enabled)(`flaky-test feed replicas on ${engine}`, () => {
    it('three replicas applying one delivery at once post it once per channel', async () => {
      const world = worldOf();
      const watches = new TestWatchRepository(world.store.db);
      for (const channelId of ['C0REPA0001', 'C0REPB0001'])
        await watches.add({
          workspaceId: WS,
          channelId,
          owner: '@acme/payments',
          createdBy: 'U1',
          createdAt: 1,
        });
      const all = await sinks(world);
      const d = delivery(statusChanged({ id: `t-rep-${engine}` }, 'HEALTHY', 'FLAKY'), { workspaceId: WS });
      const outcomes = await Promise.allSettled(all.map((s) => s.apply(d)));
      // A replica that found another one posting answers "not yet" (the inbox retries it): never a second post.
      for (const o of outcomes)
        if (o.status === 'rejected') expect(String(o.reason)).toContain('retried later');
      await Promise.allSettled(all.map((s) => s.apply(d)));
      expect(posts(world, 'C0REPA0001')).toHaveLength(1);
      expect(posts(world, 'C0REPB0001')).toHaveLength(1);
    });

    it('a post Slack did not take is retried with the delivery and posted once; a final refusal is not', async () => {
      const world = worldOf();
      const watches = new TestWatchRepository(world.store.db);
      await watches.add({
        workspaceId: WS,
        channelId: 'C0RETRY001',
        owner: '@acme/retry',
        createdBy: 'U1',
        createdAt: 1,
      });
      await watches.add({
        workspaceId: WS,
        channelId: 'C0FINAL001',
        owner: '@acme/retry',
        createdBy: 'U1',
        createdAt: 1,
      });
      const faults: WriteFaults = new Map([
        ['channel:C0RETRY001', { times: 1 }],
        ['channel:C0FINAL001', { times: 5, final: true }],
      ]);
      const [sink] = await sinks(world, faults);
      const d = delivery(
        statusChanged({ id: `t-retry-${engine}`, codeowners: ['@acme/retry'] }, 'FLAKY', 'BROKEN'),
        {
          workspaceId: WS,
        },
      );
      await expect(sink!.apply(d)).rejects.toThrow(/retried later/);
      expect(posts(world, 'C0RETRY001')).toHaveLength(0);
      expect(await sink!.apply(d)).toBe('applied');
      expect(await sink!.apply(d)).toBe('applied');
      expect(posts(world, 'C0RETRY001')).toHaveLength(1);
      expect(posts(world, 'C0FINAL001')).toHaveLength(0);
      expect(faults.get('channel:C0FINAL001')!.times).toBe(4);
    });
  });
}
