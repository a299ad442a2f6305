/**
 * Team digests and shared collections (issues 12 and 13) through the real wire: signed
 * `/mergequeue digest add … owner @acme/team` commands to the running app, its scheduler ticking on an
 * injected clock, the fake Slack's posts, and the fake Trunk's request log counting the pages fetched.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/server.ts';
import type { WireFailingTest, WireQuarantinedTest } from '../../../dev/fakes/trunk/index.ts';
import { DEFAULT_RETRY_POLICY } from '../../../src/trunk/retry.ts';
import { defaultUsers, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { botPosts } from '../../helpers/slack-posts.ts';

const REPO = 'acme/mono';
const TEAMS = 10;
const PER_TEAM = 25;
const at = (iso: string) => Date.parse(iso);
const clock = { now: at('2026-11-03T08:00:00Z') };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: defaultUsers(),
      channels: [{ id: 'C0TEAM003', name: 'team-3', members: [USERS.admin] }],
    },
    env: { SCHEDULER_ENABLED: 'true' },
    // The scheduler looks every second on the app's clock, which the test moves.
    app: { clock: () => clock.now, digest: { tickCron: '* * * * * *', paceMs: 0 }, watch: false },
  });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** 250 tests failing before `due`: test j of team (j mod 10); every 7th is also owned by @acme/shared. */
function failingByTeam(due: number): Partial<WireFailingTest>[] {
  return Array.from({ length: TEAMS * PER_TEAM }, (_, j) => {
    const team = j % TEAMS;
    return {
      id: `mono-${j}`,
      name: `team-${team} test ${j}`,
      parent: 'Mono',
      html_url: `https://app.trunk.example/acme/tests/mono-${j}`,
      pull_requests_impacted_last_7d: j % 13,
      codeowners: j % 7 === 0 ? [`@acme/team-${team}`, '@acme/shared'] : [`@acme/team-${team}`],
      status: { reason: 'failed', timestamp: new Date(due - 60_000 - j * 1000).toISOString() },
    };
  });
}

async function ask(text: string, channel: string): Promise<string> {
  const sent = await h.sendCommand(`digest ${text}`, { user: USERS.admin, channel });
  expect(sent.status).toBe(200);
  return textOf(await h.reply(sent.responseUrl));
}

async function add(text: string, channel: string): Promise<string> {
  const answer = await ask(`add ${text}`, channel);
  const id = /Added digest `(d[a-z0-9]{5})`/.exec(answer)?.[1];
  if (!id) throw new Error(`digest not added: ${answer}`);
  return id;
}

const posted = (channel: string): FakeMessage[] => botPosts(h.slack, channel);

