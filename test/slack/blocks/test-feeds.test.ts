/**
 * The flaky-test feeds' renderers against the Block Kit schema and Slack's limits (test/helpers/block-kit.ts):
 * every shape a status message takes, the investigation's markdown block at Slack's 12 000-character limit, the
 * ticket form, and the answers. People's words (test names, owners) never notify anyone.
 */
import { describe, expect, it } from 'vitest';
import type { TestCard, TestWatch } from '../../../src/flaky/types.ts';
import {
  buildTicketModal,
  cutMarkdown,
  MARKDOWN_LIMIT,
  renderInvestigation,
  renderMissingPermission,
  renderMonitor,
  renderTestStatus,
  renderTestUnwatched,
  renderTestWatching,
  renderTestWatchList,
  renderTicketRefused,
} from '../../../src/slack/blocks/test-feeds.ts';
import { assertValidMessage, assertValidModal, assertValidReply } from '../../helpers/block-kit.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';

const links = { appUrl: 'https://app.trunk.io' };
const card = (o: Partial<TestCard> = {}): TestCard => ({
  test: {
    id: 'tc-1',
    name: 'charges card <!here> @channel',
    filePath: 'src/checkout.test.ts',
    htmlUrl: 'https://app.trunk.io/acme/flaky-tests/test/tc-1',
    codeowners: ['@acme/payments', '@acme/web'],
  },
  previousStatus: 'FLAKY',
  newStatus: 'BROKEN',
  failureRate: 0.125,
  mentions: { '@acme/payments': ['<!subteam^S0PAY>', 'not a mention'] },
  v2: true,
  at: Date.UTC(2026, 10, 26, 10),
  ...o,
});
const watch = (o: Partial<TestWatch> = {}): TestWatch => ({
  id: 'tabcde',
  workspaceId: 'T1',
  channelId: 'C1',
  createdBy: 'U1',
  createdAt: 1,
  ...o,
});

describe('test feed renderers', () => {
  it('a status message: valid, names the test, owners, change and rate, never notifies through the name', () => {
    const m = renderTestStatus(card(), links);
    assertValidMessage(m.blocks);
    const text = textOf(m);
    expect(text).toContain('13%');
    // What Slack parses (mrkdwn and the fallback text); a header is plain text, shown as typed.
    const parsed = [
      m.text,
      ...JSON.stringify(m.blocks).matchAll(/"type":"mrkdwn","text":"((?:[^"\\]|\\.)*)"/g),
    ]
      .map(String)
      .join('\n');
    expect(parsed).not.toContain('<!here>');
    expect(parsed).not.toMatch(/@channel\b/);
    expect(text).toContain('<!subteam^S0PAY>');
    expect(text).not.toContain('not a mention');
    expect(findAction(m.blocks, 'mq_test_quarantine')).toBeDefined();
    expect(findAction(m.blocks, 'mq_test_ticket')).toBeDefined();
  });

  it('without a v2 key only Open in Trunk; quarantined shows Stop quarantining; a recovery and an unknown status', () => {
    const plain = renderTestStatus(card({ v2: false }), links);
    assertValidMessage(plain.blocks);
    expect(findAction(plain.blocks, 'mq_test_quarantine')).toBeUndefined();
    expect(findAction(plain.blocks, 'mq_test_open')).toBeDefined();
    const q = renderTestStatus(
      card({ override: { mode: 'alwaysQuarantine', by: 'U1', at: 1 }, ticket: { key: 'PAY-1', by: 'U2' } }),
      links,
    );
    assertValidMessage(q.blocks);
    expect(findAction(q.blocks, 'mq_test_unquarantine')).toBeDefined();
    expect(textOf(q)).toContain('<@U1> quarantined this test');
    expect(textOf(renderTestStatus(card({ newStatus: 'healthy' }), links))).toContain('recovered');
    expect(textOf(renderTestStatus(card({ newStatus: 'Weird' }), links))).toContain('Weird');
    const bare = renderTestStatus(card({ test: { id: 'x'.repeat(200), codeowners: [] } }), links);
    assertValidMessage(bare.blocks);
    expect(textOf(bare)).toContain('no code owner');
  });

  it('an investigation fits the markdown limit, cut at a paragraph with a link to the rest', () => {
    const long = `# Summary\n\n${'Evidence line that goes on. '.repeat(40)}\n\n`.repeat(40);
    const m = renderInvestigation(card(), long, links, true);
    assertValidMessage(m.blocks);
    const md = (m.blocks as Array<{ type: string; text?: string }>).find((b) => b.type === 'markdown')!;
    expect(md.text!.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md.text).toContain('[Trunk](https://app.trunk.io/acme/flaky-tests/test/tc-1)');
    const short = renderInvestigation(card(), 'All **fine**', links, false);
    assertValidMessage(short.blocks);
    expect(textOf(short)).toContain('Trunk finished investigating');
    expect(cutMarkdown('```\ncode\n'.repeat(10), 30).text.match(/```/g)!.length % 2).toBe(0);
    assertValidMessage(renderMonitor(card(), { type: 'pass_on_retry', status: 'active' }).blocks);
  });

  it('the answers and the ticket form are valid', () => {
    for (const reply of [
      renderTestWatching(
        { watch: watch({ owner: '@acme/payments' }), created: true, webhookSecret: false },
        'T1',
      ),
      renderTestWatching({ watch: watch({ repo: 'acme/web' }), created: false, webhookSecret: true }, 'T1'),
      renderTestWatchList([watch()], [watch({ channelId: 'C2', repo: 'acme/web' })]),
      renderTestWatchList([], []),
      renderTestUnwatched({ removed: [], watches: [watch()], repo: 'acme/x' }),
      renderMissingPermission('Quarantine tests', 'lacks the permission'),
      renderTicketRefused({ status: 409, code: 'TICKET_LINK_CONFLICT' }, 'PAY-1'),
      renderTicketRefused({ status: 504 }, 'PAY-1'),
    ])
      assertValidReply(reply);
    assertValidModal(buildTicketModal('{"c":"C1","m":"{\\"t\\":\\"tc-1\\"}"}', 'charges card'));
  });
});
