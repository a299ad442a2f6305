/**
 * Ten digests of one repository due in the same minute should cost one pagination (the shared digest
 * collection of issue 12). The app runs in this process (the test harness) with its scheduler on and its
 * clock shifted so the minute comes at once; the Trunk fake holds 1,000 failing tests of the repository
 * and counts the listFailingTests pages fetched. Baseline: the same repository, one digest, in a fresh app.
 */
import { startHarness, TEAM } from '../test/helpers/app-harness.ts';
import { addDueDigests, nextMinute } from './due-digests.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const REPO = { host: 'github.com', owner: 'acme', name: 'monorepo' };
const TESTS = 1_000;

async function pagesFor(digests: number): Promise<{ pages: number; posted: number }> {
  const due = nextMinute(Date.now(), 5 * 60_000);
  // The app's clock reads one second before `due` now, so the minute falls due at the next tick.
  const offset = due - Date.now() - 1_000;
  const h = await startHarness({
    env: { SCHEDULER_ENABLED: 'true' },
    app: { clock: () => Date.now() + offset, digest: { tickCron: '* * * * * *', paceMs: 0 }, watch: false },
  });
  try {
    h.trunk.generateFailingTests(REPO, TESTS, { seed: 3, lazy: true, start: due - 20 * 3_600_000, end: due });
    const channels = Array.from({ length: digests }, (_, i) => `C0TEAM${String(i).padStart(4, '0')}`);
    await addDueDigests(h.app!.store.db, { workspaceId: TEAM, repo: REPO, channels, due });
    const headers = () =>
      h.slack.messages.filter((m) => m.via === 'api' && !m.threadTs && channels.includes(m.channel));
    await h.slack.waitFor(() => headers().length >= digests || undefined, 60_000);
    await new Promise((r) => setTimeout(r, 1_500)); // a straggling page would still be counted
    return { pages: h.trunkCalls('listFailingTests').length, posted: headers().length };
  } finally {
    await h.close();
  }
}

export const benchmark: Benchmark = {
  name: 'digest-shared',
  description: `listFailingTests pages fetched for 10 digests of one repository due in one minute vs for 1 (${TESTS} failing tests)`,
  async run(): Promise<BenchFigure[]> {
    const one = await pagesFor(1);
    const ten = await pagesFor(10);
    console.log(
      `  1 digest: ${one.pages} pages (${one.posted} posted); 10 digests: ${ten.pages} pages (${ten.posted} posted)`,
    );
    const ratio = ten.pages / one.pages;
    return [
      { id: 'digest.shared.1x.pages', value: one.pages, unit: 'count', target: '', ok: one.posted === 1 },
      { id: 'digest.shared.10x.pages', value: ten.pages, unit: 'count', target: '', ok: ten.posted === 10 },
      {
        id: 'digest.shared.10x_vs_1x.pages',
        value: ratio,
        unit: 'x',
        target: '= 1x one pagination',
        ok: ten.pages === one.pages,
      },
    ];
  },
};
