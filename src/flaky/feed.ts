/**
 * The flaky-test feed: what one verified Trunk delivery about a test (events.ts) means for the channels that
 * watch it. A status change is posted to every channel whose watch matches (repository, code owner), naming
 * the test, its owners (mentioned as `digest owners` maps them) and its failure rate when a v2 key can read
 * it; an investigation summary goes in the thread of the channel's last message about the test (or a new
 * message); a monitor's change goes in that thread, and nowhere when there is none.
 *
 * Exactly once per destination across replicas: each (delivery, channel) is a lease (store/leases.ts, kind
 * `flaky.post`) claimed before Slack is called and finished after, so a delivery handed over again (a retry,
 * a crash between the post and the inbox's mark, another replica) posts nothing twice. A post Slack did not
 * take for now is released and the delivery throws, so the inbox retries it later; a final refusal is
 * finished as failed (logged) and not retried. A status older than the one a channel shows is not posted.
 */
import type { Notifier } from '../core/notifier.ts';
import type { Logger } from '../observability/log.ts';
import type { Db, Leases } from '../store/types.ts';
import { readTestCaseEvent, TEST_CASE_EVENT_TYPES, type TestCaseEvent } from './events.ts';
import { FeedMessageRepository } from './messages.ts';
import type { TestFeedSurface } from './surface.ts';
import { TestWatchRepository } from './test-watches.ts';
import type { TestCard, TestCaseInfo } from './types.ts';

/** One verified delivery (the shape of webhooks/ports.ts's WebhookDelivery, which this domain may not import). */
export interface TestCaseDelivery {
  deliveryId: string;
  workspaceId: string;
  type: string;
  occurredAt: number;
  payload: unknown;
}

export type TestFeedOutcome = 'applied' | 'ignored' | 'stale';

/** A test's numbers from Trunk v2 (GET /v2/tests/{id}?include=metrics&period=7d). */
export interface TestMetricsRead {
  failureRate?: number;
}

export interface TestFeedDeps {
  db: Db;
  /** The store's lease service (one post per destination across replicas). */
  leases: Leases;
  /** The Slack outbox. */
  notifier: Notifier;
  surface: TestFeedSurface;
  appUrl: string;
  /** Lower-cased code owner → Slack mentions (`digest owners`). */
  mentions(workspaceId: string): Promise<Map<string, string[]>>;
  /**
   * The test's metrics through the workspace's v2 key; undefined when it has none. Throws when Trunk did not
   * answer (the message goes out without the failure rate).
   */
  metrics(workspaceId: string, testId: string): Promise<TestMetricsRead | undefined>;
  /** Whether the workspace has a v2 key (the Quarantine buttons need one). */
  hasV2Key(workspaceId: string): Promise<boolean>;
  logger: Logger;
  now: () => number;
  /** Names this replica in the leases it takes. */
  replicaId: string;
  /** How long a claimed post stays this replica's; default 60 s. */
  leaseMs?: number;
}

/** A post Slack did not take for now: the delivery is retried by the inbox. */
export class TestFeedPostDeferred extends Error {
  readonly channels: string[];
  constructor(channels: string[]) {
    super(`Slack did not take the test feed post for ${channels.length} channel(s) yet; retried later`);
    this.name = 'TestFeedPostDeferred';
    this.channels = channels;
  }
}

const POST_LEASE = 'flaky.post';

export interface TestFeed {
  accepts(type: string): boolean;
  apply(delivery: TestCaseDelivery): Promise<TestFeedOutcome>;
}

