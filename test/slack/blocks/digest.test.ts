/** Rendering and top-N selection: every message within Block Kit limits whatever the data. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bloom } from '../../../src/digest/bloom.ts';
import {
  byImpact,
  type FailingCollection,
  type FailingEntry,
  type QuarantinedCollection,
  TopN,
} from '../../../src/digest/collect.ts';
import type { Subscription } from '../../../src/digest/types.ts';
import { ENTRIES_PER_REPLY, renderDigest, renderFailure } from '../../../src/slack/blocks/digest.ts';
import { TrunkAuthError } from '../../../src/trunk/errors.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';

const sub: Subscription = {
  id: 'dabcde',
  workspaceId: 'T1',
  channelId: 'C1',
  kind: 'failing',
  repo: { host: 'gitlab.example.com', owner: 'acme', name: 'a-very-long-repository-name-'.repeat(4) },
  minuteOfDay: 540,
  tz: 'Europe/Paris',
  days: 'weekdays',
  skipEmpty: true,
  topN: 50,
  createdBy: 'U1',
  createdAt: 0,
  nextDueAt: 0,
};
const ctx = {
  appUrl: 'https://app.trunk.io',
  orgSlug: 'acme',
  mentions: new Map([['@acme/payments', ['<!subteam^S1>', '<@U2>']]]),
  scheduledAt: Date.parse('2026-11-02T08:00:00Z'),
  late: true,
  manual: false,
};

function entry(i: number, long: boolean): FailingEntry {
  const e: FailingEntry = {
    id: `id-${i}`,
    name: long ? `${'<&>|*_~`'.repeat(120)} ${i}` : `test ${i}`,
    url: long ? `https://app.trunk.io/acme/${'x'.repeat(600)}/${i}` : `https://app.trunk.io/t/${i}`,
    rate24h: (i % 100) / 100,
    rate7d: 0.004,
    prsImpacted: i,
    owners: long
      ? Array.from({ length: 12 }, (_, k) => `@acme/${'team'.repeat(30)}-${k}`)
      : ['@acme/payments'],
    quarantined: i % 2 === 0,
    isNew: i % 3 === 0,
  };
  if (i % 4 === 0) e.ticketUrl = 'https://linear.app/acme/issue/X-1';
  return e;
}

describe('rendering', () => {
  it('keeps header and thread replies within limits for 50 tests with extreme names, owners and URLs', () => {
    for (const long of [false, true]) {
      const top = Array.from({ length: 50 }, (_, i) => entry(i, long));
      const c: FailingCollection = {
        kind: 'failing',
        windowStart: 0,
        windowEnd: 1,
        total: 123_456,
        newCount: 17,
        goneCount: 40,
        gone: top.slice(0, 30).map((e) => ({ id: e.id, name: e.name, url: e.url })),
        hasBaseline: true,
        bloom: new Bloom(),
        quarantinedAmongFailing: 12,
        top,
        newTop: top.filter((e) => e.isNew).slice(0, 10),
      };
      const messages = renderDigest(sub, c, ctx);
      expect(messages).toHaveLength(1 + 50 / ENTRIES_PER_REPLY);
      for (const m of messages) assertValidReply(m);
      const all = JSON.stringify(messages);
      expect(all).toContain('late: due <!date^');
      if (long)
        expect(all).not.toMatch(/<https:\/\/app\.trunk\.io\/acme\/x{600}/); // over-long links become text
      else expect(all).toContain('<!subteam^S1> <@U2> (`@acme/payments`)');
    }
  });

  it('groups quarantined tests by owner within limits', () => {
    const top = Array.from({ length: 50 }, (_, i) => ({
      id: `q${i}`,
      name: `quarantined ${'y'.repeat(i * 5)}`,
      owners: [`@acme/team-${i % 7}`],
      quarantinedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
      isNew: i % 5 === 0,
    }));
    const c: QuarantinedCollection = {
      kind: 'quarantined',
      total: 999,
      newCount: 10,
      goneCount: 0,
      gone: [],
      hasBaseline: true,
      bloom: new Bloom(),
      byOwner: Array.from({ length: 40 }, (_, i) => ({
        owner: `@acme/team-${i}`,
        count: 40 - i,
        newCount: i % 2,
      })),
      top,
    };
    const messages = renderDigest({ ...sub, kind: 'quarantined' }, c, ctx);
    for (const m of messages) assertValidReply(m);
    const listed = messages
      .slice(1)
      .map((m) => JSON.stringify(m.blocks))
      .join('');
    for (const e of top) expect(listed).toContain(e.name.slice(0, 190));
    expect(JSON.stringify(messages[0]!.blocks)).toContain('…and 25 more owners');
  });

  it('a failure notice is valid and carries the hint', () => {
    const error = new TrunkAuthError('401 from Trunk', { operation: 'listQuarantinedTests', status: 401 });
    const m = renderFailure(sub, { kind: 'trunk', error }, 0);
    assertValidReply(m);
    expect(m.text).toContain('could not be made: Trunk rejected the API token');
  });
});

describe('TopN', () => {
  it('keeps exactly the best n in order, as sorting everything would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ prs: fc.nat(50), rate: fc.integer({ min: 0, max: 10 }) }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 30 }),
        (rows, n) => {
          const entries = rows.map((r, i) => ({
            ...entry(i, false),
            prsImpacted: r.prs,
            rate24h: r.rate / 10,
            rate7d: 0,
            name: `n${i}`,
          }));
          const top = new TopN<FailingEntry>(n, byImpact);
          for (const e of entries) top.offer(e);
          expect(top.items.map((e) => e.id)).toEqual(
            [...entries]
              .sort(byImpact)
              .slice(0, n)
              .map((e) => e.id),
          );
        },
      ),
    );
  });

  it('Bloom filter: no false negatives, few false positives at 20,000 ids', () => {
    const b = new Bloom();
    for (let i = 0; i < 20_000; i++) b.add(`test-${i}`);
    for (let i = 0; i < 20_000; i++) expect(b.has(`test-${i}`)).toBe(true);
    let fp = 0;
    for (let i = 0; i < 20_000; i++) if (b.has(`other-${i}`)) fp++;
    expect(fp / 20_000).toBeLessThan(0.01);
    expect(Bloom.fromBase64(b.toBase64())?.has('test-7')).toBe(true);
  });
});

describe("digest replies never notify through people's words (issue 19)", () => {
  it('a code owner typed as a special mention is shown, not delivered as one', async () => {
    const { renderDigestAnswer } = await import('../../../src/slack/blocks/digest-replies.ts');
    for (const a of [
      { answer: 'owner_mapped', owner: '<!channel>', mentions: ['<@U1>'] },
      { answer: 'owner_mapped', owner: '<!here|here>', mentions: [] },
      { answer: 'owners', mentions: new Map([['<!everyone>', ['<@U2>']]]) },
    ] as const) {
      const reply = renderDigestAnswer(a as never);
      expect(JSON.stringify(reply)).not.toMatch(/<!(channel|here|everyone)/);
    }
  });
});
