/**
 * The tests service: `/mergequeue flaky|quarantined` as `(actor, request) → TestsAnswer`. Reading is for
 * everyone; the repository is the one named, else the queue the channel or workspace defaults to.
 */
import type { RepoRef } from '../core/target.ts';
import {
  type FlakySummary,
  type QuarantinedSummary,
  summarizeFailingTests,
  summarizeQuarantinedTests,
} from '../queue/summaries.ts';
import type { Actor } from './actor.ts';
import type { QueueService } from './queue.ts';

/**
 * A listing answers with what it read by this long after it starts, marked incomplete: Slack's people
 * wait for an answer, and five pages each retried with backoff behind a busy budget could take longer
 * than they wait (the soak's window is 15 s).
 */
export const LISTING_DEADLINE_MS = 8_000;

export interface TestsRequest {
  kind: 'flaky' | 'quarantined';
  channelId: string;
  repo?: RepoRef;
}

export type TestsAnswer =
  | { answer: 'no_target' }
  | { answer: 'not_connected' }
  /** The workspace's Trunk connection names no organization, which test listings need. */
  | { answer: 'no_org_slug' }
  | { answer: 'flaky'; summary: FlakySummary; orgSlug: string }
  | { answer: 'quarantined'; summary: QuarantinedSummary; orgSlug: string }
  | { answer: 'read_failed'; error: unknown };

export interface TestsService {
  summary(actor: Actor, request: TestsRequest): Promise<TestsAnswer>;
}

export function createTestsService(queue: QueueService): TestsService {
  return {
    async summary(actor, r) {
      const started = Date.now();
      const located = await queue.locate(actor, r.channelId, r.repo ? { repo: r.repo } : undefined);
      if (located.answer !== 'located') return located;
      const { ref, trunk } = located;
      if (!trunk.orgSlug) return { answer: 'no_org_slug' };
      const opts = {
        repo: ref.repo,
        orgSlug: trunk.orgSlug,
        now: actor.now,
        deadlineAt: started + LISTING_DEADLINE_MS,
      };
      try {
        return r.kind === 'flaky'
          ? { answer: 'flaky', summary: await summarizeFailingTests(trunk.api, opts), orgSlug: trunk.orgSlug }
          : {
              answer: 'quarantined',
              summary: await summarizeQuarantinedTests(trunk.api, opts),
              orgSlug: trunk.orgSlug,
            };
      } catch (error) {
        return { answer: 'read_failed', error };
      }
    },
  };
}
