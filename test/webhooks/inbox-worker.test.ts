/**
 * The webhook inbox worker (src/workers/webhook-inbox.ts) on two replicas sharing one store: a replica kicked
 * while the other drains the workspace looks again shortly on its own loop (no second kick), and once
 * stopped it looks no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/log.ts';
import type { WebhookDelivery, WebhookSink } from '../../src/webhooks/ports.ts';
import { BUSY_RETRY_MS, createWebhookInboxWorker } from '../../src/workers/webhook-inbox.ts';
import { startWorld, type World } from '../helpers/world.ts';

const WS = 'T0INBOX001';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let world: World;
beforeAll(async () => {
  world = await startWorld();
}, 60_000);
afterAll(async () => {
  await world?.close();
}, 60_000);

/** A sink that records who applied what, and holds the first delivery until `release()`. */
function gatedSink() {
  const applied: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  let held = false;
  const sinkFor = (replica: string): WebhookSink => ({
    accepts: () => true,
    async apply(d: WebhookDelivery) {
      if (!held) {
        held = true;
        await gate;
      }
      applied.push(`${replica} ${d.deliveryId}`);
      return 'applied';
    },
  });
  return { applied, sinkFor, release: () => release() };
}

function delivery(id: string): WebhookDelivery {
  const at = world.clock.now;
  return { deliveryId: id, workspaceId: WS, type: 'test.kind', occurredAt: at, receivedAt: at, payload: {} };
}

describe('the webhook inbox worker', () => {
  it('a replica that found the drain held looks again shortly by itself; stopped, it looks no more', async () => {
    const sink = gatedSink();
    const worker = (replicaId: string) =>
      createWebhookInboxWorker({
        db: world.store.db,
        leases: world.store.leases,
        sinks: [sink.sinkFor(replicaId)],
        replicaId,
        clock: () => world.clock.now,
        logger: silentLogger(),
        metrics: world.metrics,
      });
    const a = worker('a');
    const b = worker('b');
    await a.drainer.inbox.record(delivery('first'));
    a.kick(); // a holds the workspace's drain while the sink holds the first delivery
    await sleep(100);
    await b.drainer.inbox.record(delivery('second'));
    b.kick(); // b finds the drain held: no drain beside a, but a look again within BUSY_RETRY_MS
    await b.idle();
    expect(sink.applied).toEqual([]);
    sink.release();
    await a.idle();
    // a read its batch before the second arrived; nobody kicks again, yet b applies it on its own.
    const until = Date.now() + 20 * BUSY_RETRY_MS;
    while (sink.applied.length < 2 && Date.now() < until) await sleep(25);
    expect(sink.applied).toEqual(['a first', 'b second']);

    expect(await a.stop(Date.now() + 1_000)).toBe(true);
    expect(await b.stop(Date.now() + 1_000)).toBe(true);
    await b.drainer.inbox.record(delivery('third'));
    b.kick(); // stopped: a kick no longer drains
    await sleep(3 * BUSY_RETRY_MS);
    expect(sink.applied).toEqual(['a first', 'b second']);
  });
});
