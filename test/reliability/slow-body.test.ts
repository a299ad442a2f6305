/**
 * Issue 26, "a stranger's slow request never slows the app", through the real wire: unauthenticated
 * connections send the headers of a `POST /slack/events` (also spelled `/slack/./events` and
 * `/slack/events?x=1`) with a large content-length, then one body byte every two seconds, and reconnect
 * whenever the app closes them. With them open, the app's timing promises hold: a signed Trunk webhook
 * reaches its feed at once, a `status` answer comes at once, and a poll that finds 30 PRs merged (no v2
 * key: one read a PR) posts within two watch intervals. Each such connection is closed with a 408 by the
 * request deadline, not held for Node's default five minutes.
 *
 * Before: the count of requests waiting for an answer (the answers-first gate) started when headers
 * arrived and lasted until the answer, so each such connection held every piece of post-ack and background
 * work back its full second (the webhook ~1 s, `status` ~2 s, the 30 reads 30 s and more), and one
 * connection lasted 300 s. Now a request still counts from its arrival, but one whose body is not all there
 * within BODY_GRACE_MS is let go then.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../dev/fakes/trunk/index.ts';
import { REQUEST_DEADLINE_MS } from '../../src/app.ts';
import { unansweredRequests } from '../../src/core/scheduling-gate.ts';
import { BODY_GRACE_MS } from '../../src/observability/answers-first.ts';
import { type Harness, startHarness } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';

const SECRET = newWebhookSecret();
const WATCH_INTERVAL_S = 5;
const PATHS = ['/slack/events', '/slack/./events', '/slack/events?x=1'];

let h: Harness;

/** One stranger per path: a trickled body, reopened whenever the app closes it; what each close looked like. */
class Strangers {
  readonly closed: Array<{ path: string; afterMs: number; answer: string }> = [];
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopped = false;

  readonly url: URL;

  constructor(url: URL) {
    this.url = url;
    for (const path of PATHS) this.#open(path);
  }

  get open(): number {
    return this.#sockets.size;
  }

