/**
 * The inbox, its drainer and the shared transition record on both store engines (SQLite file, PostgreSQL):
 * a delivery id is kept once; two replicas draining the same inbox apply each delivery once, in payload
 * order; a webhook transition is new, a duplicate or stale; a poll's transition is skipped when a webhook
 * delivered it since the previous poll.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/log.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import {
  pruneTransitions,
  recordPolledTransition,
  recordWebhookTransition,
} from '../../src/watch/transitions.ts';
import { InboxDrainer } from '../../src/webhooks/drainer.ts';
import { InboxRepository, KEEP_DELIVERIES_MS } from '../../src/webhooks/inbox.ts';
import type { WebhookDelivery, WebhookSink } from '../../src/webhooks/ports.ts';
import { usePostgres } from '../helpers/world.ts';

const pg = await usePostgres('webhook inbox (PostgreSQL)');

function suite(name: string, open: () => Promise<Store[]>) {
  describe(name, () => {
    let stores: Store[] = [];
    let n = 0;
    beforeAll(async () => {
      stores = await open();
    }, 60_000);
    afterAll(async () => {
      for (const s of stores) await s.close();
    });
    const ws = () => `TWH${++n}`;
    const delivery = (workspaceId: string, id: string, occurredAt: number): WebhookDelivery => ({
      deliveryId: id,
      workspaceId,
      type: 'pull_request.testing',
      occurredAt,
      receivedAt: 1_000,
      payload: { id },
    });

    it('keeps a delivery id once, lists waiting ones in payload order, prunes after 72 h', async () => {
      const inbox = new InboxRepository(stores[0]!.db);
      const w = ws();
      expect(await inbox.record(delivery(w, `${w}-b`, 20))).toBe(true);
      expect(await inbox.record(delivery(w, `${w}-a`, 10))).toBe(true);
      expect(await new InboxRepository(stores[1]!.db).record(delivery(w, `${w}-a`, 10))).toBe(false);
      expect((await inbox.pending(w)).map((d) => d.deliveryId)).toEqual([`${w}-a`, `${w}-b`]);
      await inbox.finish({ workspaceId: w, deliveryId: `${w}-a` }, 'applied', 2_000);
      expect((await inbox.pending(w)).map((d) => d.deliveryId)).toEqual([`${w}-b`]);
      expect(await inbox.lastReceived(w)).toBe(1_000);
      expect(await inbox.prune(1_000 + KEEP_DELIVERIES_MS - 1 - KEEP_DELIVERIES_MS)).toBe(0);
      expect(await inbox.prune(1_001)).toBe(1);
      // A retry after the prune window is new again (Svix stops retrying long before).
      expect(await inbox.record(delivery(w, `${w}-b`, 20))).toBe(false);
    });

    it('keeps one message id once per workspace (Svix sends one id to every endpoint)', async () => {
      const [a, b] = [ws(), ws()];
      const id = `msg_shared_${a}`;
      const inboxes = stores.map((s) => new InboxRepository(s.db));
      expect(await inboxes[0]!.record(delivery(a, id, 10))).toBe(true);
      expect(await inboxes[1]!.record(delivery(b, id, 10))).toBe(true);
      expect(await inboxes[0]!.record(delivery(b, id, 10))).toBe(false);
      expect(await inboxes[1]!.record(delivery(a, id, 10))).toBe(false);
      expect((await inboxes[0]!.pending(a)).map((d) => d.deliveryId)).toEqual([id]);
      expect((await inboxes[0]!.pending(b)).map((d) => d.deliveryId)).toEqual([id]);
    });

    it('applies each delivery once across two replicas draining at once, in payload order', async () => {
      const w = ws();
      const applied: string[] = [];
      const sink: WebhookSink = {
        accepts: (t) => t.startsWith('pull_request.'),
        async apply(d) {
          if (d.workspaceId === w) applied.push(d.deliveryId);
          await new Promise((r) => setTimeout(r, 2));
          return 'applied';
        },
      };
      const inbox = new InboxRepository(stores[0]!.db);
      for (let i = 0; i < 20; i++)
        await inbox.record(delivery(w, `${w}-${String(i).padStart(2, '0')}`, 1_000 - i));
      const drainers = stores.map(
        (s, i) =>
          new InboxDrainer({
            db: s.db,
            leases: s.leases,
            sinks: [sink],
            replicaId: `r${i}`,
            clock: () => 5_000,
            logger: silentLogger(),
            metrics: createMetrics({ defaultMetrics: false }),
          }),
      );
      await Promise.all([...drainers.map((d) => d.pass()), ...drainers.map((d) => d.pass())]);
      await Promise.all(drainers.map((d) => d.pass()));
      expect(applied).toHaveLength(20);
      expect(applied).toEqual([...applied].sort().reverse());
      expect(await inbox.pending(w)).toEqual([]);
    });

    it('tells a new webhook transition from a duplicate and a stale one', async () => {
      const db = stores[0]!.db;
      const w = ws();
      const t = { workspaceId: w, queueKey: 'github.com/acme/web:main', prNumber: 7, now: 100 };
      expect(await recordWebhookTransition(db, { ...t, kind: 'testing', occurredAt: 50 })).toBe('new');
      expect(await recordWebhookTransition(db, { ...t, kind: 'testing', occurredAt: 50 })).toBe('duplicate');
      expect(await recordWebhookTransition(db, { ...t, kind: 'submitted', occurredAt: 40 })).toBe('stale');
      expect(await recordWebhookTransition(db, { ...t, kind: 'merged', occurredAt: 60 })).toBe('new');
      // The poll since the webhook sees testing and merged: both already delivered.
      const poll = { ...t, now: 120, since: 90 };
      expect(await recordPolledTransition(db, { ...poll, kind: 'testing', occurredAt: 50 })).toBe(false);
      expect(await recordPolledTransition(db, { ...poll, kind: 'merged', occurredAt: 60 })).toBe(false);
      // A later poll (its window starts after the webhook) sees the PR submitted again: a new attempt.
      expect(
        await recordPolledTransition(db, {
          ...poll,
          since: 130,
          now: 150,
          kind: 'submitted',
          occurredAt: 140,
        }),
      ).toBe(true);
      expect(await recordWebhookTransition(db, { ...t, now: 160, kind: 'submitted', occurredAt: 140 })).toBe(
        'duplicate',
      );
      // Forgotten after KEEP_TRANSITIONS_MS: kept while Svix may still retry.
      expect(await pruneTransitions(db, 150)).toBe(0);
      expect(await pruneTransitions(db, 151)).toBe(1);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'mq-webhooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

suite('SQLite', async () => {
  const database = { kind: 'sqlite' as const, path: join(dir, 'mq.db') };
  return [
    await openStore({ database, encryptionKeys: [] }),
    await openStore({ database, encryptionKeys: [] }),
  ];
});

describe.runIf(pg.enabled)('PostgreSQL', () => {
  suite('replicas', async () => {
    const database = { kind: 'postgres' as const, url: pg.db.url };
    return [
      await openStore({ database, encryptionKeys: [] }),
      await openStore({ database, encryptionKeys: [] }),
    ];
  });
});
