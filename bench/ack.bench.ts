/**
 * Ack latency of `/mergequeue status` over HTTP while Trunk takes 2 s to answer, against a bare Bolt
 * app that only acks (it verifies signatures and writes nothing), measured in the same run and alternating
 * between the two. The app and the bare app each run as their own process, the load generator as a third
 * (bench/ack-load.ts); the fake Slack and fake Trunk live in this process. Connections stay warm as Slack
 * keeps them (ack-load.ts): no measured round starts by opening connections.
 *
 * `ack.*`: the app with its loops off (SCHEDULER_ENABLED=false), as this benchmark always measured it; also
 * commands per second with Trunk answering at once and the whole round trip (ack, Trunk call, status
 * posted) complete, and the app process's peak RSS.
 * `ack.with_background.*`: the same load while the app's loops work (bench/ack-background.ts: 20 watched
 * queues changing every 2 s with feeds and live status messages, digests falling due), against the bare
 * app again in the same rounds, with counts of the feed posts, live redraws and digest posts Slack received
 * during the measured rounds. `npm run bench -- ack --ack-roles` measures it with a web replica and a
 * worker replica on PostgreSQL instead of the one embedded process; `--ack-profile` writes the quiet app's
 * CPU profile.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SlackFake, startSlackFake } from '../dev/fakes/slack/server.ts';
import { startTrunkFake, type TrunkFake } from '../dev/fakes/trunk/index.ts';
import { type Child, startChild, stopChild } from '../test/helpers/processes.ts';
import { type Background, type BackgroundMode, startBackground } from './ack-background.ts';
import type { LoadJob, LoadResult, WarmJob } from './ack-load.ts';
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

function load(gen: ChildProcess, job: LoadJob): Promise<LoadResult>;
function load(gen: ChildProcess, job: WarmJob): Promise<unknown>;
function load(gen: ChildProcess, job: LoadJob | WarmJob): Promise<unknown> {
  return new Promise((resolve, reject) => {
    gen.once('message', (m: LoadResult | { error: string }) =>
      'error' in m ? reject(new Error(m.error)) : resolve(m),
    );
    gen.send(job);
  });
}

/** CPU time (user + system, ms) the process has used so far, from /proc; NaN where there is none. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

interface Rounds {
  appLat: number[];
  bareLat: number[];
  non200: number;
  /** [start, end] (epoch ms) of each round sent to the app. */
  appWindows: Array<[number, number]>;
  /** Connections the generator opened during measured rounds (warm connections: about 0). */
  connectionsOpened: number;
  /** CPU time each process used from the first round to the end of the last pause, per command sent to it. */
  appCpuPerCommand: number;
  bareCpuPerCommand: number;
  /** CPU time each process used inside its own rounds only, per command: what an ack waits behind. */
  appCpuInRounds: number;
  bareCpuInRounds: number;
}

/**
 * ROUNDS × PER_ROUND commands to each of `app` and `bare`, alternating which goes first so drift affects
 * both alike, with a pause after each pair so the app finishes the round's slow Trunk calls.
 */
async function alternate(
  gen: ChildProcess,
  job: (url: string, secret: string, count: number) => LoadJob,
  app: { url: string; secret: string; pid: number | undefined },
  bare: { url: string; secret: string; pid: number | undefined },
): Promise<Rounds> {
  const out: Rounds = {
    appLat: [],
    bareLat: [],
    non200: 0,
    appWindows: [],
    connectionsOpened: 0,
    appCpuPerCommand: 0,
    bareCpuPerCommand: 0,
    appCpuInRounds: 0,
    bareCpuInRounds: 0,
  };
  const cpu0 = [cpuMs(app.pid), cpuMs(bare.pid)];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['app', 'bare'] as const) : (['bare', 'app'] as const);
    for (const which of order) {
      const target = which === 'app' ? app : bare;
      const from = Date.now();
      const cpuFrom = cpuMs(target.pid);
      const res = await load(gen, job(target.url, target.secret, PER_ROUND));
      const cpu = (cpuMs(target.pid) - cpuFrom) / (ROUNDS * PER_ROUND);
      if (which === 'app') out.appCpuInRounds += cpu;
      else out.bareCpuInRounds += cpu;
      if (which === 'app') out.appWindows.push([from, Date.now()]);
      (which === 'app' ? out.appLat : out.bareLat).push(...res.latenciesMs);
      out.connectionsOpened += res.connectionsOpened;
      for (const [code, n] of Object.entries(res.statuses)) if (code !== '200') out.non200 += n;
    }
    await new Promise((res) => setTimeout(res, TRUNK_LATENCY_MS + 1_000));
  }
  out.appCpuPerCommand = (cpuMs(app.pid) - cpu0[0]!) / (ROUNDS * PER_ROUND);
  out.bareCpuPerCommand = (cpuMs(bare.pid) - cpu0[1]!) / (ROUNDS * PER_ROUND);
  out.appLat.sort((a, b) => a - b);
  out.bareLat.sort((a, b) => a - b);
  return out;
}

