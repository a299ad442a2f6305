/**
 * The Trunk budget is the organization's, not each process's (issue 19): three replicas, each its own
 * process, on one PostgreSQL (the trunk_budget ledger, migration 011), one fake Slack and one fake Trunk.
 * Twenty people open the Home, spread over the three, while others ask for statuses: together the replicas
 * never send more than TRUNK_MAX_RPS requests in a second, and a pause still goes through.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Harness, TRUNK_TOKEN, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { busiestSecond, manyUsers, metricValue, PEOPLE, peopleAndQueues } from '../../helpers/people-load.ts';
import { usePostgresWorld } from '../../helpers/world.ts';

const pg = await usePostgresWorld('Trunk budget across replicas', {
  slackOptions: { users: manyUsers() },
  trunkTokens: [TRUNK_TOKEN],
});
/** Arrival stamps here may come late on a loaded machine (see trunk-budget-people.test.ts). */
const JITTER_MS = 150;

describe.runIf(pg.enabled)('three replicas share one Trunk budget through PostgreSQL', () => {
  const apps: Harness[] = [];
  beforeAll(async () => {
    // One after the other: the first applies the migrations.
    for (let i = 0; i < 3; i++)
      apps.push(await pg.world.replica({ env: { TRUNK_MAX_RPS: '10' }, process: true }));
    await peopleAndQueues(apps[0]!, PEOPLE);
  }, 120_000);

  it('twenty Homes and twelve statuses over three replicas stay within TRUNK_MAX_RPS together', {
    timeout: 90_000,
  }, async () => {
    const [a, b, c] = apps as [Harness, Harness, Harness];
    a.trunk.clearRequests();
    for (let i = 0; i < 12; i++) a.trunk.addQueue(`acme/s${i}`, 'main', { state: 'running' });
    const homes = Promise.all(PEOPLE.map((u, i) => apps[i % 3]!.openHome(u)));
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        apps[i % 3]!.sendCommand(`status acme/s${i}:main`, { channel: 'C0REPLSTAT' }),
      ),
    );
    const pause = await c.sendCommand('pause acme/web:main Incident', {
      user: USERS.admin,
      channel: 'C0REPLPAUS',
    });
    expect(pause.status).toBe(200);
    const published = await homes;
    expect(published).toHaveLength(20);
    // The pause went through, behind nobody's reads.
    await a.slack.waitFor(() => a.slack.channelMessages('C0REPLPAUS')[0], 30_000);
    expect(a.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    // Every status was answered: the queue, or Trunk is busy.
    await a.slack.waitFor(
      () =>
        a.slack.channelMessages('C0REPLSTAT').length +
          statuses.flatMap((s) => a.replies(s.responseUrl)).length >=
          12 || undefined,
      30_000,
    );
    for (const told of statuses.flatMap((s) => a.replies(s.responseUrl)))
      expect(textOf(told)).toMatch(/Trunk is busy/);
    await new Promise((r) => setTimeout(r, 1_500));

    const times = a.trunkCalls().map((r) => r.at);
    // More than one second's budget went out (how many more depends on the read cache and on how many reads
    // were told Trunk is busy, both timing-dependent): three budgets of their own, 10 each, could have sent
    // them all within one second, which the next line would catch.
    expect(times.length).toBeGreaterThan(10);
    // Three processes, one budget: never more than ten in a second, all of them together.
    expect(busiestSecond(times, JITTER_MS)).toBeLessThanOrEqual(10);
    for (const h of [a, b, c])
      expect(await metricValue(h, 'mergequeue_trunk_budget_overdrafts_total')).toBe(0);
  });
});
