/**
 * Unfurl renderers: every kind of unfurl is valid Block Kit within Slack's limits, has no button (anyone in
 * the channel sees it), says when it was read and links to Trunk; people's words stay plain text.
 */
import { describe, expect, it } from 'vitest';
import { storyOf } from '../../../src/queue/story.ts';
import type { UnfurlView } from '../../../src/services/unfurls.ts';
import { renderUnfurls } from '../../../src/slack/blocks/unfurl.ts';
import type { Queue, SubmittedPullRequest } from '../../../src/trunk/types.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { actionsIn, textOf } from '../../helpers/block-kit-reading.ts';

const ref = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'release/1.2' };
const readAt = Date.UTC(2026, 10, 26, 10, 0);
const o = { appUrl: 'https://app.trunk.io', orgSlug: 'acme' };
const nasty = `<!here> @channel ${'long title '.repeat(600)}`;

const v1Pr = (over: Partial<SubmittedPullRequest> = {}): SubmittedPullRequest => ({
  stateChangedAt: '2026-11-26T09:00:00Z',
  priorityValue: 100,
  priorityName: 'medium',
  skipTheLine: false,
  forceEnqueued: false,
  isCurrentlySubmittedToQueue: true,
  prNumber: 7,
  prTitle: nasty,
  prSha: 'abc',
  prBaseBranch: 'release/1.2',
  prAuthor: '<@U123>',
  state: 'pending',
  ...over,
});
const v2Pr = {
  id: 'p',
  repositoryId: 'r',
  number: 7,
  title: nasty,
  author: 'dev',
  url: undefined,
  htmlUrl: 'https://github.com/acme/web/pull/7',
  state: 'failed',
  isCurrentlySubmittedToQueue: false,
  queueEntry: undefined,
};
const queue = {
  state: 'paused',
  branch: 'release/1.2',
  concurrency: 4,
  mode: 'single',
  enqueuedPullRequests: [{}, {}, {}],
} as unknown as Queue;

const prView = (url: string, reading: Extract<UnfurlView, { kind: 'pr' }>['reading']): UnfurlView => ({
  url,
  kind: 'pr',
  ref,
  number: 7,
  readAt,
  reading,
});

const views: UnfurlView[] = [
  { url: 'https://a/1', kind: 'queue', ref, queue, readAt },
  prView('https://a/2', { source: 'v1', pr: v1Pr(), position: 3, depth: 9 }),
  prView('https://a/3', {
    source: 'v1',
    pr: v1Pr({ state: 'failed', isCurrentlySubmittedToQueue: false }),
    position: undefined,
    depth: undefined,
  }),
  prView('https://a/4', {
    source: 'v2',
    at: 'left',
    pr: v2Pr,
    story: storyOf([
      {
        state: 'failed',
        changedAt: '2026-11-26T09:30:00Z',
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        failed: { failureCausingChecks: [] },
      } as never,
    ]),
  }),
  prView('https://a/5', {
    source: 'v2',
    at: 'in_queue',
    eta: {
      kind: 'eta',
      pr: { ...v2Pr, state: 'open', isCurrentlySubmittedToQueue: true },
      estimate: undefined,
      estimatesOff: true,
      ahead: [{ id: 'a', number: 6, title: 'Six', url: undefined }],
      heldBy: [],
      position: 'pending',
    },
  }),
];

describe('renderUnfurls', () => {
  const unfurls = renderUnfurls(views, o);

  it('one valid unfurl per link, without buttons, with the time read and Open in Trunk', () => {
    expect(Object.keys(unfurls)).toEqual(views.map((v) => v.url));
    for (const body of Object.values(unfurls)) {
      assertValidMessage(body.blocks);
      expect(actionsIn(body.blocks)).toEqual([]);
      const text = textOf({ blocks: body.blocks });
      expect(text).toContain(`read from Trunk <!date^${readAt / 1000}^`);
      expect(text).toContain(
        '<https://app.trunk.io/acme/merge-queue/acme/web?branch=release%2F1.2|Open in Trunk>',
      );
      // People's words never become a mention or a broadcast.
      expect(text).not.toContain('<!here>');
      expect(text).not.toContain('<@U123>');
      expect(text).not.toMatch(/@channel\b/);
    }
  });

  it('says what each kind is about', () => {
    const text = (url: string) => textOf({ blocks: unfurls[url]!.blocks });
    expect(text('https://a/1')).toMatch(/paused[\s\S]*Concurrency\*\n4[\s\S]*3 PRs/);
    expect(text('https://a/2')).toContain('number 3 of 9 PRs in the queue');
    expect(text('https://a/3')).toContain('/mergequeue why 7 acme/web:release/1.2');
    expect(text('https://a/4')).toContain('It failed: it has a merge conflict');
    expect(text('https://a/5')).toContain('it waits behind');
  });
});
