/**
 * The per-organization Trunk budget through the real wire: signed slash commands to the running app, digests
 * paginating the fake Trunk, and the fake's own record of when each request arrived. A burst of digest pages
 * plus commands never puts more than TRUNK_MAX_RPS requests into any one second, and the commands are
 * answered promptly while the digests wait their turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const MAX_RPS = 10;
const REPOS = ['acme/r1', 'acme/r2', 'acme/r3', 'acme/r4'];
/** 800 failing tests a repository: 8 pages of 100 each. */
const ROWS = 800;
const PAGES = REPOS.length * (ROWS / 100);
const DIGESTS = 'C0BUDGETDG';
const COMMANDS = 'C0BUDGETCM';
const DAY = 24 * 3_600_000;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { TRUNK_MAX_RPS: String(MAX_RPS) } });
  h.trunk.addQueue('acme/web', 'main', { state: 'running' }, [{ prNumber: 7, prTitle: 'Add budget' }]);
  const now = Date.now();
  for (const [i, repo] of REPOS.entries())
    h.trunk.generateFailingTests(repo, ROWS, { seed: 40 + i, start: now - DAY + 60_000, end: now - 60_000 });
});
afterAll(async () => h?.close());

/** The most requests that arrived within any half-open window [t, t + 1 s). */
function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[j] as number) <= (sorted[i] as number) - 1_000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('Trunk request budget over the wire', () => {
  it('a digest burst plus commands never exceeds TRUNK_MAX_RPS in any second, and commands answer promptly', async () => {
    const ids: string[] = [];
    for (const repo of REPOS) {
      const sent = await h.sendCommand(`digest add failing ${repo} 09:00 UTC daily`, {
        user: USERS.admin,
        channel: DIGESTS,
      });
      const added = textOf(await h.reply(sent.responseUrl));
      const id = /digest `([^`]+)`/.exec(added)?.[1];
      expect(id, added).toBeTruthy();
      ids.push(id!);
    }
    await h.reset();

    // Four digests paginate at once: 32 pages, far more than one second's budget.
    for (const id of ids) {
      const sent = await h.sendCommand(`digest run ${id}`, { user: USERS.admin, channel: DIGESTS });
      expect(sent.status).toBe(200);
    }
    await h.trunk.waitForRequest('listFailingTests', { count: 3 });

    // While they run, people ask for the queue's status, a few times a second.
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = h.trunkCalls('getQueue').length;
      const sentAt = Date.now();
      const sent = await h.sendCommand('status acme/web:main', { channel: COMMANDS });
      expect(sent.status).toBe(200);
      const request = await h.slack.waitFor(() => h.trunkCalls('getQueue')[before], 5_000);
      waits.push(request.at - sentAt);
      await h.slack.waitFor(() => h.slack.channelMessages(COMMANDS)[i], 5_000);
      await new Promise((r) => setTimeout(r, 150));
    }

    const pages = await h.slack.waitFor(() => {
      const done = h.trunkCalls('listFailingTests').filter((r) => r.done && r.status === 200);
      return done.length >= PAGES ? done : undefined;
    }, 20_000);
    await h.idle();

    // Every digest was posted, with its tests.
    await h.slack.waitFor(() => (h.slack.channelMessages(DIGESTS).length >= REPOS.length ? true : undefined));

    // The budget held at Trunk's side, counting every request the app made.
    const all = h.trunkCalls();
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(busiestSecond(all.map((r) => r.at))).toBeLessThanOrEqual(MAX_RPS);
    // It had to: unthrottled, 32 pages arrive within a fraction of a second.
    const span = pages.at(-1)!.at - pages[0]!.at;
    expect(span).toBeGreaterThan(((PAGES - MAX_RPS) / MAX_RPS) * 1_000);

    // The commands' requests went out in the middle of the burst, without waiting for it.
    const commandsAt = h.trunkCalls('getQueue').map((r) => r.at);
    expect(commandsAt).toHaveLength(6);
    for (const at of commandsAt) {
      expect(at).toBeGreaterThan(pages[0]!.at);
      expect(at).toBeLessThan(pages.at(-1)!.at);
    }
    // From the command's arrival to its request at Trunk: never more than the bound on a person's wait, and
    // mostly no wait at all (the digests leave a slot of each second to commands, and step aside).
    for (const wait of waits) expect(wait).toBeLessThan(1_000);
    expect([...waits].sort((x, y) => x - y)[3]).toBeLessThan(250);
    expect(h.slack.channelMessages(COMMANDS)).toHaveLength(6);

    expect(await metric('mergequeue_trunk_budget_waits_total', 'caller="digest"')).toBeGreaterThan(10);
    expect(await metric('mergequeue_trunk_budget_waits_total', 'caller="interactive"')).toBeLessThan(3);
    expect(
      await metric('mergequeue_trunk_calls_by_caller_total', 'caller="digest",operation="listFailingTests"'),
    ).toBe(PAGES);
    expect(
      await metric('mergequeue_trunk_calls_by_caller_total', 'caller="interactive",operation="getQueue"'),
    ).toBe(6);
  });
});
