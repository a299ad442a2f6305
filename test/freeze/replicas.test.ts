/**
 * Exactly once across replicas: three freezers (three replica ids, each its own connection pool) on one
 * real PostgreSQL with a shared injected clock, and one "SIGKILLed" mid-way (it stops ticking and renewing
 * its lease, its change call never returns) whose claim another replica takes over.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FreezeClaims } from '../../src/freeze/claims.ts';
import type { Freezer } from '../../src/freeze/freezer.ts';
import { usePostgres } from '../helpers/world.ts';
import { type Rig, startRig } from './helpers.ts';

const pg = await usePostgres('freeze replicas (PostgreSQL)');
const enabled = pg.enabled;
let rig: Rig;
let seq = 0;

beforeAll(async () => {
  if (!enabled) return;
  rig = await startRig({ database: { kind: 'postgres', url: pg.db.url }, replicas: 3 });
}, 60_000);
afterAll(async () => {
  await rig?.close();
}, 60_000);
beforeEach(() => {
  if (!enabled) return;
  rig.events.length = 0;
  rig.trunk.clearRequests();
});

const writesTo = (repo: string) =>
  rig.trunk
    .requestsTo('updateQueue')
    .filter((r) => (r.body as { repo: { name: string } }).repo.name === repo)
    .map((r) => (r.body as { state: string }).state);

describe.skipIf(!enabled)('freeze windows across replicas on one PostgreSQL', () => {
  it('three replicas ticking together: each of 12 windows starts once and ends once', async () => {
    const day = `2026-06-0${++seq + 1}`;
    const names = Array.from({ length: 12 }, (_, i) => `web-${seq}-${i}`);
    for (const n of names) {
      rig.trunk.addQueue(`acme/${n}`, 'main', { state: 'running' });
      await rig.add(`add acme/${n}:main 10:00-11:00 UTC once ${day} pause`);
    }
    const freezers = rig.stores.map((s, i) => rig.freezer(`replica-${i}`, {}, s));
    for (const t of ['09:59:59', '10:00:01', '10:00:04', '10:00:07', '11:00:00', '11:00:03', '11:00:06'])
      await rig.at(`${day}T${t}Z`, ...freezers);
    for (const n of names) {
      expect(writesTo(n), n).toEqual(['paused', 'running']);
      expect(rig.trunk.queue(`acme/${n}`, 'main')?.state).toBe('running');
    }
    const perWindow = new Map<string, string[]>();
    for (const e of rig.events) perWindow.set(e.window.id, [...(perWindow.get(e.window.id) ?? []), e.kind]);
    expect(perWindow.size).toBe(12);
    for (const kinds of perWindow.values()) expect(kinds).toEqual(['started', 'ended']);
  });

  it('a replica killed after changing the queue but before recording it: another takes over, nothing doubled', async () => {
    const day = `2026-06-0${++seq + 1}`;
    const name = `web-${seq}-killed`;
    rig.trunk.addQueue(`acme/${name}`, 'main', { state: 'running' });
    const { window: w } = await rig.add(`add acme/${name}:main 10:00-11:00 UTC once ${day} drain Release`);
    const [s0, s1, s2] = rig.stores;
    const survivorA = rig.freezer('survivor-a', {}, s1);
    const survivorB = rig.freezer('survivor-b', {}, s2);
    // The victim's change reaches Trunk, then the process "dies": the call never returns and it never
    // ticks again (so its lease is never renewed and nothing is released).
    let victim!: Freezer;
    const changed = new Promise<void>((resolve) => {
      victim = rig.freezer(
        'victim',
        { trunk: rig.hangingTrunk('updateQueue', { reaches: true, onHang: resolve }) },
        s0,
      );
    });
    rig.clock.now = Date.parse(`${day}T10:00:01Z`);
    await victim.tick();
    await changed;
    expect(writesTo(name)).toEqual(['draining']);
    const claims = new FreezeClaims(s1!);
    const start = {
      windowId: w.id,
      occurrenceStart: Date.parse(`${day}T10:00:00Z`),
      phase: 'start' as const,
    };
    expect(await claims.get(start)).toMatchObject({
      owner: 'victim',
      status: 'running',
      beforeState: 'running',
    });

    // Within the lease (20 s) the survivors leave it alone.
    await rig.at(`${day}T10:00:15Z`, survivorA, survivorB);
    expect(rig.events).toEqual([]);
    // After it, exactly one takes over, recognises the change as done and announces it once.
    await rig.at(`${day}T10:00:25Z`, survivorA, survivorB);
    await rig.at(`${day}T10:00:30Z`, survivorA, survivorB);
    expect(writesTo(name)).toEqual(['draining']);
    expect(rig.events.map((e) => e.kind)).toEqual(['started']);
    expect(await claims.get(start)).toMatchObject({ status: 'done', setState: 'draining', attempts: 2 });
    expect(['survivor-a', 'survivor-b']).toContain((await claims.get(start))?.owner);

    await rig.at(`${day}T11:00:01Z`, survivorA, survivorB);
    expect(writesTo(name)).toEqual(['draining', 'running']);
    expect(rig.events.map((e) => e.kind)).toEqual(['started', 'ended']);
  });

  it('a replica killed before its change reached Trunk: the survivor makes it once', async () => {
    const day = `2026-06-0${++seq + 1}`;
    const name = `web-${seq}-early`;
    rig.trunk.addQueue(`acme/${name}`, 'main', { state: 'running' });
    await rig.add(`add acme/${name}:main 10:00-11:00 UTC once ${day} pause`);
    const [s0, s1] = rig.stores;
    let reached!: () => void;
    const hung = new Promise<void>((r) => (reached = r));
    const victim = rig.freezer(
      'victim-2',
      { trunk: rig.hangingTrunk('getQueue', { reaches: false, onHang: () => reached() }) },
      s0,
    );
    const survivor = rig.freezer('survivor', {}, s1);
    rig.clock.now = Date.parse(`${day}T10:00:00Z`);
    await victim.tick();
    await hung;
    await rig.at(`${day}T10:00:10Z`, survivor);
    expect(writesTo(name)).toEqual([]);
    await rig.at(`${day}T10:00:21Z`, survivor);
    expect(writesTo(name)).toEqual(['paused']);
    expect(rig.events.map((e) => e.kind)).toEqual(['started']);
  });
});
