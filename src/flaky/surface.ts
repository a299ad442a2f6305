/**
 * What the flaky-test feeds need from the Slack side, handed in rather than imported (a domain never imports
 * slack/): how their messages look. src/slack/test-feed-surface.ts implements it with the Block Kit renderers.
 */
import type { OutgoingMessage } from '../core/notifier.ts';
import type { TestCard } from './types.ts';

export interface TestFeedLinks {
  /** TRUNK_APP_URL, for a test whose payload carries no link of its own. */
  appUrl: string;
}

export interface TestFeedSurface {
  /** The status message: the test, its owners, previous → new status, failure rate, buttons. */
  renderStatus(card: TestCard, links: TestFeedLinks): OutgoingMessage;
  /** Trunk's investigation summary (Markdown), threaded under the status message when there is one. */
  renderInvestigation(
    card: Pick<TestCard, 'test' | 'repo'>,
    summary: string,
    links: TestFeedLinks,
    threaded: boolean,
  ): OutgoingMessage;
  /** One monitor activated or resolved, threaded under the status message. */
  renderMonitor(card: Pick<TestCard, 'test'>, monitor: { type?: string; status?: string }): OutgoingMessage;
}
