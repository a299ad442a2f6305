/**
 * The Trunk fake's v2 side over queues that move on their own: a PR's history follows what happened to it,
 * with the reasons Trunk gives, so the sandbox and the watcher's tests read stories without setting them.
 */
import { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startTrunkFake } from '../../../dev/fakes/trunk/index.ts';
import { apiKeyAuth } from '../../../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../../../src/trunk/v2/client.ts';
import { v2RequestErrors } from '../../trunk/openapi-v2.ts';

const agent = new Agent();
afterAll(() => agent.close());

describe('Trunk fake, v2 over moving queues', () => {
  it('a PR that failed its tests has pending → testing → failed with a failing required check', async () => {
    let t = Date.UTC(2026, 10, 20, 9);
    const fake = await startTrunkFake({
      now: () => (t += 1_000),
      activity: { seed: 7, rates: { failShare: 1, cancelShare: 0 } },
    });
    try {
      fake.addQueue('acme/web', 'main', { concurrency: 2, requiredStatuses: ['ci/unit'] });
      fake.v2.setKeys({ trunk_v2_k: [] });
      const events = fake.activity!.advance(80);
      const failed = events.find(
        (e) => e.kind === 'failed' && events.some((x) => x.kind === 'testing' && x.prNumber === e.prNumber),
      );
      expect(failed).toBeDefined();
      const api = createTrunkV2Client({
        baseUrl: fake.url,
        auth: apiKeyAuth('trunk_v2_k'),
        dispatcher: agent,
      });
      const history = await api.queueEntryHistory(fake.v2.pullRequestId('acme/web', failed!.prNumber!));
      expect(history.map((h) => h.state)).toEqual(['pending', 'testing', 'failed']);
      expect(history.at(-1)).toMatchObject({ reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
      expect(history.at(-1)?.failed?.failureCausingChecks[0]).toMatchObject({
        name: 'ci/unit',
        conclusion: 'failure',
      });
      expect(fake.requests.flatMap((r) => v2RequestErrors(r.method, r.path))).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