export function createTestFeed(d: TestFeedDeps): TestFeed {
  const watches = new TestWatchRepository(d.db);
  const messages = new FeedMessageRepository(d.db);
  const { leases } = d;
  const leaseMs = d.leaseMs ?? 60_000;
  const links = { appUrl: d.appUrl };

  function ownerMentions(test: TestCaseInfo, all: Map<string, string[]>): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const owner of test.codeowners) {
      const m = all.get(owner.toLowerCase());
      if (m && m.length > 0) out[owner.toLowerCase()] = m;
    }
    return out;
  }

  async function failureRate(workspaceId: string, testId: string): Promise<number | undefined> {
    try {
      const rate = (await d.metrics(workspaceId, testId))?.failureRate;
      return typeof rate === 'number' && Number.isFinite(rate) ? rate : undefined;
    } catch (err) {
      d.logger.warn(
        { err, workspace: workspaceId },
        'could not read a test failure rate; posting without it',
      );
      return undefined;
    }
  }

  /**
   * Runs `post` for one (delivery, channel) at most once across replicas. 'done' when posted now or before,
   * 'deferred' when Slack did not take it for now (or another replica is posting it).
   */
  async function once(
    delivery: TestCaseDelivery,
    channelId: string,
    post: () => Promise<{ ok: true; ts?: string } | { ok: false; final: boolean; code: string }>,
    after: (ts: string | undefined) => Promise<void>,
  ): Promise<'done' | 'deferred'> {
    const hold = {
      kind: POST_LEASE,
      key: `${delivery.workspaceId}|${delivery.deliveryId}|${channelId}`,
      holder: d.replicaId,
    };
    const claim = await leases.claim({
      ...hold,
      workspaceId: delivery.workspaceId,
      ttlMs: leaseMs,
      now: d.now(),
    });
    if (!claim.acquired) return claim.lease?.state === 'finished' ? 'done' : 'deferred';
    const result = await post();
    if (result.ok) {
      // Finished first: whatever happens next, this channel never gets the post twice.
      await leases.finish({ ...hold, fence: claim.fence, now: d.now(), result: 'sent' });
      await after(result.ts).catch((err: unknown) =>
        d.logger.warn({ err, channel: channelId }, 'posted a test feed message but could not remember it'),
      );
      return 'done';
    }
    if (result.final) {
      d.logger.warn(
        { slackError: result.code, workspace: delivery.workspaceId, channel: channelId },
        'Slack refused a test feed post for good',
      );
      await leases.finish({ ...hold, fence: claim.fence, now: d.now(), result: `failed:${result.code}` });
      return 'done';
    }
    await leases.release({ ...hold, fence: claim.fence });
    return 'deferred';
  }

  async function applyStatus(
    delivery: TestCaseDelivery,
    e: Extract<TestCaseEvent, { kind: 'status' }>,
  ): Promise<TestFeedOutcome> {
    const { workspaceId } = delivery;
    const targets = await watches.matching(workspaceId, e.test, e.repo);
    if (targets.length === 0) return 'ignored';
    const [mentions, rate, v2] = await Promise.all([
      d.mentions(workspaceId),
      failureRate(workspaceId, e.test.id),
      d.hasV2Key(workspaceId),
    ]);
    const card: TestCard = {
      test: e.test,
      newStatus: e.newStatus,
      mentions: ownerMentions(e.test, mentions),
      v2,
      at: delivery.occurredAt,
      ...(e.repo ? { repo: e.repo } : {}),
      ...(e.previousStatus ? { previousStatus: e.previousStatus } : {}),
      ...(rate !== undefined ? { failureRate: rate } : {}),
    };
    const message = d.surface.renderStatus(card, links);
    const deferred: string[] = [];
    let stale = 0;
    for (const w of targets) {
      const shown = await messages.get(workspaceId, w.channelId, e.test.id);
      if (shown && shown.statusAt > delivery.occurredAt) {
        stale++;
        continue;
      }
      const r = await once(
        delivery,
        w.channelId,
        () => d.notifier.post({ workspaceId, channel: w.channelId }, message, 'feed'),
        async (ts) => {
          if (ts)
            await messages.record(
              {
                workspaceId,
                channelId: w.channelId,
                testId: e.test.id,
                ts,
                statusAt: delivery.occurredAt,
                card,
              },
              d.now(),
            );
        },
      );
      if (r === 'deferred') deferred.push(w.channelId);
    }
    if (deferred.length > 0) throw new TestFeedPostDeferred(deferred);
    return stale === targets.length ? 'stale' : 'applied';
  }

  /** Investigation summaries and monitor changes: in the thread of each watching channel's last message. */
  async function applyThreaded(
    delivery: TestCaseDelivery,
    e: Exclude<TestCaseEvent, { kind: 'status' }>,
  ): Promise<TestFeedOutcome> {
    const { workspaceId } = delivery;
    const targets = await watches.matching(workspaceId, e.test, e.repo);
    const deferred: string[] = [];
    let posted = 0;
    for (const w of targets) {
      const shown = await messages.get(workspaceId, w.channelId, e.test.id);
      // A monitor's change only adds to a status message; without one it says nothing new.
      if (e.kind === 'monitor' && !shown) continue;
      const message =
        e.kind === 'investigation'
          ? d.surface.renderInvestigation(
              { test: e.test, ...(e.repo ? { repo: e.repo } : {}) },
              e.summary,
              links,
              !!shown,
            )
          : d.surface.renderMonitor(
              { test: e.test },
              {
                ...(e.monitorType ? { type: e.monitorType } : {}),
                ...(e.monitorStatus ? { status: e.monitorStatus } : {}),
              },
            );
      posted++;
      const r = await once(
        delivery,
        w.channelId,
        () =>
          d.notifier.post(
            { workspaceId, channel: w.channelId, ...(shown ? { threadTs: shown.ts } : {}) },
            message,
            'feed',
          ),
        async () => {},
      );
      if (r === 'deferred') deferred.push(w.channelId);
    }
    if (deferred.length > 0) throw new TestFeedPostDeferred(deferred);
    return posted > 0 ? 'applied' : 'ignored';
  }

  return {
    accepts: (type) => (TEST_CASE_EVENT_TYPES as readonly string[]).includes(type),
    async apply(delivery) {
      const e = readTestCaseEvent(delivery.type, delivery.payload);
      if (!e) return 'ignored';
      return e.kind === 'status' ? applyStatus(delivery, e) : applyThreaded(delivery, e);
    },
  };
}
