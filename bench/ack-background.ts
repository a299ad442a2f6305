/**
 * The background load of bench/ack.bench.ts's `ack.with_background.*` figures: an app process whose loops
 * run (SCHEDULER_ENABLED=true) while it answers the measured commands.
 *
 * - 20 watched queues (acme/svc-00 … svc-19), each watched for `state` by a channel of its own (CW…) and
 *   shown by a live status message in another (CL…); this process flips each queue between running and
 *   paused "in Trunk's web app" every 2 s, at a phase of its own, so every poll (WATCH_INTERVAL_SECONDS=5)
 *   finds a change: a feed post and a live redraw per queue and interval.
 * - Digests (failing tests of acme/web) falling due every 2 s over the measured window, one channel (CD…)
 *   each, the scheduler ticking every second (the test entry's --digest-tick-cron seam).
 *
 * `embedded` runs it all in one process on SQLite (the default install). `roles` runs a web replica
 * (SCHEDULER_ENABLED=false: it only answers Slack) and a worker replica (SCHEDULER_ENABLED=true: the loops)
 * on one PostgreSQL database; the load goes to the web replica.
 */
import { join } from 'node:path';
import type { SlackFake } from '../dev/fakes/slack/server.ts';
import { signedHeaders, slashCommandBody } from '../dev/fakes/slack/signing.ts';
import type { TrunkFake } from '../dev/fakes/trunk/index.ts';
import type { DatabaseConfig } from '../src/config.ts';
import { openStore } from '../src/store/open.ts';
import { WatchRepository } from '../src/watch/feeds.ts';
import { appProcess } from '../test/helpers/app-harness.ts';
import { createPgTestDatabase, type PgTestDatabase } from '../test/helpers/pg.ts';
import { type Child, startChild, stopChild } from '../test/helpers/processes.ts';
import { addDueDigests, nextMinute } from './due-digests.ts';

export type BackgroundMode = 'embedded' | 'roles';

export const BG_QUEUES = 20;
export const BG_CHANGE_EVERY_MS = 2_000;
export const BG_INTERVAL_S = 5;
const DIGESTS = 40;
/** The app's clock reaches the digests' minute this long after the background app is asked to start. */
const DIGESTS_DUE_AFTER_MS = 45_000;
const WORKSPACE = 'T0DEFAULT';
const DIGEST_REPO = { host: 'github.com', owner: 'acme', name: 'web' };

const repoOf = (i: number) => ({
  host: 'github.com',
  owner: 'acme',
  name: `svc-${String(i).padStart(2, '0')}`,
});
const feedChannel = (i: number) => `CW${String(i).padStart(2, '0')}BENCH`;
const liveChannel = (i: number) => `CL${String(i).padStart(2, '0')}BENCH`;
const digestChannel = (i: number) => `CD${String(i).padStart(2, '0')}BENCH`;

export interface Background {
  /** Where the measured commands go (the web replica in `roles`). */
  url: string;
  signingSecret: string;
  /** The process answering the commands. */
  answering: Child;
  /** Waits until a second before the digests fall due (the measurement starts then). */
  startMeasuring(): Promise<void>;
  /**
   * Slack writes of the background work from the first window's start to the last one's end (the measured
   * span: the app is under load throughout, its slow Trunk answers landing between its rounds), and the
   * feed posts and live redraws inside the windows themselves ([from, to] epoch ms: the rounds sent to
   * this app, during which the commands also have the Trunk budget first).
   */
  countDuring(windows: Array<[number, number]>): {
    feedPosts: number;
    liveRedraws: number;
    digestPosts: number;
    feedPostsInRounds: number;
    liveRedrawsInRounds: number;
  };
  stop(): Promise<void>;
}

