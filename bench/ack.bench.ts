/**
 * Ack latency of `/mergequeue status` over HTTP while Trunk takes 2 s to answer, against a bare Bolt
 * app that only acks, measured in the same run and alternating between the two. The app and the bare
 * app each run as their own process, the load generator as a third (bench/ack-load.ts); the fake Slack
 * and fake Trunk live in this process. Also: commands per second with Trunk answering at once and the
 * whole round trip (ack, Trunk call, status posted) complete, and the app process's peak RSS.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SlackFake, startSlackFake } from '../dev/fakes/slack/server.ts';
import { startTrunkFake, type TrunkFake } from '../dev/fakes/trunk/index.ts';
import { startChild, stopChild } from '../test/helpers/processes.ts';
import type { LoadJob, LoadResult } from './ack-load.ts';
import type { BenchFigure, Benchmark } from './types.ts';

const here = dirname(fileURLToPath(import.meta.url));

const ROUNDS = 6; // alternating app / bare; 6 × 200 = 1,200 commands each
const PER_ROUND = 200;
const IN_FLIGHT = 50;
const TRUNK_LATENCY_MS = 2_000;
const THROUGHPUT_COMMANDS = 1_000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function load(gen: ChildProcess, job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    gen.once('message', (m: LoadResult | { error: string }) =>
      'error' in m ? reject(new Error(m.error)) : resolve(m),
    );
    gen.send(job);
  });
}

function peakRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

async function measure(): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mq-bench-ack-'));
  const slack: SlackFake = await startSlackFake({
    users: [{ id: 'UADMIN0001', name: 'ada', isAdmin: true }],
  });
  const trunk: TrunkFake = await startTrunkFake({ tokens: ['bench-token'], maxRecorded: 1_000 });
  trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  const signingSecret = randomBytes(16).toString('hex');
  const env = {
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: slack.url,
    TRUNK_API_URL: trunk.url,
    TRUNK_API_TOKEN: 'bench-token',
    TRUNK_ORG_SLUG: 'acme',
    DEFAULT_REPO: 'acme/web:main',
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    // info: the start-up line carries the URL; the app logs nothing per request at this level.
    LOG_LEVEL: 'info',
    SCHEDULER_ENABLED: 'false',
  };
  const app = await startChild(env);
  const bare = await startChild(env, { script: join(here, 'ack-bare-app.ts') });
  const gen = fork(join(here, 'ack-load.ts'), [], { execPath: process.execPath, stdio: 'inherit' });
  try {
    const urls = (n: number) =>
      Array.from({ length: n }, () => slack.responseUrl({ channel: 'C0BENCH001', user: 'UADMIN0001' }));
    const job = (url: string, count: number): LoadJob => ({
      url,
      signingSecret,
      text: 'status',
      count,
      concurrency: IN_FLIGHT,
      responseUrls: urls(count),
    });

    // Warm both (JIT, auth.test, first store reads) before anything is measured.
    trunk.setLatency(0);
    await load(gen, job(app.url, 100));
    await load(gen, job(bare.url, 100));

    // Ack latency with a slow Trunk, alternating so drift affects both alike.
    trunk.setLatency(TRUNK_LATENCY_MS);
    const appLat: number[] = [];
    const bareLat: number[] = [];
    const bad: Record<string, number> = {};
    for (let r = 0; r < ROUNDS; r++) {
      const order: Array<[string, number[]]> =
        r % 2 === 0
          ? [
              [app.url, appLat],
              [bare.url, bareLat],
            ]
          : [
              [bare.url, bareLat],
              [app.url, appLat],
            ];
      for (const [url, into] of order) {
        const res = await load(gen, job(url, PER_ROUND));
        into.push(...res.latenciesMs);
        for (const [code, n] of Object.entries(res.statuses))
          if (code !== '200') bad[code] = (bad[code] ?? 0) + n;
      }
      // Let the app finish the round's slow Trunk calls so rounds stay comparable.
      await new Promise((res) => setTimeout(res, TRUNK_LATENCY_MS + 1_000));
    }
    appLat.sort((a, b) => a - b);
    bareLat.sort((a, b) => a - b);

    // Throughput: Trunk answers at once; a command is done when its status message reached Slack.
    trunk.setLatency(0);
    await new Promise((res) => setTimeout(res, 1_000));
    const postsBefore = slack.callsTo('chat.postMessage').length;
    const t0 = performance.now();
    const tp = await load(gen, job(app.url, THROUGHPUT_COMMANDS));
    await slack.waitFor(
      () => slack.callsTo('chat.postMessage').length - postsBefore >= THROUGHPUT_COMMANDS,
      120_000,
    );
    const cps = THROUGHPUT_COMMANDS / ((performance.now() - t0) / 1000);
    const tpErrors = Object.entries(tp.statuses)
      .filter(([c]) => c !== '200')
      .reduce((n, [, v]) => n + v, 0);
    const rss = peakRssMb(app.child.pid);

    const p50 = percentile(appLat, 50);
    const p99 = percentile(appLat, 99);
    const b50 = percentile(bareLat, 50);
    const b99 = percentile(bareLat, 99);
    const non200 = Object.values(bad).reduce((a, b) => a + b, 0) + tpErrors;
    return [
      { id: 'ack.status.trunk2s.p50', value: p50, unit: 'ms', target: '', ok: true },
      { id: 'ack.status.trunk2s.p99', value: p99, unit: 'ms', target: '< 500 ms', ok: p99 < 500 },
      { id: 'ack.bare_bolt.p50', value: b50, unit: 'ms', target: 'baseline', ok: true },
      { id: 'ack.bare_bolt.p99', value: b99, unit: 'ms', target: 'baseline', ok: true },
      {
        id: 'ack.p50_ratio_vs_bare',
        value: p50 / b50,
        unit: 'x',
        target: '<= 1.5x bare',
        ok: p50 / b50 <= 1.5,
      },
      {
        id: 'ack.p99_ratio_vs_bare',
        value: p99 / b99,
        unit: 'x',
        target: '<= 1.5x bare',
        ok: p99 / b99 <= 1.5,
      },
      {
        id: 'ack.commands_measured_each',
        value: Math.min(appLat.length, bareLat.length),
        unit: 'count',
        target: '>= 1000',
        ok: Math.min(appLat.length, bareLat.length) >= 1_000,
      },
      { id: 'ack.non_200_answers', value: non200, unit: 'count', target: '= 0', ok: non200 === 0 },
      { id: 'status.round_trip.trunk0', value: cps, unit: 'cmd/s', target: '', ok: true },
      { id: 'app.peak_rss', value: rss, unit: 'MB', target: '', ok: true },
    ];
  } finally {
    gen.disconnect();
    await stopChild(app.child);
    await stopChild(bare.child);
    await slack.close();
    await trunk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmark: Benchmark = {
  name: 'ack',
  description: `Ack latency of /mergequeue status (Trunk answering after ${TRUNK_LATENCY_MS / 1000} s), ${IN_FLIGHT} in flight, vs a bare Bolt app; round-trip throughput; peak RSS`,
  run: measure,
};
