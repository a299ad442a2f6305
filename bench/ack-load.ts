/**
 * Load generator for bench/ack.bench.ts, run as its own process (fork with IPC) so that sending load
 * does not share a CPU core's event loop with the app under test or the fakes. For each job it sends
 * `count` signed /mergequeue commands, `concurrency` at a time, and reports every ack's latency.
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

export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<string, number>;
  elapsedMs: number;
}

const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });

async function run(job: LoadJob): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
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
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  return { latenciesMs, statuses, elapsedMs: performance.now() - started };
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.(result),
    (err: unknown) => process.send?.({ error: String(err) }),
  );
});
process.on('disconnect', () => {
  void agent.close().finally(() => process.exit(0));
});
