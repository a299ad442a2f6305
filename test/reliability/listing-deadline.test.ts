/**
 * Issue 26, "a listing under faults still answers in time", through the real wire: `/mergequeue flaky` and
 * `/mergequeue quarantined` (and `prs`, the other listing of many pages) against a fake Trunk whose list pages come slowly (each page 3 s, 1,000 tests:
 * ten pages, five read at most). The listing answers with what it read by its deadline (LISTING_DEADLINE_MS
 * after it starts, well inside the 15 s people and the soak wait), says it is incomplete, and how to see
 * the rest; when not one page came in time it says Trunk did not answer in time. Before, each answered
 * only after all five pages, 15 s and more (and a page retried with backoff took longer still).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_DEADLINE_MS } from '../../src/services/tests.ts';
import { type Harness, startHarness } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';

const PAGE_MS = 3_000;
/** The deadline, plus the ack's and the reply's own time on a busy machine. */
const ANSWERED_WITHIN_MS = LISTING_DEADLINE_MS + 1_500;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  h.trunk.generateFailingTests('acme/web', 1_000, { seed: 26 });
  h.trunk.generateQuarantinedTests('acme/web', 1_000, { seed: 26 });
  h.trunk.addQueue('acme/many', 'main', { state: 'running' });
  for (let i = 0; i < 250; i++)
    h.trunk.enqueuePr('acme/many', 'main', { prNumber: 1000 + i, prAuthor: 'octocat', state: 'pending' });
}, 30_000);
afterAll(async () => h?.close());

async function timed(command: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const sent = await h.sendCommand(command);
  expect(sent.status).toBe(200);
  const reply = await h.reply(sent.responseUrl, 30_000);
  return { ms: performance.now() - t0, text: textOf(reply) };
}

describe('a listing whose Trunk pages come slowly', () => {
  it('flaky and quarantined answer by the deadline with what they read, marked incomplete', async () => {
    h.trunk.setLatency({ listFailingTests: PAGE_MS, listQuarantinedTests: PAGE_MS });
    try {
      const [flaky, quarantined] = await Promise.all([
        timed('flaky acme/web'),
        timed('quarantined acme/web'),
      ]);
      for (const [a, command] of [
        [flaky, 'flaky'],
        [quarantined, 'quarantined'],
      ] as const) {
        expect(a.ms).toBeLessThan(ANSWERED_WITHIN_MS);
        expect(a.ms).toBeGreaterThan(LISTING_DEADLINE_MS - 500);
        // Two pages of 100 arrive within 8 s at 3 s each; the third is left.
        expect(a.text).toContain('Incomplete');
        expect(a.text).toContain('Trunk was slow to answer');
        expect(a.text).toContain('only the first 200 tests');
        expect(a.text).toContain('https://app.trunk.example/acme/flaky-tests');
        expect(a.text).toContain(`/mergequeue ${command} acme/web`);
      }
      expect(flaky.text).toContain('Failing tests in acme/web');
      expect(quarantined.text).toContain('Quarantined tests in acme/web');
    } finally {
      h.trunk.setLatency(0);
      await h.idle();
    }
  }, 40_000);

  it('prs answers by the deadline with the PRs of the pages that came, marked incomplete', async () => {
    // Pages of 100 PRs 5 s apart: the first is read, the second is still on its way at the deadline.
    h.trunk.setLatency({ listPullRequests: 5_000 });
    try {
      const a = await timed('prs acme/many:main');
      expect(a.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect(a.text).toContain('PRs in acme/many:main');
      expect(a.text).toContain('At least 100 PRs');
      expect(a.text).toContain('Incomplete');
      expect(a.text).toContain('Trunk was slow to answer');
      expect(a.text).toContain('/mergequeue prs acme/many:main');
    } finally {
      h.trunk.setLatency(0);
      await h.idle();
    }
  }, 40_000);

  it('says Trunk did not answer in time when no page came by the deadline', async () => {
    h.trunk.setLatency({ listFailingTests: LISTING_DEADLINE_MS + 5_000 });
    try {
      const a = await timed('flaky acme/web');
      expect(a.ms).toBeLessThan(ANSWERED_WITHIN_MS);
      expect(a.text).toContain('Trunk did not answer in time');
    } finally {
      h.trunk.setLatency(0);
      await h.idle();
    }
  }, 40_000);

  it('answers in full, unmarked, when Trunk is quick', async () => {
    const a = await timed('flaky acme/web');
    expect(a.ms).toBeLessThan(5_000);
    expect(a.text).toContain('Failing tests in acme/web');
    expect(a.text).not.toContain('Incomplete');
    expect(a.text).toContain('top entries from the first 500 tests');
  });
});