describe('team digests sharing one collection', () => {
  it('refuses a bad owner with a clear message and saves nothing', async () => {
    h.trunk.setFailingTests(REPO, []);
    const cases: Array<[string, RegExp]> = [
      ['add failing acme/mono owner', /Say whose tests the digest is for.*owner @acme\/payments/],
      ['add failing acme/mono owner <@U0BOB|bob>', /not a Slack mention.*digest owners @acme\/payments/],
      ['add failing acme/mono owner @a/b/c', /`@a\/b\/c` is not a code owner as Trunk reports them/],
      ['add failing acme/mono owner @acme/a owner @acme/b', /Give `owner` once/],
    ];
    for (const [text, expected] of cases) expect(await ask(text, 'C0BADOWNER'), text).toMatch(expected);
    expect(await ask('list', 'C0BADOWNER')).toMatch(/No digests in this workspace yet/);
  });

  it('ten team digests of one repository due in one minute: one pagination, each with only its team’s tests', async () => {
    const due = at('2026-11-03T09:00:00Z');
    h.trunk.setFailingTests(REPO, failingByTeam(due));
    const ids: string[] = [];
    for (let t = 0; t < TEAMS; t++) {
      const id = await add(`failing ${REPO} 09:00 UTC daily owner @acme/team-${t}`, `C0TEAM00${t}`);
      ids.push(id);
    }
    // One repository-wide digest in the same minute shares the collection too.
    await add(`failing ${REPO} 09:00 UTC daily`, 'C0MONOALL');
    expect(await ask('list', 'C0TEAM003')).toContain(
      `\`${ids[3]}\` failing · \`acme/mono\` · owner \`@acme/team-3\``,
    );
    await h.reset();

    clock.now = due + 5_000;
    await h.slack.waitFor(
      () =>
        Array.from({ length: TEAMS }, (_, t) => posted(`C0TEAM00${t}`).length >= 2).every(Boolean) &&
        posted('C0MONOALL').length >= 2,
      20_000,
    );
    await new Promise((r) => setTimeout(r, 1_500)); // any second pagination or duplicate would show meanwhile

    // One pagination of the list's pages (250 tests at 100 a page: 3), not eleven.
    const { pages, paginations } = h.trunk.listPages('listFailingTests', REPO);
    expect(paginations).toBe(1);
    expect(pages).toHaveLength(3);

    for (let t = 0; t < TEAMS; t++) {
      const msgs = posted(`C0TEAM00${t}`);
      expect(msgs, `team-${t}`).toHaveLength(2);
      for (const m of msgs) assertValidReply({ text: m.text, blocks: m.blocks });
      const header = textOf(msgs[0]);
      expect(header).toContain(`Failing tests · acme/mono · owned by @acme/team-${t}`);
      expect(header).toContain(`*${PER_TEAM}* distinct tests owned by \`@acme/team-${t}\` failed`);
      const thread = textOf(msgs[1]);
      expect(msgs[1]!.threadTs).toBe(msgs[0]!.ts);
      expect(thread).toContain(`team-${t} test`);
      // Only this team's tests: no other team's name anywhere in the digest.
      const others = [...thread.matchAll(/team-(\d+) test/g)].map((m) => Number(m[1]));
      expect(others.length).toBeGreaterThan(0);
      expect(new Set(others)).toEqual(new Set([t]));
    }
    const all = textOf(posted('C0MONOALL')[0]);
    expect(all).toContain('Failing tests · acme/mono');
    expect(all).not.toContain('owned by');
    expect(all).toContain(`*${TEAMS * PER_TEAM}* distinct tests failed`);
  }, 60_000);

  it('a team with nothing to report is told so when skip-empty is off, and not posted when it is on', async () => {
    const quarantined: Partial<WireQuarantinedTest>[] = Array.from({ length: 30 }, (_, i) => ({
      test_case_id: `q-${i}`,
      name: `quarantined ${i}`,
      codeowners: [i % 2 ? '@acme/payments' : '@acme/search'],
      quarantined_at: '2026-11-01T10:00:00Z',
    }));
    h.trunk.setQuarantinedTests(REPO, quarantined);
    const quiet = await add(`quarantined ${REPO} 10:00 UTC daily owner @acme/nobody`, 'C0QUIET01');
    expect(await ask(`set ${quiet} skip-empty off`, 'C0QUIET01')).toMatch(/skip-empty is now off/);
    await add(`quarantined ${REPO} 10:00 UTC daily owner @acme/nobody`, 'C0SKIPPED');
    // A bare team name matches the team in any organization.
    await add(`quarantined ${REPO} 10:00 UTC daily owner payments`, 'C0PAYMENT');
    await h.reset();

    clock.now = at('2026-11-03T10:00:03Z');
    await h.slack.waitFor(() => posted('C0QUIET01').length >= 1 && posted('C0PAYMENT').length >= 2, 20_000);
    await new Promise((r) => setTimeout(r, 1_500));

    const [nothing, ...rest] = posted('C0QUIET01');
    expect(rest).toHaveLength(0);
    assertValidReply({ text: nothing!.text, blocks: nothing!.blocks });
    expect(textOf(nothing)).toContain('Quarantined tests · acme/mono · owned by @acme/nobody');
    expect(textOf(nothing)).toContain(
      'Nothing to report for `@acme/nobody`: none of its tests are quarantined in `acme/mono`.',
    );
    expect(nothing!.text).toContain('nothing to report for @acme/nobody');
    expect(posted('C0SKIPPED')).toHaveLength(0);
    const payments = posted('C0PAYMENT')
      .map((m) => textOf(m))
      .join('\n');
    expect(payments).toContain('*15* tests owned by `payments` are quarantined');
    expect(payments).not.toContain('@acme/search');
    // Three digests, one pagination of the quarantined list.
    expect(h.trunk.listPages('listQuarantinedTests', REPO).paginations).toBe(1);
  }, 60_000);

  it('Trunk failing during the shared collection: every digest of it says so, and Trunk is asked once', async () => {
    h.trunk.setFailingTests(REPO, failingByTeam(at('2026-11-03T11:00:00Z')));
    const channels = ['C0DOWN001', 'C0DOWN002', 'C0DOWN003'];
    for (const [i, c] of channels.entries())
      await add(`failing ${REPO} 11:00 UTC daily owner @acme/team-${i}`, c);
    await h.reset();
    h.trunk.failNext(50, { status: 503 }, 'listFailingTests');

    clock.now = at('2026-11-03T11:00:02Z');
    await h.slack.waitFor(() => channels.every((c) => posted(c).length >= 1), 20_000);
    await new Promise((r) => setTimeout(r, 1_500));
    for (const c of channels) {
      const msgs = posted(c);
      expect(msgs, c).toHaveLength(1);
      expect(textOf(msgs[0])).toMatch(/could not be made: Trunk is not reachable right now/);
    }
    // One collection's attempts (the client's retries), not one per digest.
    expect(h.trunk.requestsTo('listFailingTests')).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
  }, 60_000);
});
