/** Flaky tests to the people who own them: test watches, the feed of status changes, what a message shows. */

export { readTestCaseEvent, repoOf, TEST_CASE_EVENT_TYPES, type TestCaseEvent } from './events.ts';
export {
  createTestFeed,
  type TestCaseDelivery,
  type TestFeed,
  type TestFeedDeps,
  type TestFeedOutcome,
  TestFeedPostDeferred,
  type TestMetricsRead,
} from './feed.ts';
export { FeedMessageRepository } from './messages.ts';
export type { TestFeedLinks, TestFeedSurface } from './surface.ts';
export {
  MAX_TEST_WATCHES_PER_CHANNEL,
  sameWatch,
  TestWatchRepository,
  watchMatches,
} from './test-watches.ts';
export { MAX_TICKET_REF, readTicketRef, type TicketRef } from './tickets.ts';
export {
  type FeedMessage,
  isRecovery,
  type QuarantineMode,
  statusKey,
  type TestCard,
  type TestCaseInfo,
  type TestWatch,
} from './types.ts';
