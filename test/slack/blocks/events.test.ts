/** The queue-event renderers, checked against the Block Kit schema and Slack's limits, with hostile text. */
import { describe, expect, it } from 'vitest';
import {
  renderAuthorNote,
  renderFeed,
  renderHealth,
  renderLiveEndedUnread,
} from '../../../src/slack/blocks/events.ts';
import { renderLinked, renderPerson, renderWatchList } from '../../../src/slack/blocks/watch.ts';
import type { WatchEvent } from '../../../src/watch/types.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { findAction } from '../../helpers/block-kit-reading.ts';

const target = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const nasty = `<script>&amp; <!channel> ${'x<>&'.repeat(40)}`;
const base = {
  workspaceId: 'T1',
  queueKey: 'github.com/acme/web:main',
  target,
  seq: 2,
  at: Date.UTC(2026, 10, 2, 8, 5),
};
const pr = { number: 42, title: nasty, author: nasty };

type FeedEvent = Exclude<WatchEvent, { kind: 'health' | 'slow' }>;
const events: FeedEvent[] = [
  {
    ...base,
    id: 's',
    kind: 'state',
    outsideSlack: true,
    changes: [
      { field: 'state', before: 'running', after: 'paused', outsideSlack: true },
      { field: 'requiredStatuses', before: [nasty], after: [], outsideSlack: true },
    ],
  },
  { ...base, id: 'a', kind: 'submitted', pr },
  { ...base, id: 'b', kind: 'testing', pr },
  { ...base, id: 'c', kind: 'merged', pr },
  {
    ...base,
    id: 'd',
    kind: 'failed',
    pr,
    readiness: { doesBaseBranchMatch: false, gitHubMergeability: 'not_mergeable' },
    prBaseBranch: nasty,
  },
  { ...base, id: 'e', kind: 'cancelled', pr },
  { ...base, id: 'f', kind: 'left', pr },
];
const raw = (r: { blocks?: unknown }) => JSON.stringify(r.blocks);

describe('queue event renderers', () => {
  it('each event alone: valid, escaped, with what changed and why a PR failed', () => {
    for (const e of events) {
      const r = renderFeed([e]);
      assertValidReply(r);
      expect(raw(r)).not.toContain('<script>');
      expect(raw(r)).not.toContain('<!channel>');
    }
    const state = raw(renderFeed([events[0]!]));
    expect(state).toContain('changed outside Slack');
    expect(state).toContain('`running` → `paused`');
    const failed = raw(renderFeed([events[4]!]));
    expect(failed).toContain('not mergeable');
    expect(failed).toContain('github.com/acme/web/pull/42');
  });

  it('a burst is one message within Slack limits, however many events', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      ...events[1]!,
      id: `x${i}`,
      pr: { ...pr, number: i },
    }));
    const r = renderFeed(many as FeedEvent[]);
    assertValidReply(r);
    expect(raw(r)).toContain('400 updates');
    expect(raw(r)).toContain('more_');
  });

  it('health alerts carry the status buttons that fit the state; recovered has none', () => {
    const h = {
      ...base,
      id: 'h',
      kind: 'health' as const,
      watchId: 'w1',
      condition: 'stuck' as const,
      phase: 'alert' as const,
      since: base.at - 3_600_000,
      thresholdMinutes: 45,
      waitingPrs: 3,
      state: 'running',
    };
    const running = renderHealth(h);
    assertValidReply(running);
    expect(['mq_refresh', 'mq_pause', 'mq_drain'].every((id) => findAction(running.blocks ?? [], id))).toBe(
      true,
    );
    expect(findAction(running.blocks ?? [], 'mq_resume')).toBeUndefined();
    const paused = renderHealth({ ...h, condition: 'paused', state: 'paused', thresholdMinutes: 240 });
    assertValidReply(paused);
    expect(findAction(paused.blocks ?? [], 'mq_resume')).toBeDefined();
    expect(findAction(paused.blocks ?? [], 'mq_pause')).toBeUndefined();
    expect(raw(paused)).toContain('more than 4 hours');
    const recovered = renderHealth({ ...h, phase: 'recovered' });
    assertValidReply(recovered);
    expect(findAction(recovered.blocks ?? [], 'mq_pause')).toBeUndefined();
  });

  it('author notes, live-ended fallback and the watch/me replies are valid', () => {
    for (const e of events.filter((x) => ['testing', 'merged', 'failed', 'cancelled'].includes(x.kind)))
      for (const verified of [true, false])
        assertValidReply(
          renderAuthorNote(e as Parameters<typeof renderAuthorNote>[0], { githubLogin: nasty, verified }),
        );
    const ended = renderLiveEndedUnread(target, base.at);
    assertValidReply(ended);
    expect(findAction(ended.blocks ?? [], 'mq_refresh')).toBeDefined();
    const link = {
      workspaceId: 'T1',
      userId: 'U1',
      githubLogin: 'octo',
      verified: false,
      notify: true,
      linkedBy: 'U1',
      linkedAt: 0,
    };
    assertValidReply(renderPerson(link));
    assertValidReply(renderPerson(undefined));
    assertValidReply(renderLinked(link, true, 'U2'));
    assertValidReply(renderWatchList([]));
    assertValidReply(
      renderWatchList([
        {
          id: 'wabc',
          workspaceId: 'T1',
          channelId: 'C1',
          target,
          topics: ['state'],
          createdBy: 'U1',
          createdAt: 0,
        },
      ]),
    );
  });
});
