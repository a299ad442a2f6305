/**
 * A Slack outage does not lose a digest: 5xx are retried with backoff inside the grace period, resuming
 * a half-posted thread where it stopped; final errors end the occurrence and the digest's creator gets a
 * direct message saying why and what to do. Real store, fake Trunk and Slack, the scheduler on a clock
 * the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireFailingTest } from '../../dev/fakes/trunk/index.ts';
import { addedId, ctx, digestCommand, type Rig, startRig } from '../digest/helpers.ts';
import { botPosts } from '../helpers/slack-posts.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => rig?.close());

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);
const CREATOR = 'UOPER00001';

function failing(n: number, windowEnd: number): Partial<WireFailingTest>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t-${i}`,
    name: `test number ${i}`,
    parent: 'Suite',
    html_url: `https://app.trunk.example/acme/tests/t-${i}`,
    failure_rate_last_24h: 0.5,
    codeowners: ['@acme/search'],
    status: { reason: 'failed', timestamp: new Date(windowEnd - 1000 - i * 60_000).toISOString() },
  }));
}

async function addDigest(s: ReturnType<Rig['service']>, channel: string): Promise<string> {
  const reply = await digestCommand(
    s,
    ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
    ctx({ channelId: channel, userId: CREATOR }),
  );
  return addedId(reply.text);
}

async function tickAt(s: ReturnType<Rig['service']>, ms: number) {
  rig.clock.now = ms;
  await s.tick();
  await s.idle();
}

const posted = (channel: string) => botPosts(rig.slack, channel);
const dmsTo = (user: string) => rig.slack.channelMessages(user);

describe('Slack failing while a digest is posted', () => {
  it('a 503 in the middle of the thread: retried after a backoff, resuming where it stopped', async () => {
    // A pace between messages leaves time to break Slack after the parent is out.
    const s = rig.service({ channelPaceMs: 300 });
    const due = at('2026-11-03T09:00:00Z');
    rig.trunk.setFailingTests('acme/web', failing(60, due));
    rig.clock.now = at('2026-11-02T10:00:00Z');
    const id = await addDigest(s, 'C0OUTAGE1');

    rig.clock.now = due + 20_000;
    const ticking = s.tick();
    await rig.slack.waitFor(() => posted('C0OUTAGE1')[0]);
    rig.slack.failNext('chat.postMessage', { status: 503 });
    await ticking;
    await s.idle();
    const parent = posted('C0OUTAGE1')[0]!;
    let [run] = await s.claims.listFor(id);
    expect(run).toMatchObject({ status: 'running', postedCount: 1, headerTs: parent.ts });
    expect(run!.detail).toMatch(/http_503.*retrying/);
    expect(posted('C0OUTAGE1')).toHaveLength(1);

    // Not before its backoff…
    await tickAt(s, due + 50_000);
    expect(posted('C0OUTAGE1')).toHaveLength(1);
    // …then the rest of the thread, under the same parent, nothing twice.
    await tickAt(s, due + 20_000 + MIN + 5_000);
    [run] = await s.claims.listFor(id);
    expect(run).toMatchObject({ status: 'done', outcome: 'posted' });
    const all = posted('C0OUTAGE1');
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all.filter((m) => !m.threadTs)).toHaveLength(1);
    expect(all.slice(1).every((m) => m.threadTs === parent.ts)).toBe(true);
    expect(new Set(all.map((m) => m.text)).size).toBe(all.length);
    expect(dmsTo(CREATOR)).toHaveLength(0);
    await digestCommand(s, ['remove', id], ctx({ userId: CREATOR }));
  });

  it('not_in_channel ends the occurrence at once and DMs the creator what to do', async () => {
    const s = rig.service();
    const due = at('2026-11-05T09:00:00Z');
    rig.trunk.setFailingTests('acme/web', failing(3, due));
    rig.slack.setChannel({ id: 'C0PRIVATE1', isPrivate: true, isMember: false });
    rig.clock.now = at('2026-11-04T10:00:00Z');
    const id = await addDigest(s, 'C0PRIVATE1');
    await tickAt(s, due + 10_000);
    await tickAt(s, due + 30 * MIN);
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => [r.status, r.detail])).toEqual([['failed', 'slack: not_in_channel']]);
    const dms = dmsTo(CREATOR);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.text).toContain('invite @mergequeue to <#C0PRIVATE1>');
    expect(dms[0]!.text).toContain(`/mergequeue digest run ${id}`);
    await digestCommand(s, ['remove', id], ctx({ userId: CREATOR }));
  });

  it('a Slack that stays down is retried with growing waits, then given up on and the creator told', async () => {
    const s = rig.service();
    const due = at('2026-11-07T09:00:00Z');
    rig.trunk.setFailingTests('acme/web', failing(3, due));
    rig.clock.now = at('2026-11-06T10:00:00Z');
    const id = await addDigest(s, 'C0DOWN0001');
    const dmsBefore = dmsTo(CREATOR).length;
    // Down for every attempt; back just in time for the note to the creator.
    rig.slack.failNext('chat.postMessage', { status: 502 }, 10);
    const attemptsAt: number[] = [];
    let run = (await s.claims.listFor(id))[0];
    for (let t = due + 10_000; t < due + 6 * 60 * MIN; t += MIN) {
      const before = rig.slack.callsTo('chat.postMessage').length;
      await tickAt(s, t);
      if (rig.slack.callsTo('chat.postMessage').length > before) attemptsAt.push(t);
      run = (await s.claims.listFor(id))[0];
      if (run?.status !== 'running') break;
    }
    expect(run).toMatchObject({ status: 'failed', detail: 'slack: http_502' });
    // Waits grow: at least 1, 2, 4, 8 minutes between the first attempts (ticks come once a minute).
    const gaps = attemptsAt.slice(1, 5).map((t, i) => Math.round((t - attemptsAt[i]!) / MIN));
    [1, 2, 4, 8].forEach((least, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(least);
      expect(gaps[i]).toBeLessThanOrEqual(least + 1);
    });
    expect(attemptsAt.length).toBe(10);
    expect(posted('C0DOWN0001')).toHaveLength(0);
    const dms = dmsTo(CREATOR).slice(dmsBefore);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.text).toContain('Slack kept failing (http_502)');
    expect(dms[0]!.text).toContain(`/mergequeue digest run ${id}`);
    rig.slack.clear();
  });
});
