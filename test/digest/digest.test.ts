/**
 * The digest service end to end in one process: commands, collection over every page, rendering, posting
 * to the fake Slack Web API, the claim record, and the clock-driven schedule (DST, grace, takeover).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../dev/fakes/slack/server.ts';
import type { WireFailingTest, WireQuarantinedTest } from '../../dev/fakes/trunk/index.ts';
import { assertValidReply } from '../helpers/block-kit.ts';
import { botPosts } from '../helpers/slack-posts.ts';
import {
  addedId,
  CHANNEL,
  ctx,
  digestCommand,
  OTHER_WS,
  type Rig,
  startRig,
  textOfBlocks,
  WS,
} from './helpers.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.close();
});

const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);

function failing(n: number, windowEnd: number, prefix = 't'): Partial<WireFailingTest>[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    name: `${prefix} test number ${i}`,
    parent: 'Suite',
    html_url: `https://app.trunk.example/acme/tests/${prefix}-${i}`,
    pull_requests_impacted_last_7d: i % 37,
    failure_rate_last_24h: (i % 10) / 10,
    failure_rate_last_7d: (i % 5) / 10,
    codeowners: i % 2 ? ['@acme/payments'] : ['@acme/search'],
    status: { reason: 'failed', timestamp: new Date(windowEnd - 1000 - i * 60_000).toISOString() },
  }));
}

function messagesIn(channel: string): FakeMessage[] {
  return botPosts(rig.slack, channel);
}

async function tickAt(service: ReturnType<Rig['service']>, iso: string) {
  rig.clock.now = at(iso);
  await service.tick();
  await service.idle();
}

describe('digest commands', () => {
  it('refuses non-operators and bad input with a clear message, changing nothing', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/web', []);
    const refused = await digestCommand(
      s,
      ['add', 'failing', 'acme/web'],
      ctx({ operator: false, member: false }),
    );
    expect(refused.text).toMatch(/Only operators and members of <#\w+> can add digests/);
    const cases: Array<[string[], RegExp]> = [
      [['add', 'failing', 'acme/web', '25:00'], /`25:00` is not a time of day.*HH:MM/],
      [['add', 'failing', 'acme/web', 'Mars/Olympus'], /not a timezone this app knows/],
      [['add', 'failing', 'acme/nope'], /Trunk does not know the repository `acme\/nope`.*nothing was saved/],
      [['add', 'flaky'], /`failing` or `quarantined`/],
      [['set', 'd2345z', 'top', '500'], /`top` takes a number of tests from 1 to 50/],
      [['owners', '@acme/payments', 'alice'], /not a Slack user or user group mention/],
      [['remove', 'nope'], /not a digest id/],
      [['frobnicate'], /is not a digest command/],
    ];
    for (const [args, expected] of cases) {
      const r = await digestCommand(s, args, ctx());
      expect(r.text, args.join(' ')).toMatch(expected);
      assertValidReply(r);
    }
    const list = await digestCommand(s, ['list'], ctx({ operator: false }));
    expect(list.text).toMatch(/No digests in this workspace yet/);
    const audit = await rig.store.listAudit(WS);
    expect(audit.some((a) => a.action === 'digest.add' && a.outcome === 'refused')).toBe(true);
  });

  it('adds with the channel repo, 09:00, the user timezone and weekdays by default; lists, sets, removes', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/web', []);
    await rig.store.setChannelDefault(WS, 'C0DEFAULTS', {
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
    });
    const added = await digestCommand(
      s,
      ['add', 'failing'],
      ctx({ channelId: 'C0DEFAULTS', userTz: 'Asia/Tokyo' }),
    );
    const id = addedId(added.text);
    expect(added.text).toContain('`acme/web`, on weekdays at 09:00 Asia/Tokyo');
    const sub = await s.subscriptions.get(WS, id);
    expect(sub).toMatchObject({
      kind: 'failing',
      minuteOfDay: 540,
      tz: 'Asia/Tokyo',
      days: 'weekdays',
      topN: 10,
      skipEmpty: true,
    });
    expect((await digestCommand(s, ['set', id, 'top', '20'], ctx())).text).toMatch(/top is now 20/);
    expect((await digestCommand(s, ['set', id, 'skip-empty', 'off'], ctx())).text).toMatch(
      /skip-empty is now off/,
    );
    expect((await digestCommand(s, ['set', id, 'time', '07:45'], ctx())).text).toMatch(
      /at 07:45 Asia\/Tokyo/,
    );
    const list = await digestCommand(s, ['list'], ctx({ operator: false }));
    expect(list.text).toContain(
      `\`${id}\` failing · \`acme/web\` · on weekdays at 07:45 Asia/Tokyo · <#C0DEFAULTS> · top 20 · skip-empty off`,
    );
    const owners = await digestCommand(
      s,
      ['owners', '@acme/Payments', '<!subteam^S0PAY|@payments>', '<@U0ALICE|alice>'],
      ctx(),
    );
    expect(owners.text).toBe(
      'Digests now mention <!subteam^S0PAY> <@U0ALICE> for tests owned by `@acme/payments`.',
    );
    expect((await digestCommand(s, ['owners'], ctx({ operator: false }))).text).toContain(
      '`@acme/payments` → <!subteam^S0PAY> <@U0ALICE>',
    );
    expect((await digestCommand(s, ['remove', id], ctx({ operator: false, member: false }))).text).toMatch(
      /no digest/,
    );
    expect((await digestCommand(s, ['remove', id], ctx())).text).toMatch(/Removed digest/);
    expect(await s.subscriptions.get(WS, id)).toBeUndefined();
    const help = await digestCommand(s, ['help'], ctx());
    expect(help.text).toContain('digest set <id> skip-empty on|off');
    expect(help.text).toContain('digest owners @acme/payments');
  });
});

describe('a scheduled failing-tests digest', () => {
  it('reads every page of the 24 h before its time, posts a summary and the list in the thread, once', async () => {
    const s = rig.service();
    const due = at('2026-11-03T09:00:00Z');
    rig.trunk.setFailingTests('acme/web', [
      ...failing(250, due),
      // outside the window: must not be counted
      ...failing(5, due - 30 * H, 'old'),
    ]);
    rig.clock.now = at('2026-11-02T10:00:00Z');
    const id = addedId(
      (await digestCommand(s, ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'], ctx())).text,
    );
    await digestCommand(s, ['set', id, 'top', '25'], ctx());
    rig.trunk.clearRequests();
    await tickAt(s, '2026-11-03T08:59:30Z');
    expect(messagesIn(CHANNEL)).toHaveLength(0);
    await tickAt(s, '2026-11-03T09:00:20Z');
    const posted = messagesIn(CHANNEL);
    expect(posted).toHaveLength(4);
    const [header, ...replies] = posted;
    expect(header!.threadTs).toBeUndefined();
    for (const r of replies) expect(r.threadTs).toBe(header!.ts);
    for (const m of posted) assertValidReply({ text: m.text, blocks: m.blocks });
    const headerText = textOfBlocks(header!.blocks);
    expect(headerText).toContain('Failing tests · acme/web');
    expect(headerText).toContain('*250* distinct tests failed');
    expect(headerText).toContain('https://app.trunk.example/acme/flaky-tests?repo=acme%2Fweb');
    // Every page, each for exactly [due − 24 h, due).
    const calls = rig.trunk.requestsTo('listFailingTests');
    expect(calls).toHaveLength(3);
    for (const c of calls) {
      const body = c.body as { start_time: string; end_time: string };
      expect(body.start_time).toBe('2026-11-02T09:00:00.000Z');
      expect(body.end_time).toBe('2026-11-03T09:00:00.000Z');
    }
    // Top by PRs impacted (36 is the most: t-36, 73, 110, 147, 184, 221), then 24 h failure rate.
    const firstReply = textOfBlocks(replies[0]!.blocks);
    const order = [147, 36, 184, 73, 221, 110].map((i) => firstReply.indexOf(`|Suite › t test number ${i}>`));
    expect(order.every((pos, k) => pos > -1 && (k === 0 || pos > order[k - 1]!))).toBe(true);
    expect(firstReply).toContain(
      '*1.* <https://app.trunk.example/acme/tests/t-147|Suite › t test number 147>',
    );
    expect(firstReply).toContain('36 PRs impacted (7 d) · failure rate 70% (24 h), 20% (7 d)');
    // The owner mapping set earlier in this workspace is used.
    expect(firstReply).toContain('Owners: <!subteam^S0PAY> <@U0ALICE> (`@acme/payments`) · No ticket');
    expect(firstReply).toMatch(/Ticket: <https:\/\/[^|]+\|open>/);
    const allText = posted.map((m) => textOfBlocks(m.blocks)).join('\n');
    expect(allText).not.toContain('old test number');
    // Another tick in the same minute, or another replica, posts nothing more.
    await tickAt(s, '2026-11-03T09:00:40Z');
    await tickAt(rig.service(), '2026-11-03T09:01:00Z');
    expect(messagesIn(CHANNEL)).toHaveLength(4);
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => [r.scheduledAt, r.outcome, r.postedCount])).toEqual([[due, 'posted', 4]]);

    // The next day: 10 of the listed tests recovered, 7 are new.
    const next = due + 24 * H;
    const today = failing(250, next).filter(
      (_, i) => ![36, 73, 110, 147, 184, 221, 35, 72, 109, 146].includes(i),
    );
    rig.trunk.setFailingTests('acme/web', [...today, ...failing(7, next, 'fresh')]);
    rig.slack.clear();
    await tickAt(s, '2026-11-04T09:00:05Z');
    const second = messagesIn(CHANNEL);
    const summary = textOfBlocks(second[0]!.blocks);
    expect(summary).toContain(
      '*247* distinct tests failed in the 24 hours before this digest (*7* new, *10* recovered since the last digest)',
    );
    expect(summary).toContain(
      '*Recovered:* <https://app.trunk.example/acme/tests/t-147|Suite › t test number 147>, ',
    );
    for (const i of [36, 73, 110, 35, 72]) expect(summary).toContain(`|Suite › t test number ${i}>`);
    expect(summary).toMatch(
      /\*Newly failing:\* <https:\/\/app.trunk.example\/acme\/tests\/fresh-6\|Suite › fresh test number 6>, /,
    );
    for (let i = 0; i < 7; i++) expect(summary).toContain(`|Suite › fresh test number ${i}>`);
    await digestCommand(s, ['remove', id], ctx());
  });

  it('skips an empty digest unless skip-empty is off', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/quiet', []);
    rig.clock.now = at('2026-11-05T10:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/quiet', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0QUIET' }),
        )
      ).text,
    );
    await tickAt(s, '2026-11-06T09:00:01Z');
    expect(messagesIn('C0QUIET')).toHaveLength(0);
    expect((await s.claims.listFor(id))[0]?.outcome).toBe('skipped_empty');
    await digestCommand(s, ['set', id, 'skip-empty', 'off'], ctx());
    await tickAt(s, '2026-11-07T09:00:01Z');
    const posted = messagesIn('C0QUIET');
    expect(posted).toHaveLength(1);
    expect(textOfBlocks(posted[0]!.blocks)).toContain('No tests failed in `acme/quiet`');
    await digestCommand(s, ['remove', id], ctx());
  });
});

describe('failures stay in their workspace', () => {
  beforeEach(() => rig.trunk.setTokens(['token-one', 'token-two']));

  it('a revoked Trunk token gets one clear message; the other workspace’s digest posts as usual', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/web', failing(3, at('2026-11-10T09:00:00Z')));
    rig.clock.now = at('2026-11-09T12:00:00Z');
    const a = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0REVOKED' }),
        )
      ).text,
    );
    const b = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0HEALTHY', workspaceId: OTHER_WS }),
        )
      ).text,
    );
    rig.trunk.setTokens(['token-two']);
    await tickAt(s, '2026-11-10T09:00:02Z');
    await tickAt(s, '2026-11-10T09:05:00Z');
    const revoked = messagesIn('C0REVOKED');
    expect(revoked).toHaveLength(1);
    const text = textOfBlocks(revoked[0]!.blocks);
    expect(text).toContain('could not be made: Trunk rejected the API token for this workspace.');
    expect(text).toContain('/mergequeue connect');
    expect(text).not.toContain('token-one');
    expect(messagesIn('C0HEALTHY').length).toBeGreaterThanOrEqual(2);
    expect((await s.claims.listFor(a))[0]?.outcome).toBe('failed');
    expect((await s.claims.listFor(b))[0]?.outcome).toBe('posted');
    await digestCommand(s, ['remove', a], ctx());
    await digestCommand(s, ['remove', b], ctx({ workspaceId: OTHER_WS }));
  });

  it('a revoked Slack token fails that digest once, recorded and logged, without retry loops', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/web', failing(2, at('2026-11-14T09:00:00Z')));
    rig.clock.now = at('2026-11-13T12:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0GONE', workspaceId: OTHER_WS }),
        )
      ).text,
    );
    rig.slack.revokeToken(`xoxb-${OTHER_WS.toLowerCase()}`);
    await tickAt(s, '2026-11-14T09:00:02Z');
    await tickAt(s, '2026-11-14T09:03:00Z');
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => [r.status, r.detail])).toEqual([['failed', 'slack: token_revoked']]);
    expect(rig.slack.callsTo('chat.postMessage').filter((c) => c.args['channel'] === 'C0GONE')).toHaveLength(
      1,
    );
    await digestCommand(s, ['remove', id], ctx({ workspaceId: OTHER_WS }));
  });

  it('waits out Slack’s 429 Retry-After and posts once', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/web', failing(2, at('2026-11-12T09:00:00Z')));
    rig.clock.now = at('2026-11-11T12:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0LIMITED' }),
        )
      ).text,
    );
    rig.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const t0 = performance.now();
    await tickAt(s, '2026-11-12T09:00:02Z');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(messagesIn('C0LIMITED')).toHaveLength(2);
    expect((await rig.metrics.slackRateLimitWaits.get()).values[0]?.value).toBeGreaterThanOrEqual(1);
    await digestCommand(s, ['remove', id], ctx());
  });
});

describe('the schedule', () => {
  it('posts 09:00 New York once each day across the end of daylight saving time', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/dst', []);
    rig.clock.now = at('2026-10-30T20:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/dst', '09:00', 'America/New_York', 'daily'],
          ctx({ channelId: 'C0DST' }),
        )
      ).text,
    );
    await digestCommand(s, ['set', id, 'skip-empty', 'off'], ctx());
    for (let t = at('2026-10-31T11:00:00Z'); t <= at('2026-11-01T16:00:00Z'); t += 10 * 60_000) {
      rig.clock.now = t;
      await s.tick();
      await s.idle();
    }
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => new Date(r.scheduledAt).toISOString())).toEqual([
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
    ]);
    expect(messagesIn('C0DST')).toHaveLength(2);
    await digestCommand(s, ['remove', id], ctx());
  });

  it('posts 09:00 Paris once each day across the start of summer time', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/dst', []);
    rig.clock.now = at('2027-03-26T20:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/dst', '09:00', 'Europe/Paris', 'daily'],
          ctx({ channelId: 'C0SPRING' }),
        )
      ).text,
    );
    await digestCommand(s, ['set', id, 'skip-empty', 'off'], ctx());
    // Minute by minute around both 09:00s (the clocks go forward at 01:00 UTC on 28 March 2027).
    for (const [from, to] of [
      ['2027-03-27T07:50:00Z', '2027-03-27T08:10:00Z'],
      ['2027-03-28T00:50:00Z', '2027-03-28T01:10:00Z'],
      ['2027-03-28T06:50:00Z', '2027-03-28T08:10:00Z'],
    ] as const) {
      for (let t = at(from); t <= at(to); t += 60_000) {
        rig.clock.now = t;
        await s.tick();
        await s.idle();
      }
    }
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => new Date(r.scheduledAt).toISOString())).toEqual([
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
    ]);
    expect(messagesIn('C0SPRING')).toHaveLength(2);
    await digestCommand(s, ['remove', id], ctx());
  });

  it('posts late (saying so) within the grace period, skips and records older misses', async () => {
    const s = rig.service();
    rig.trunk.setFailingTests('acme/late', []);
    rig.clock.now = at('2026-11-15T20:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'failing', 'acme/late', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0LATE' }),
        )
      ).text,
    );
    await digestCommand(s, ['set', id, 'skip-empty', 'off'], ctx());
    await tickAt(s, '2026-11-16T11:30:00Z'); // down 2.5 h
    const late = messagesIn('C0LATE');
    expect(late).toHaveLength(1);
    expect(textOfBlocks(late[0]!.blocks)).toContain(`late: due <!date^${at('2026-11-16T09:00:00Z') / 1000}^`);
    await tickAt(s, '2026-11-17T16:00:00Z'); // down 7 h > 6 h grace
    expect(messagesIn('C0LATE')).toHaveLength(1);
    const runs = await s.claims.listFor(id);
    expect(runs.map((r) => [new Date(r.scheduledAt).toISOString(), r.outcome])).toEqual([
      ['2026-11-16T09:00:00.000Z', 'posted'],
      ['2026-11-17T09:00:00.000Z', 'skipped_late'],
    ]);
    await tickAt(s, '2026-11-18T09:00:30Z'); // back on time
    expect(messagesIn('C0LATE')).toHaveLength(2);
    await digestCommand(s, ['remove', id], ctx());
    // Finished claims are pruned after 30 days.
    expect(await s.claims.listFor(id)).toHaveLength(3);
    await tickAt(rig.service(), '2026-12-17T12:00:00Z');
    expect((await s.claims.listFor(id)).map((r) => new Date(r.scheduledAt).toISOString())).toEqual([
      '2026-11-18T09:00:00.000Z',
    ]);
  });

  it('a replica that stops mid-digest hands its claim over; another finishes it without repeating a message', async () => {
    const a = rig.service({ channelPaceMs: 400, leaseMs: 30_000 });
    const b = rig.service({ leaseMs: 30_000 });
    const due = at('2026-11-20T09:00:00Z');
    rig.trunk.setFailingTests('acme/web', failing(40, due));
    rig.clock.now = at('2026-11-19T12:00:00Z');
    const id = addedId(
      (
        await digestCommand(
          a,
          ['add', 'failing', 'acme/web', '09:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0TAKEOVER' }),
        )
      ).text,
    );
    await digestCommand(a, ['set', id, 'top', '40'], ctx());
    rig.clock.now = due + 5000;
    await a.tick();
    await rig.slack.waitFor(() => messagesIn('C0TAKEOVER').length >= 2, 10_000);
    await a.stop(0); // shutdown timeout of 0: the run stops at its next message and releases its lease
    await a.idle();
    const half = await a.claims.get({ subscriptionId: id, scheduledAt: due });
    expect(half?.status).toBe('running');
    expect(half!.leaseUntil).toBeLessThan(rig.clock.now);
    expect(half!.postedCount).toBeGreaterThanOrEqual(2);
    expect(half!.postedCount).toBeLessThan(5);
    expect(messagesIn('C0TAKEOVER')).toHaveLength(half!.postedCount);
    await tickAt(b, '2026-11-20T09:00:20Z'); // b takes over at once (a crashed replica's lease would expire first)
    const posted = messagesIn('C0TAKEOVER');
    expect(posted).toHaveLength(5);
    expect(new Set(posted.map((m) => m.text)).size).toBe(5);
    expect(posted.filter((m) => !m.threadTs)).toHaveLength(1);
    const done = await b.claims.get({ subscriptionId: id, scheduledAt: due });
    expect(done).toMatchObject({ status: 'done', outcome: 'posted', postedCount: 5, attempts: 2 });
    await digestCommand(b, ['remove', id], ctx());
  });
});

describe('a quarantined-tests digest', () => {
  it('groups by owner with mentions, newly quarantined first; `digest run` posts now', async () => {
    const s = rig.service();
    const q = (i: number, owner: string): Partial<WireQuarantinedTest> => ({
      test_case_id: `q-${i}`,
      name: `quarantined ${i}`,
      parent: '',
      classname: '',
      codeowners: owner ? [owner] : [],
      quarantined_at: new Date(at('2026-11-01T00:00:00Z') + i * H).toISOString(),
    });
    rig.trunk.setQuarantinedTests('acme/web', [q(1, '@acme/payments'), q(2, '@acme/search'), q(3, '')]);
    rig.clock.now = at('2026-11-21T12:00:00Z');
    await digestCommand(s, ['owners', '@acme/payments', '<!subteam^S0PAY|@payments>'], ctx());
    const id = addedId(
      (
        await digestCommand(
          s,
          ['add', 'quarantined', 'acme/web', '08:00', 'UTC', 'daily'],
          ctx({ channelId: 'C0QUAR' }),
        )
      ).text,
    );
    await tickAt(s, '2026-11-22T08:00:00Z');
    rig.trunk.setQuarantinedTests('acme/web', [
      q(1, '@acme/payments'),
      q(2, '@acme/search'),
      q(4, '@acme/search'),
    ]);
    await tickAt(s, '2026-11-23T08:00:00Z');
    const posted = messagesIn('C0QUAR');
    expect(posted).toHaveLength(4);
    for (const m of posted) assertValidReply({ text: m.text, blocks: m.blocks });
    const header = textOfBlocks(posted[2]!.blocks);
    expect(header).toContain(
      '*3* tests are quarantined (*1* newly quarantined, *1* released since the last digest)',
    );
    expect(header).toContain('<!subteam^S0PAY> (`@acme/payments`): 1');
    const list = textOfBlocks(posted[3]!.blocks);
    expect(list.indexOf('@acme/search')).toBeLessThan(list.indexOf('@acme/payments'));
    expect(list).toContain(':new: quarantined 4');
    const reply = await digestCommand(s, ['run', id], ctx({ operator: false }));
    expect(reply.text).toMatch(/Posting digest/);
    await s.idle();
    expect(messagesIn('C0QUAR')).toHaveLength(6);
    expect(textOfBlocks(messagesIn('C0QUAR')[4]!.blocks)).toContain('run on request');
  });
});