  #open(path: string): void {
    if (this.#stopped) return;
    const opened = performance.now();
    let answer = '';
    const socket = connect(Number(this.url.port), this.url.hostname);
    this.#sockets.add(socket);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', () => {});
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${this.url.host}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
        'X-Slack-Request-Timestamp: 1\r\nX-Slack-Signature: v0=00\r\nContent-Length: 1000000\r\n\r\n',
    );
    const trickle = setInterval(() => socket.write('a'), 2_000);
    this.#timers.add(trickle);
    socket.on('close', () => {
      clearInterval(trickle);
      this.#timers.delete(trickle);
      this.#sockets.delete(socket);
      if (this.#stopped) return;
      this.closed.push({ path, afterMs: performance.now() - opened, answer: answer.split('\r\n')[0] ?? '' });
      this.#open(path);
    });
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    for (const s of this.#sockets) s.destroy();
  }
}

let strangers: Strangers;

beforeAll(async () => {
  h = await startHarness({
    env: {
      SCHEDULER_ENABLED: 'true',
      WATCH_INTERVAL_SECONDS: String(WATCH_INTERVAL_S),
      TRUNK_WEBHOOK_SECRET: SECRET,
      // What is measured is the gate, not the Trunk budget: at the default 10 a second, 30 reads alone
      // take 3 s, which with a poll's wait of up to one interval leaves no margin to measure against.
      TRUNK_MAX_RPS: '100',
    },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  h.trunk.webhooks.subscribe(`${h.url}/trunk/webhooks/T0DEFAULT`, SECRET);
  strangers = new Strangers(new URL(h.url));
  // Headers in, bodies trickling: the strangers are connected before anything is measured.
  await new Promise((r) => setTimeout(r, 300));
  expect(strangers.open).toBe(PATHS.length);
}, 30_000);
afterAll(async () => {
  strangers?.stop();
  await h?.close();
});

let n = 0;
async function watched(
  topics: string,
): Promise<{ repo: string; owner: string; name: string; channel: string }> {
  n++;
  const name = `slow${n}`;
  const repo = `acme/${name}`;
  const channel = `C0SLOW${String(n).padStart(4, '0')}`;
  h.trunk.addQueue(repo, 'main', { state: 'running' });
  const sent = await h.sendCommand(`watch ${repo}:main ${topics}`, { channel });
  expect(textOf(await h.reply(sent.responseUrl))).toContain('follows');
  return { repo, owner: 'acme', name, channel };
}
/** Resolves once `done` holds, checked every 100 ms; fails after `timeoutMs`. */
async function until(done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const feedPosts = (channel: string) =>
  h.slack.channelMessages(channel).filter((m) => !/started a feed of|feed of/.test(textOf(m)));

describe('with strangers trickling request bodies', () => {
  it('holds nothing back: they are not counted as waiting for an answer', () => {
    expect(strangers.open).toBe(PATHS.length);
    expect(unansweredRequests()).toBe(0);
  });

  it('answers `status` at once', async () => {
    // Each answer measured from its own command, after one that warms the clients up; before, each
    // waited the gate's full second twice (after its ack, and for the cached Trunk read).
    const took: number[] = [];
    for (let i = 0; i < 4; i++) {
      const channel = `C0STATUS${i}`;
      const t0 = performance.now();
      const sent = await h.sendCommand('status acme/web:main', { channel });
      expect(sent.status).toBe(200);
      const answer = await h.slack.waitFor(() => h.slack.channelMessages(channel)[0], 10_000);
      if (i > 0) took.push(performance.now() - t0);
      expect(textOf(answer)).toContain('acme/web');
    }
    expect(Math.min(...took)).toBeLessThan(1_000);
    expect(Math.max(...took)).toBeLessThan(1_900);
  });

  it('posts signed Trunk webhooks to their feeds at once', async () => {
    // Three feeds in three channels (the outbox paces posts to one channel a second apart); each feed's
    // "started" post goes out first. Then one webhook after the other, each measured to its feed post.
    const queues = await Promise.all([0, 1, 2].map(() => watched('submitted testing merged')));
    await new Promise((r) => setTimeout(r, 1_200));
    for (const [i, q] of queues.entries()) {
      const pr = 11 + i;
      h.trunk.enqueuePr(q.repo, 'main', { prNumber: pr, prAuthor: 'octocat', state: 'pending' });
      const t0 = performance.now();
      h.trunk.webhooks.deliver('pull_request.submitted', {
        action: 'submitted',
        status: 'submitted',
        author: 'octocat',
        pr_number: pr,
        repository: { host: 'github.com', owner: q.owner, name: q.name },
        target_branch: 'main',
      });
      const post = await h.slack.waitFor(() => feedPosts(q.channel)[0], 10_000);
      expect(performance.now() - t0).toBeLessThan(800);
      expect(textOf(post)).toContain(`#${pr}`);
    }
  });

  it('posts a poll that finds 30 PRs merged within two watch intervals', async () => {
    const q = await watched('merged');
    const prs = Array.from({ length: 30 }, (_, i) => 100 + i);
    for (const prNumber of prs)
      h.trunk.enqueuePr(q.repo, 'main', { prNumber, prAuthor: 'octocat', state: 'testing' });
    // A poll sees them queued first.
    const key = `github.com/acme/${q.name}:main`;
    await until(
      async () => {
        const rows = await h.app!.store.db.query(
          'SELECT snapshot FROM watch_snapshots WHERE queue_key = $1',
          [key],
        );
        return String(rows[0]?.['snapshot'] ?? '').includes('129');
      },
      3 * WATCH_INTERVAL_S * 1000,
    );
    const t0 = performance.now();
    for (const prNumber of prs) {
      h.trunk.dequeuePr(q.repo, 'main', prNumber);
      h.trunk.addSubmittedPr(q.repo, 'main', {
        prNumber,
        prAuthor: 'octocat',
        state: 'merged',
        isCurrentlySubmittedToQueue: false,
      });
    }
    const post = await h.slack.waitFor(
      () => feedPosts(q.channel).find((m) => textOf(m).includes('merged')),
      8 * WATCH_INTERVAL_S * 1000,
    );
    expect(performance.now() - t0).toBeLessThan(2 * WATCH_INTERVAL_S * 1000);
    expect(textOf(post)).toMatch(/#1[0-2]\d/);
  }, 60_000);

  it('closes each trickling connection with a 408 by the request deadline, and it came back', async () => {
    await until(
      () => PATHS.every((p) => strangers.closed.some((c) => c.path === p)),
      REQUEST_DEADLINE_MS + 5_000,
    );
    for (const c of strangers.closed) {
      expect(c.answer).toBe('HTTP/1.1 408 Request Timeout');
      expect(c.afterMs).toBeLessThan(REQUEST_DEADLINE_MS + 2_500);
    }
    expect(strangers.open).toBe(PATHS.length);
    // The reconnected ones are counted on arrival, and let go once their bodies are late by the grace.
    await new Promise((r) => setTimeout(r, 2 * BODY_GRACE_MS));
    expect(unansweredRequests()).toBe(0);
  }, 30_000);
});