export async function startBackground(o: {
  mode: BackgroundMode;
  slack: SlackFake;
  trunk: TrunkFake;
  dir: string;
  env: Record<string, string>;
  /** Node's arguments for the process answering the commands (--ack-profile: a CPU profile). */
  nodeArgs?: string[];
}): Promise<Background> {
  const { slack, trunk } = o;
  let pg: PgTestDatabase | undefined;
  let database: DatabaseConfig;
  let databaseUrl: string;
  if (o.mode === 'roles') {
    pg = await createPgTestDatabase();
    database = { kind: 'postgres', url: pg.url };
    databaseUrl = pg.url;
  } else {
    const path = join(o.dir, 'background.db');
    database = { kind: 'sqlite', path };
    databaseUrl = `sqlite:${path}`;
  }

  // Follows and digests straight in the store before the app starts (the app opens it afterwards).
  // Digests fall due on a whole minute of the app's clock: it is shifted (the test entry's
  // --clock-offset-ms seam) so that minute comes DIGESTS_DUE_AFTER_MS from now, and the measurement starts
  // just before it (startMeasuring), so the digests run during the measured rounds.
  const now = Date.now();
  const due = nextMinute(now, DIGESTS_DUE_AFTER_MS);
  const offset = due - now - DIGESTS_DUE_AFTER_MS;
  const dueReal = due - offset;
  trunk.generateFailingTests(DIGEST_REPO, 50, {
    seed: 7,
    lazy: true,
    start: now - 20 * 3_600_000,
    end: now + 3_600_000,
  });
  const store = await openStore({ database, encryptionKeys: [] });
  try {
    const watches = new WatchRepository(store.db);
    for (let i = 0; i < BG_QUEUES; i++) {
      trunk.addQueue(repoOf(i), 'main', { state: 'running', concurrency: 2 });
      await watches.upsert({
        workspaceId: WORKSPACE,
        channelId: feedChannel(i),
        target: { repo: repoOf(i), branch: 'main' },
        topics: ['state'],
        createdBy: 'UADMIN0001',
        createdAt: now,
      });
    }
    await addDueDigests(store.db, {
      workspaceId: WORKSPACE,
      repo: DIGEST_REPO,
      channels: Array.from({ length: DIGESTS }, (_, i) => digestChannel(i)),
      due,
    });
  } finally {
    await store.close();
  }

  const env: Record<string, string> = {
    ...o.env,
    DATABASE_URL: databaseUrl,
    WATCH_INTERVAL_SECONDS: String(BG_INTERVAL_S),
    // Per process; commands come first. 100 is Trunk's own limit: the budget must not be what starves the
    // background work of this benchmark (the 200 commands of a round alone would use 20 s of the default 10).
    TRUNK_MAX_RPS: '100',
  };
  const loops = appProcess({ clockOffsetMs: offset, digestTickCron: '* * * * * *' });
  const profile = o.nodeArgs ? { args: o.nodeArgs } : {};
  const children: Child[] = [];
  let answering: Child & { url: string };
  if (o.mode === 'roles') {
    answering = await startChild(
      { ...env, SCHEDULER_ENABLED: 'false' },
      { timeoutMs: 30_000, ...profile, ...appProcess({ clockOffsetMs: offset }) },
    );
    children.push(answering);
    children.push(await startChild({ ...env, SCHEDULER_ENABLED: 'true' }, { timeoutMs: 30_000, ...loops }));
  } else {
    answering = await startChild(
      { ...env, SCHEDULER_ENABLED: 'true' },
      { timeoutMs: 30_000, ...profile, ...loops },
    );
    children.push(answering);
  }
  for (const c of children) {
    c.child.stdout?.resume();
    c.child.stderr?.resume();
  }

  // A live status message per queue, made the way people make them: /mergequeue status in a channel.
  const signingSecret = env['SLACK_SIGNING_SECRET']!;
  for (let i = 0; i < BG_QUEUES; i++) {
    const body = slashCommandBody({
      teamId: WORKSPACE,
      userId: 'UADMIN0001',
      channelId: liveChannel(i),
      text: `status acme/svc-${String(i).padStart(2, '0')}:main`,
      responseUrl: slack.responseUrl({ channel: liveChannel(i), user: 'UADMIN0001' }),
    });
    const res = await fetch(`${answering.url}/slack/events`, {
      method: 'POST',
      headers: signedHeaders(signingSecret, body),
      body,
    });
    await res.arrayBuffer();
  }
  await slack.waitFor(
    () =>
      Array.from({ length: BG_QUEUES }, (_, i) => liveChannel(i)).every(
        (c) => slack.channelMessages(c).length > 0,
      )
        ? true
        : undefined,
    30_000,
  );

  // The queues change in Trunk, each at a phase of its own.
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < BG_QUEUES; i++) {
    const flip = () => {
      const to = trunk.queue(repoOf(i), 'main')?.state === 'running' ? 'paused' : 'running';
      trunk.patchQueue(repoOf(i), 'main', { state: to });
    };
    timers.push(
      setTimeout(
        () => timers.push(setInterval(flip, BG_CHANGE_EVERY_MS)),
        Math.floor((i * BG_CHANGE_EVERY_MS) / BG_QUEUES),
      ),
    );
  }

  const feedSet = new Set(Array.from({ length: BG_QUEUES }, (_, i) => feedChannel(i)));
  const liveSet = new Set(Array.from({ length: BG_QUEUES }, (_, i) => liveChannel(i)));
  const digestSet = new Set(Array.from({ length: DIGESTS }, (_, i) => digestChannel(i)));
  const inside = (at: number, windows: Array<[number, number]>) =>
    windows.some(([a, b]) => at >= a && at <= b);
  const ok = (c: { response: Record<string, unknown> }) => c.response['ok'] === true;
  const channelOf = (c: { args: Record<string, unknown> }) => String(c.args['channel']);

  // Measure only once the background work is under way: a feed post and a live redraw seen.
  await slack.waitFor(
    () =>
      slack.callsTo('chat.postMessage').some((c) => ok(c) && feedSet.has(channelOf(c))) &&
      slack.callsTo('chat.update').some((c) => ok(c) && liveSet.has(channelOf(c)))
        ? true
        : undefined,
    60_000,
  );

  return {
    url: answering.url,
    signingSecret,
    answering,
    async startMeasuring() {
      const wait = dueReal - 1_000 - Date.now();
      if (wait < 0)
        console.log(`  (the background app took ${-wait} ms too long to set up: digests ran early)`);
      else await new Promise((r) => setTimeout(r, wait));
    },
    countDuring(windows) {
      const span: Array<[number, number]> = [[windows[0]?.[0] ?? 0, windows.at(-1)?.[1] ?? 0]];
      const posts = slack.callsTo('chat.postMessage').filter((c) => ok(c) && inside(c.at, span));
      const updates = slack.callsTo('chat.update').filter((c) => ok(c) && inside(c.at, span));
      const feeds = posts.filter((c) => feedSet.has(channelOf(c)));
      const lives = updates.filter((c) => liveSet.has(channelOf(c)));
      return {
        feedPosts: feeds.length,
        liveRedraws: lives.length,
        digestPosts: posts.filter((c) => digestSet.has(channelOf(c))).length,
        feedPostsInRounds: feeds.filter((c) => inside(c.at, windows)).length,
        liveRedrawsInRounds: lives.filter((c) => inside(c.at, windows)).length,
      };
    },
    async stop() {
      for (const t of timers) clearTimeout(t);
      for (const c of children) await stopChild(c.child);
      await pg?.drop();
    },
  };
}
