/**
 * Digest collection over many pages. Wall time of 20,000 failing tests (200 pages) with the Trunk fake
 * adding 20 ms a page, beside its floor (pages follow tokens, so they cannot be fetched in parallel);
 * and peak memory of the collector for 2,000 and 20,000 tests. The collector runs in a child process
 * (this same file, with --collector) so the fake's memory is not counted.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startTrunkFake } from '../dev/fakes/trunk/index.ts';
import { collectFailing } from '../src/digest/collect.ts';
import { apiTokenAuth } from '../src/trunk/auth.ts';
import { createTrunkClient } from '../src/trunk/client.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const SCHEDULED = Date.parse('2026-11-02T09:00:00Z');
const PAGE_MS = 20;
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const WARM_REPO = { host: 'github.com', owner: 'acme', name: 'warm-up' };

interface ChildResult {
  wallMs: number;
  total: number;
  peakRssBytes: number;
}

/** Child side: collect once from the fake at `url`, print figures as JSON. */
async function collector(url: string): Promise<void> {
  const trunk = {
    api: createTrunkClient({ baseUrl: url, auth: apiTokenAuth('bench-token') }),
    orgSlug: 'acme',
  };
  // Warm-up on a small repository, so the figure is steady-state paging rather than module loading and JIT.
  await collectFailing(trunk, SCHEDULED, { repo: WARM_REPO, topN: 10 });
  const t0 = performance.now();
  const c = await collectFailing(trunk, SCHEDULED, { repo: REPO, topN: 10 });
  const wallMs = performance.now() - t0;
  const result: ChildResult = {
    wallMs,
    total: c.total,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(url: string): Promise<ChildResult> {
  const file = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, '--collector', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.on('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`collector exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
}

async function measure(count: number): Promise<ChildResult> {
  const fake = await startTrunkFake({ tokens: ['bench-token'], now: () => SCHEDULED });
  try {
    // Rows are built up front (in this process, not the measured one) so that the fake's own row
    // generation is not on the critical path of every page.
    fake.generateFailingTests(REPO, count, {
      seed: 42,
      lazy: false,
      start: SCHEDULED - 24 * 3_600_000,
      end: SCHEDULED,
    });
    fake.generateFailingTests(WARM_REPO, 1_000, {
      seed: 7,
      lazy: true,
      start: SCHEDULED - 24 * 3_600_000,
      end: SCHEDULED,
    });
    fake.setLatency({ listFailingTests: PAGE_MS });
    const r = await runChild(fake.url);
    if (r.total !== count) throw new Error(`collected ${r.total} tests, expected ${count}`);
    return r;
  } finally {
    await fake.close();
  }
}

export const benchmark: Benchmark = {
  name: 'digest-pagination',
  description: 'digest collector: 200 pages at 20 ms each vs the floor; peak memory 2,000 vs 20,000 tests',
  async run(): Promise<BenchFigure[]> {
    // Best of two runs each: the machine is shared, and a figure should not hinge on one busy moment.
    const best = (a: ChildResult, b: ChildResult): ChildResult => ({
      wallMs: Math.min(a.wallMs, b.wallMs),
      total: a.total,
      peakRssBytes: Math.min(a.peakRssBytes, b.peakRssBytes),
    });
    const small = best(await measure(2_000), await measure(2_000));
    const large = best(await measure(20_000), await measure(20_000));
    const floor = (20_000 / 100) * PAGE_MS;
    const ratio = large.wallMs / floor;
    const memRatio = large.peakRssBytes / small.peakRssBytes;
    const mb = (b: number) => b / 1024 / 1024;
    return [
      { id: 'digest.pagination.20k.wall', value: large.wallMs, unit: 'ms', target: '', ok: true },
      { id: 'digest.pagination.20k.floor', value: floor, unit: 'ms', target: '200 pages x 20 ms', ok: true },
      {
        id: 'digest.pagination.20k.wall_vs_floor',
        value: ratio,
        unit: 'x',
        target: '<= 1.15x floor',
        ok: ratio <= 1.15,
      },
      {
        id: 'digest.pagination.2k.peak_rss',
        value: mb(small.peakRssBytes),
        unit: 'MiB',
        target: '',
        ok: true,
      },
      {
        id: 'digest.pagination.20k.peak_rss',
        value: mb(large.peakRssBytes),
        unit: 'MiB',
        target: '',
        ok: true,
      },
      {
        id: 'digest.pagination.peak_rss_20k_vs_2k',
        value: memRatio,
        unit: 'x',
        target: '< 1.25x',
        ok: memRatio < 1.25,
      },
    ];
  },
};

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === '--collector'
) {
  await collector(process.argv[3] ?? '');
}
