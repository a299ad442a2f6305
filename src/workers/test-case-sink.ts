/**
 * The flaky-test sink of Trunk's webhooks (src/webhooks/ports.ts): the inbox worker hands it each verified
 * delivery of `v2.test_case.status_changed`, `test_case.monitor_status_changed`,
 * `test_case.investigation_completed` (and the legacy `test_case.status_changed`), and the feed (src/flaky/)
 * posts it to the channels that watch the test, once each, through the Slack outbox. Assembled here because it
 * joins the feed with the Slack renderers, the `digest owners` mapping and the workspace's Trunk v2 key.
 */
import { SubscriptionRepository } from '../digest/index.ts';
import { createTestFeed, type TestFeed } from '../flaky/index.ts';
import type { Logger } from '../observability/log.ts';
import type { SlackOutbox } from '../slack/outbox/outbox.ts';
import { testFeedSurface } from '../slack/test-feed-surface.ts';
import type { Workspaces } from '../slack/workspace.ts';
import type { Store } from '../store/types.ts';
import type { WebhookSink } from '../webhooks/ports.ts';

export interface TestCaseSinkDeps {
  store: Store;
  /** The app's per-workspace clients: the v2 key reads the test's failure rate. */
  workspaces: Pick<Workspaces, 'v2For'>;
  outbox: SlackOutbox;
  /** TRUNK_APP_URL, for tests whose payload carries no link. */
  appUrl: string;
  logger: Logger;
  now: () => number;
  /** Names this replica in the leases it takes. */
  replicaId: string;
}

/** The metrics period a status message shows. */
const METRICS_PERIOD = '7d';

/** A WebhookSink (what the inbox worker calls) that is the flaky-test feed. */
export type TestCaseSink = WebhookSink & TestFeed;

export function createTestCaseSink(d: TestCaseSinkDeps): TestCaseSink {
  const owners = new SubscriptionRepository(d.store.db);
  return createTestFeed({
    db: d.store.db,
    leases: d.store.leases,
    notifier: d.outbox,
    surface: testFeedSurface,
    appUrl: d.appUrl,
    mentions: (workspaceId) => owners.mentions(workspaceId),
    async metrics(workspaceId, testId) {
      const v2 = await d.workspaces.v2For(workspaceId, 'watch');
      if (!v2) return undefined;
      const test = await v2.api.getTest(testId, { metricsPeriod: METRICS_PERIOD });
      return test.metrics?.failureRate !== undefined ? { failureRate: test.metrics.failureRate } : {};
    },
    async hasV2Key(workspaceId) {
      return (await d.workspaces.v2For(workspaceId, 'watch').catch(() => undefined)) !== undefined;
    },
    logger: d.logger.child({ component: 'test-feed' }),
    now: d.now,
    replicaId: d.replicaId,
  });
}
