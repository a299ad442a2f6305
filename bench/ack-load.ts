/**
 * Load generator for bench/ack.bench.ts, run as its own process (fork with IPC) so that sending load
 * does not share a CPU core's event loop with the app under test or the fakes. For each job it sends
 * `count` signed /mergequeue commands, `concurrency` at a time, and reports every ack's latency.
 *
 * Connections stay warm, as Slack's do: one keep-alive agent for every job, and between jobs a `warm`
 * message makes it touch each open connection (GET /healthz, `connections` at once) every WARM_EVERY_MS,
 * well inside the server's keep-alive timeout (Node's default 5 s, which Bolt's HTTPReceiver keeps; undici
 * drops an idle connection 2 s before the server's hint, so after 3 s). Without it, every pause longer
 * than 3 s meant each measured round opened its connections anew.
 */
import { Agent, request } from 'undici';
import { signedHeaders, slashCommandBody } from '../dev/fakes/slack/signing.ts';

export interface LoadJob {
  url: string;
  signingSecret: string;
  text: string;
  count: number;
  concurrency: number;
  /** One response_url per command (made by the fake Slack in the parent). */
  responseUrls: string[];
  channels?: string[];
}

/** Keep `connections` connections to each of `urls` warm until the next `warm` message (empty: stop). */
export interface WarmJob {
  warm: { urls: string[]; connections: number };
}

export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<string, number>;
  elapsedMs: number;
  /** TCP connections the generator opened (to any server) while this job ran. */
  connectionsOpened: number;
}

const WARM_EVERY_MS = 1_000;

/**
 * At most this many connections to one server (the fork's argument: the benchmark's commands in flight),
 * as Slack keeps a bounded pool: a request waits a moment for a connection rather than opening one more.
 */
const connections = Number(process.argv[2] ?? 256);
const agent = new Agent({ connections, keepAliveTimeout: 30_000 });
let opened = 0;
agent.on('connect', () => {
  opened++;
});

/** URLs being measured now: warm-up pings leave them alone so they do not mix with the load. */
const busy = new Set<string>();
let warm: WarmJob['warm'] = { urls: [], connections: 0 };
let pinging = false;
const pinger = setInterval(() => {
  if (pinging) return;
  pinging = true;
  const targets = warm.urls.filter((u) => !busy.has(u));
  void Promise.all(
    targets.flatMap((url) =>
      Array.from({ length: warm.connections }, () =>
        request(`${url}/healthz`, { method: 'GET', dispatcher: agent }).then(
          (res) => res.body.dump(),
          () => undefined,
        ),
      ),
    ),
  ).finally(() => {
    pinging = false;
  });
}, WARM_EVERY_MS);

async function run(job: LoadJob): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const openedBefore = opened;
  busy.add(job.url);
  const started = performance.now();
  const worker = async () => {
    while (next < job.count) {
      const i = next++;
      const body = slashCommandBody({
        teamId: 'T0DEFAULT',
        userId: 'UADMIN0001',
        channelId: job.channels?.[i % job.channels.length] ?? 'C0BENCH001',
        text: job.text,
        responseUrl: job.responseUrls[i % job.responseUrls.length]!,
      });
      const headers = signedHeaders(job.signingSecret, body);
      const t0 = performance.now();
      try {
        const res = await request(`${job.url}/slack/events`, {
          method: 'POST',
          headers,
          body,
          dispatcher: agent,
        });
        await res.body.dump();
        latenciesMs.push(performance.now() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      } catch {
        latenciesMs.push(performance.now() - t0);
        statuses['error'] = (statuses['error'] ?? 0) + 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: job.concurrency }, worker));
  } finally {
    busy.delete(job.url);
  }
  return {
    latenciesMs,
    statuses,
    elapsedMs: performance.now() - started,
    connectionsOpened: opened - openedBefore,
  };
}

process.on('message', (msg: LoadJob | WarmJob) => {
  if ('warm' in msg) {
    warm = msg.warm;
    process.send?.({ ok: true });
    return;
  }
  run(msg).then(
    (result) => process.send?.(result),
    (err: unknown) => process.send?.({ error: String(err) }),
  );
});
process.on('disconnect', () => {
  clearInterval(pinger);
  void agent.close().finally(() => process.exit(0));
});
