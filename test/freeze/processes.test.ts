/**
 * Freeze windows across three real app processes (the test entry test/helpers/app-process.ts) on one
 * PostgreSQL database, through the wire: windows added with signed `/mergequeue freeze add` commands, queues
 * changed at the Trunk fake, starts and ends announced in the fake Slack. The processes' clock is shifted
 * (--clock-offset-ms) so the windows opened 35 s ago (a start is applied as soon as it is seen, not late)
 * and end about 25 s after launch; their freezer ticks every 200 ms and leases last 3 s
 * (--freeze-tick-ms, --freeze-lease-ms) so a takeover fits in the test.
 *
 * Trunk answers updateQueue after 2 s (applied when the delay is over, as a slow server would), so starts
 * are in flight long enough to SIGKILL the process running one: another process takes its claim over when
 * the lease expires, sees the queue already paused, and records and announces it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { appProcess, defaultUsers, type Harness, TRUNK_TOKEN, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { type Child, startChild, stopChild } from '../helpers/processes.ts';
import { usePostgresWorld } from '../helpers/world.ts';

const pg = await usePostgresWorld('freeze across processes (PostgreSQL)', {
  slackOptions: { users: defaultUsers() },
  trunkTokens: [TRUNK_TOKEN],
});
const enabled = pg.enabled;
const WINDOWS = 8;
const OPENED = Date.parse('2026-06-01T10:00:00Z');
const channelOf = (i: number) => `C0FRZ${String(i).padStart(4, '0')}`;
const repoOf = (i: number) => `acme/frozen-${i}`;

let store: Store;
let h: Harness;
const others: Child[] = [];

beforeAll(async () => {
  if (!enabled) return;
  store = pg.world.store;
  const seams = {
    clockOffsetMs: OPENED + 35_000 - Date.now(),
    freezeTickMs: 200,
    freezeLeaseMs: 3_000,
  };
  h = await pg.world.replica({
    process: true,
    seams,
    env: { SCHEDULER_ENABLED: 'true', LOG_LEVEL: 'info' },
  });
  for (let i = 0; i < 2; i++) {
    others.push(await startChild(h.env, { timeoutMs: 30_000, ...appProcess(seams) }));
  }
}, 60_000);
afterAll(async () => {
  await Promise.all(others.map((c) => stopChild(c)));
}, 30_000);

describe.skipIf(!enabled)('freeze windows across three app processes', () => {
  it('each window starts once and ends once; a process SIGKILLed mid-start is taken over via its lease', async () => {
    const children = [h.child!, ...others].map((c) => c.child);
    h.trunk.setLatency({ updateQueue: 2_000 });
    const ids: string[] = [];
    for (let i = 0; i < WINDOWS; i++) {
      h.trunk.addQueue(repoOf(i), 'main', { state: 'running' });
      const sent = await h.sendCommand(
        `freeze add ${repoOf(i)}:main 10:00-10:01 UTC once 2026-06-01 pause Release`,
        {
          user: USERS.admin,
          channel: channelOf(i),
        },
      );
      expect(sent.status).toBe(200);
      const added = await h.slack.waitFor(() =>
        h.slack.channelMessages(channelOf(i)).find((m) => /added freeze window/.test(textOf(m))),
      );
      ids.push(/`(f[a-z0-9]{5})`/.exec(textOf(added))![1]!);
    }

    // A start in flight at Trunk (claimed, not yet recorded): kill the process that runs it.
    const running = await waitFor(async () => {
      const rows = await store.db.query<{ owner: string; window_id: string }>(
        "SELECT owner, window_id FROM freeze_claims WHERE phase = 'start' AND status = 'running'",
      );
      return rows[0];
    });
    const victim = children.find((c) => String(c.pid) === running.owner);
    expect(victim, `claim owner ${running.owner} is one of the processes`).toBeDefined();
    victim!.kill('SIGKILL');

    // Every window ends; the clock of the survivors passes 10:01.
    await waitFor(async () => {
      const rows = await store.db.query<{ n: unknown }>(
        "SELECT COUNT(*) AS n FROM freeze_claims WHERE phase = 'end' AND status = 'done'",
      );
      return Number(rows[0]?.n) === WINDOWS || undefined;
    }, 45_000);
    await new Promise((r) => setTimeout(r, 1_000)); // room for a duplicate to show up

    const writes = (i: number) =>
      h.trunk
        .requestsTo('updateQueue')
        .filter((r) => (r.body as { repo: { name: string } }).repo.name === `frozen-${i}`)
        .map((r) => (r.body as { state: string }).state);
    for (let i = 0; i < WINDOWS; i++) {
      expect(writes(i), repoOf(i)).toEqual(['paused', 'running']);
      expect(h.trunk.queue(repoOf(i), 'main')?.state).toBe('running');
      const said = h.slack.channelMessages(channelOf(i)).map(textOf);
      expect(
        said.filter((t) => t.includes(`${ids[i]}`) && /started/.test(t)),
        repoOf(i),
      ).toHaveLength(1);
      expect(
        said.filter((t) => /running again/.test(t)),
        repoOf(i),
      ).toHaveLength(1);
    }
    // The killed process's start was finished by another, on a second attempt.
    const taken = await store.db.query<{ owner: string; attempts: unknown; status: string }>(
      "SELECT owner, attempts, status FROM freeze_claims WHERE window_id = $1 AND phase = 'start'",
      [running.window_id],
    );
    expect(taken[0]).toMatchObject({ status: 'done' });
    expect(taken[0]!.owner).not.toBe(running.owner);
    expect(Number(taken[0]!.attempts)).toBe(2);
    const owners = await store.db.query<{ owner: string }>('SELECT DISTINCT owner FROM freeze_claims');
    expect(owners.map((o) => o.owner)).not.toContain(String(victim!.pid));
  }, 60_000);
});

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