/** The latency figures of one set of rounds, named `prefix.…` (`ack` keeps its historical names). */
function latencyFigures(prefix: string, r: Rounds, appName: string): BenchFigure[] {
  const p50 = percentile(r.appLat, 50);
  const p99 = percentile(r.appLat, 99);
  const b50 = percentile(r.bareLat, 50);
  const b99 = percentile(r.bareLat, 99);
  const each = Math.min(r.appLat.length, r.bareLat.length);
  return [
    { id: `${prefix}.${appName}.p50`, value: p50, unit: 'ms', target: '', ok: true },
    { id: `${prefix}.${appName}.p99`, value: p99, unit: 'ms', target: '< 500 ms', ok: p99 < 500 },
    { id: `${prefix}.bare_bolt.p50`, value: b50, unit: 'ms', target: 'baseline', ok: true },
    { id: `${prefix}.bare_bolt.p99`, value: b99, unit: 'ms', target: 'baseline', ok: true },
    {
      id: `${prefix}.p50_ratio_vs_bare`,
      value: p50 / b50,
      unit: 'x',
      target: '<= 1.5x bare',
      ok: p50 / b50 <= 1.5,
    },
    {
      id: `${prefix}.p99_ratio_vs_bare`,
      value: p99 / b99,
      unit: 'x',
      target: '<= 1.5x bare',
      ok: p99 / b99 <= 1.5,
    },
    // Under a busy CPU an ack waits behind all the work queued on the loop: this is what that work costs.
    {
      id: `${prefix}.cpu_ms_per_command.${appName}`,
      value: r.appCpuPerCommand,
      unit: 'ms',
      target: '',
      ok: true,
    },
    {
      id: `${prefix}.cpu_ms_per_command.bare_bolt`,
      value: r.bareCpuPerCommand,
      unit: 'ms',
      target: '',
      ok: true,
    },
    {
      id: `${prefix}.cpu_ms_per_command_in_rounds.${appName}`,
      value: r.appCpuInRounds,
      unit: 'ms',
      target: '',
      ok: true,
    },
    {
      id: `${prefix}.cpu_ms_per_command_in_rounds.bare_bolt`,
      value: r.bareCpuInRounds,
      unit: 'ms',
      target: '',
      ok: true,
    },
    {
      id: `${prefix}.commands_measured_each`,
      value: each,
      unit: 'count',
      target: '>= 1000',
      ok: each >= 1_000,
    },
  ];
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
  const mode: BackgroundMode = process.argv.includes('--ack-roles') ? 'roles' : 'embedded';
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
    // Trunk's own limit: this benchmark measures acks and the app's work, not the budget (trunk-budget does).
    // At the default 10, nothing overdraws the budget any more, so most of a burst is told Trunk is busy.
    TRUNK_MAX_RPS: '100',
  };
  // --ack-profile: the quiet app and the one answering beside background work each write a V8 CPU profile
  // (.cpuprofile) to bench/results/ when they stop.
  const profile = process.argv.includes('--ack-profile')
    ? { args: ['--cpu-prof', `--cpu-prof-dir=${join(here, 'results')}`] }
    : {};
  let app: Child | undefined = await startChild(env, profile);
  const bare = await startChild(env, { script: join(here, 'ack-bare-app.ts') });
  const gen = fork(join(here, 'ack-load.ts'), [String(IN_FLIGHT)], {
    execPath: process.execPath,
    stdio: 'inherit',
  });
  let background: Background | undefined;
  try {
    const urls = (n: number) =>
      Array.from({ length: n }, () => slack.responseUrl({ channel: 'C0BENCH001', user: 'UADMIN0001' }));
    const job = (url: string, secret: string, count: number): LoadJob => ({
      url,
      signingSecret: secret,
      text: 'status',
      count,
      concurrency: IN_FLIGHT,
      responseUrls: urls(count),
    });
    const warm = (list: string[]) => load(gen, { warm: { urls: list, connections: IN_FLIGHT } });
    const appAt = { url: (app as Child & { url: string }).url, secret: signingSecret, pid: app.child.pid };
    const bareAt = { url: bare.url, secret: signingSecret, pid: bare.child.pid };

    // Warm both (JIT, auth.test, first store reads, the connections) before anything is measured.
    trunk.setLatency(0);
    await load(gen, job(appAt.url, signingSecret, 100));
    await load(gen, job(bareAt.url, signingSecret, 100));
    await warm([appAt.url, bareAt.url]);

    // Ack latency with a slow Trunk.
    trunk.setLatency(TRUNK_LATENCY_MS);
    const quiet = await alternate(gen, job, appAt, bareAt);

    // Throughput: Trunk answers at once; a command is done when its status message reached Slack.
    trunk.setLatency(0);
    await new Promise((res) => setTimeout(res, 1_000));
    // A command is answered by its status message, or (when the budget turned it away) through its
    // response_url: either way the person has their answer.
    const answered = () => slack.callsTo('chat.postMessage').length + slack.responsePosts.length;
    const postsBefore = answered();
    const t0 = performance.now();
    const tp = await load(gen, job(appAt.url, signingSecret, THROUGHPUT_COMMANDS));
    await slack.waitFor(() => answered() - postsBefore >= THROUGHPUT_COMMANDS, 120_000);
    const cps = THROUGHPUT_COMMANDS / ((performance.now() - t0) / 1000);
    const tpErrors = Object.entries(tp.statuses)
      .filter(([c]) => c !== '200')
      .reduce((n, [, v]) => n + v, 0);
    const rss = peakRssMb(app.child.pid);
    await warm([bareAt.url]);
    await stopChild(app.child);
    app = undefined;

    // The same load while the app's loops work beside it.
    background = await startBackground({
      mode,
      slack,
      trunk,
      dir,
      env,
      ...('args' in profile ? { nodeArgs: profile.args } : {}),
    });
    const bgAt = {
      url: background.url,
      secret: background.signingSecret,
      pid: background.answering.child.pid,
    };
    await load(gen, job(bgAt.url, bgAt.secret, 100));
    await warm([bgAt.url, bareAt.url]);
    await background.startMeasuring();
    trunk.setLatency(TRUNK_LATENCY_MS);
    const busy = await alternate(gen, job, bgAt, bareAt);
    const seen = background.countDuring(busy.appWindows);
    const seconds = busy.appWindows.reduce((n, [a, b]) => n + (b - a), 0) / 1000;
    console.log(
      `  with background (${mode}): ${busy.appWindows.length} measured rounds, ${seconds.toFixed(1)} s in all; ` +
        `from the first to the last Slack got ${seen.feedPosts} feed posts, ${seen.liveRedraws} live redraws and ${seen.digestPosts} digest posts (inside the app's rounds: ${seen.feedPostsInRounds} and ${seen.liveRedrawsInRounds})`,
    );

    const non200 = quiet.non200 + tpErrors;
    return [
      ...latencyFigures('ack', quiet, 'status.trunk2s'),
      { id: 'ack.non_200_answers', value: non200, unit: 'count', target: '= 0', ok: non200 === 0 },
      {
        id: 'ack.connections_opened_measuring',
        value: quiet.connectionsOpened,
        unit: 'count',
        target: '',
        ok: true,
      },
      { id: 'status.round_trip.trunk0', value: cps, unit: 'cmd/s', target: '', ok: true },
      { id: 'app.peak_rss', value: rss, unit: 'MB', target: '', ok: true },
      ...latencyFigures('ack.with_background', busy, mode === 'roles' ? 'roles_web.status' : 'status'),
      {
        id: 'ack.with_background.non_200_answers',
        value: busy.non200,
        unit: 'count',
        target: '= 0',
        ok: busy.non200 === 0,
      },
      {
        id: 'ack.with_background.connections_opened_measuring',
        value: busy.connectionsOpened,
        unit: 'count',
        target: '',
        ok: true,
      },
      // The background work kept posting while the commands were measured (from the first measured round
      // to the last), not only before or after; also how much of it fell inside the app's own rounds.
      {
        id: 'ack.with_background.feed_posts_during_load',
        value: seen.feedPosts,
        unit: 'count',
        target: '> 0',
        ok: seen.feedPosts > 0,
      },
      {
        id: 'ack.with_background.live_redraws_during_load',
        value: seen.liveRedraws,
        unit: 'count',
        target: '> 0',
        ok: seen.liveRedraws > 0,
      },
      {
        id: 'ack.with_background.feed_posts_inside_app_rounds',
        value: seen.feedPostsInRounds,
        unit: 'count',
        target: '',
        ok: true,
      },
      {
        id: 'ack.with_background.live_redraws_inside_app_rounds',
        value: seen.liveRedrawsInRounds,
        unit: 'count',
        target: '',
        ok: true,
      },
      {
        id: 'ack.with_background.digest_posts_during_load',
        value: seen.digestPosts,
        unit: 'count',
        target: '> 0',
        ok: seen.digestPosts > 0,
      },
    ];
  } finally {
    gen.disconnect();
    await background?.stop();
    if (app) await stopChild(app.child);
    await stopChild(bare.child);
    await slack.close();
    await trunk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const benchmark: Benchmark = {
  name: 'ack',
  description: `Ack latency of /mergequeue status (Trunk answering after ${TRUNK_LATENCY_MS / 1000} s), ${IN_FLIGHT} in flight, warm connections, vs a bare Bolt app: loops off, then loops working (watched queues, feeds, live redraws, digests); round-trip throughput; peak RSS`,
  run: measure,
};
