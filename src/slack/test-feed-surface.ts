/**
 * The Slack side of the flaky-test feeds, handed to the feed when the app is assembled (workers/): how its
 * messages look. The feed (src/flaky/feed.ts) decides where they go and posts them through the outbox.
 */
import type { TestFeedSurface } from '../flaky/surface.ts';
import { renderInvestigation, renderMonitor, renderTestStatus } from './blocks/test-feeds.ts';

export const testFeedSurface: TestFeedSurface = {
  renderStatus: renderTestStatus,
  renderInvestigation,
  renderMonitor,
};
