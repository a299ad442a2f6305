/**
 * The freezer against the real store (SQLite), the queue domain's audited change flow and the real Trunk
 * client over HTTP to the Trunk fake, with a clock the test moves (2026-06-01 is a Monday; UTC windows).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nextOrActiveWindow, removeWindow, skipNext } from '../../src/freeze/windows.ts';
import { changeQueueAs } from '../../src/services/queue.ts';
import { auditBy } from '../../src/store/audit-retrying.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { CHANNEL, CREATOR, type Rig, startRig, WS } from './helpers.ts';

const REPO = 'acme/web';
let rig: Rig;
const state = () => String(rig.trunk.queue(REPO, 'main')?.state);
const kinds = () => rig.events.map((e) => `${e.window.id}:${e.kind}${'resumed' in e ? `:${e.resumed}` : ''}`);
const writes = () => rig.trunk.requestsTo('updateQueue').map((r) => (r.body as { state?: string }).state);

beforeEach(async () => {
  rig = await startRig();
  rig.trunk.addQueue(REPO, 'main', { state: 'running' });
});
afterEach(async () => {
  await rig.close();
});

describe('freeze windows', () => {
  it('drains at the start with the reason, resumes at the end, each once, audited under the creator', async () => {
    const { window: w } = await rig.add('add acme/web:main 10:00-12:00 UTC daily drain Release 4.2');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T09:59:58Z', f);
    expect(state()).toBe('running');
    await rig.at('2026-06-01T10:00:02Z', f);
    expect(state()).toBe('draining');
    await rig.at('2026-06-01T10:00:07Z', f);
    await rig.at('2026-06-01T11:59:59Z', f);
    expect(state()).toBe('draining');
    await rig.at('2026-06-01T12:00:03Z', f);
    await rig.at('2026-06-01T12:00:08Z', f);
    expect(state()).toBe('running');
    expect(writes()).toEqual(['draining', 'running']);
    expect(rig.events).toMatchObject([
      {
        kind: 'started',
        state: 'draining',
        late: false,
        channelId: 'C0FREEZE1',
        window: { id: w.id, reason: 'Release 4.2' },
      },
      { kind: 'ended', resumed: true, late: false },
    ]);
    const audit = await rig.stores[0]!.listAudit(WS, { target: 'acme/web:main' });
    expect(audit.map((a) => [a.action, a.userId, a.detail['reason']])).toEqual([
      ['resume', CREATOR, `Freeze window ${w.id} ended`],
      ['drain', CREATOR, `Freeze window ${w.id}: Release 4.2`],
    ]);
  });

  it('the production worker posts each announcement in the window’s channel through the outbox', async () => {
    const { window: w } = await rig.add('add acme/web:main 10:00-12:00 UTC daily drain Release 4.2');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:02Z', f);
    await rig.at('2026-06-01T12:00:03Z', f);
    expect(rig.events.map((e) => e.kind)).toEqual(['started', 'ended']);
    const posted = rig.posts();
    expect(posted.map((m) => m.channel)).toEqual([CHANNEL, CHANNEL]);
    expect(textOf(posted[0])).toContain(`Freeze window \`${w.id}\` started: *acme/web:main* is draining`);
    expect(textOf(posted[0])).toContain('Release 4.2');
    expect(textOf(posted[1])).toContain(`Freeze window \`${w.id}\` ended`);
  });

  it('someone else’s pause during a drain window is kept at the end and the channel is told why', async () => {
    await rig.add('add 10:00-12:00 UTC daily drain Release');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    rig.clock.now = Date.parse('2026-06-01T11:05:00Z');
    const store = rig.stores[0]!;
    const bob = { store, workspaceId: WS, userId: 'UBOB', now: () => rig.clock.now };
    const paused = await changeQueueAs(
      { trunk: rig.client(), workspaceId: WS, audit: auditBy.bind(undefined, bob), claims: store },
      { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' },
      { kind: 'state', desired: 'paused', reason: 'incident' },
    );
    expect(paused.outcome).toBe('ok');
    await rig.at('2026-06-01T12:00:02Z', f);
    expect(state()).toBe('paused');
    expect(writes()).toEqual(['draining', 'paused']);
    expect(rig.events.at(-1)).toMatchObject({
      kind: 'not_resumed',
      found: 'paused',
      expected: 'draining',
      changedBy: 'UBOB',
      changedAt: Date.parse('2026-06-01T11:05:00Z'),
      reason: 'paused by someone else (UBOB) at 11:05 (UTC)',
    });
  });

  it('a queue someone resumed during the window is not touched at the end', async () => {
    await rig.add('add 10:00-12:00 UTC daily pause');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    rig.trunk.patchQueue(REPO, 'main', { state: 'running' });
    await rig.at('2026-06-01T12:00:02Z', f);
    expect(writes()).toEqual(['paused']);
    expect(rig.events.at(-1)).toMatchObject({
      kind: 'not_resumed',
      found: 'running',
      reason: 'resumed by someone else during the window',
    });
  });

  it('overlapping windows keep the queue frozen until the last ends; a pause window upgrades a drain', async () => {
    const { window: a } = await rig.add('add 10:00-12:00 UTC daily drain Release');
    const { window: b } = await rig.add('add 11:00-13:00 UTC daily pause Migration');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    expect(state()).toBe('draining');
    await rig.at('2026-06-01T11:00:01Z', f);
    expect(state()).toBe('paused');
    await rig.at('2026-06-01T12:00:01Z', f);
    expect(state()).toBe('paused');
    await rig.at('2026-06-01T13:00:01Z', f);
    expect(state()).toBe('running');
    expect(writes()).toEqual(['draining', 'paused', 'running']);
    expect(kinds()).toEqual([
      `${a.id}:started`,
      `${b.id}:started`,
      `${a.id}:ended:false`,
      `${b.id}:ended:true`,
    ]);
    expect(rig.events[1]).toMatchObject({ kind: 'started', state: 'paused', joined: a.id });
    expect(rig.events[2]).toMatchObject({ keptFrozenBy: [b.id] });
  });

  it('a window opening inside another joins its freeze; the one closing last resumes', async () => {
    const { window: a } = await rig.add('add 10:00-14:00 UTC daily pause');
    const { window: b } = await rig.add('add 11:00-12:00 UTC daily drain');
    const f = rig.freezer('r1');
    for (const t of ['10:00:01', '11:00:01', '12:00:01', '14:00:01']) await rig.at(`2026-06-01T${t}Z`, f);
    expect(writes()).toEqual(['paused', 'running']);
    expect(kinds()).toEqual([
      `${a.id}:started`,
      `${b.id}:started`,
      `${b.id}:ended:false`,
      `${a.id}:ended:true`,
    ]);
    expect(rig.events[1]).toMatchObject({ state: 'paused', joined: a.id });
  });

  it('a queue already paused for another reason is left alone, and not resumed at the end', async () => {
    rig.trunk.patchQueue(REPO, 'main', { state: 'paused' });
    await rig.add('add 10:00-12:00 UTC daily drain');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    await rig.at('2026-06-01T12:00:01Z', f);
    expect(writes()).toEqual([]);
    expect(state()).toBe('paused');
    expect(rig.events).toMatchObject([{ kind: 'already_frozen', found: 'paused' }]);
  });

  it('a start missed while down is applied on recovery while the window is open; a missed end likewise', async () => {
    await rig.add('add 10:00-12:00 UTC daily pause');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T11:30:00Z', f);
    expect(state()).toBe('paused');
    expect(rig.events.at(-1)).toMatchObject({ kind: 'started', late: true });
    // Down from 11:31 until the next morning: the end is applied when the app is back.
    await rig.at('2026-06-02T09:00:00Z', f);
    expect(state()).toBe('running');
    expect(rig.events.at(-1)).toMatchObject({ kind: 'ended', resumed: true, late: true });
    expect(writes()).toEqual(['paused', 'running']);
  });

  it('a missed end is applied even when later occurrences were missed too; a wholly missed window does nothing', async () => {
    await rig.add('add 10:00-12:00 UTC daily pause');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    await rig.at('2026-06-04T09:00:00Z', f);
    expect(writes()).toEqual(['paused', 'running']);
    expect(kinds().map((k) => k.split(':').slice(1).join(':'))).toEqual(['started', 'ended:true']);
  });

  it('a start failing (Trunk 503) is retried with backoff within the window and reported once', async () => {
    await rig.add('add 10:00-12:00 UTC daily pause');
    const f = rig.freezer('r1');
    rig.trunk.failNext(4, { status: 503 }, 'updateQueue');
    await rig.at('2026-06-01T10:00:01Z', f);
    expect(state()).toBe('running');
    expect(rig.events).toMatchObject([
      { kind: 'start_retrying', attempt: 1, nextAttemptAt: Date.parse('2026-06-01T10:00:06Z') },
    ]);
    expect(rig.events[0]!.kind === 'start_retrying' && rig.events[0]!.error).toMatch(/Trunk/);
    await rig.at('2026-06-01T10:00:04Z', f); // not due yet
    expect(rig.trunk.requestsTo('updateQueue')).toHaveLength(2);
    await rig.at('2026-06-01T10:00:06Z', f); // second attempt fails too (the client tried twice each time)
    expect(rig.trunk.requestsTo('updateQueue')).toHaveLength(4);
    await rig.at('2026-06-01T10:00:16Z', f); // 10 s later the third succeeds
    expect(state()).toBe('paused');
    expect(rig.events.map((e) => e.kind)).toEqual(['start_retrying', 'started']);
  });

  it('a start that never takes before the window closes is reported, and nothing is resumed', async () => {
    await rig.add('add 10:00-10:05 UTC daily pause');
    const f = rig.freezer('r1');
    rig.trunk.failNext(1000, { status: 503 }, 'updateQueue');
    for (let s = 1; s < 400; s += 5)
      await rig.at(new Date(Date.parse('2026-06-01T10:00:00Z') + s * 1000).toISOString(), f);
    rig.trunk.resetFaults();
    await rig.at('2026-06-01T10:07:00Z', f);
    expect(state()).toBe('running');
    const failed = rig.events.filter((e) => e.kind === 'start_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempts: expect.any(Number) });
    expect((failed[0] as { attempts: number }).attempts).toBeGreaterThan(3);
    expect(rig.events.map((e) => e.kind)).toEqual(['start_retrying', 'start_failed']);
  });

  it('a skipped occurrence does not freeze; the next one does', async () => {
    const { window: w } = await rig.add('add 10:00-12:00 UTC daily pause');
    const skip = await skipNext(rig.stores[0]!.db, WS, w.id, rig.clock.now);
    expect(skip).toMatchObject({
      outcome: 'skipped',
      skipped: { start: Date.parse('2026-06-01T10:00:00Z') },
    });
    expect(await skipNext(rig.stores[0]!.db, WS, w.id, rig.clock.now)).toMatchObject({
      outcome: 'already_skipped',
    });
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    expect(state()).toBe('running');
    await rig.at('2026-06-02T10:00:01Z', f);
    expect(state()).toBe('paused');
  });

  it('removing an open window ends its freeze at the next tick', async () => {
    const { window: w } = await rig.add('add 10:00-12:00 UTC daily pause');
    const f = rig.freezer('r1');
    await rig.at('2026-06-01T10:00:01Z', f);
    expect(await removeWindow(rig.stores[0]!.db, WS, w.id, rig.clock.now)).toMatchObject({
      window: { id: w.id },
    });
    await rig.at('2026-06-01T12:00:01Z', f);
    expect(state()).toBe('running');
  });

  it('the status line: the open window (closing last), else the next one', async () => {
    const ref = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
    const db = rig.stores[0]!.db;
    expect(await nextOrActiveWindow(db, WS, ref, rig.clock.now)).toBeUndefined();
    const { window: a } = await rig.add('add Acme/Web 10:00-12:00 UTC weekdays');
    const { window: b } = await rig.add('add 11:00-13:00 UTC once 2026-06-01');
    await rig.add('add acme/other 09:00-10:00 UTC daily');
    expect(await nextOrActiveWindow(db, WS, ref, rig.clock.now)).toMatchObject({
      window: { id: a.id },
      current: { active: false },
    });
    expect(await nextOrActiveWindow(db, WS, ref, Date.parse('2026-06-01T11:30:00Z'))).toMatchObject({
      window: { id: b.id },
      current: { active: true, occurrence: { end: Date.parse('2026-06-01T13:00:00Z') } },
    });
    expect(await nextOrActiveWindow(db, WS, ref, Date.parse('2026-06-01T13:00:00Z'))).toMatchObject({
      window: { id: a.id },
      current: { active: false, occurrence: { start: Date.parse('2026-06-02T10:00:00Z') } },
    });
  });
});
