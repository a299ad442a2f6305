/**
 * Issue 21, receiving Trunk's webhooks through the real wire: signed POSTs to the app's
 * /trunk/webhooks/<workspace> (svix-* and webhook-* headers, signed with the `standardwebhooks` scheme by the
 * fake Trunk's helper), the fake Slack, the fake Trunk. Verification (good, forged, stale, rotated secret,
 * unknown workspace, unsigned, oversized), a duplicate delivery, and the merge-queue pipeline: a webhook's
 * transition posted at once, the poll that sees the same transition posting nothing more (and the other way
 * round), an outage covered by the poll, an older transition arriving late dropped; the metric counts each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newMessageId, newWebhookSecret, signDelivery } from '../../dev/fakes/trunk/index.ts';
import { PeopleRepository } from '../../src/watch/index.ts';
import { InboxRepository } from '../../src/webhooks/inbox.ts';
import { statusChanged } from '../flaky/helpers.ts';
import {
  CHANNEL,
  type Harness,
  postStatusMessage,
  startHarness,
  TEAM,
  USERS,
} from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';

const OLD_SECRET = newWebhookSecret();
const NEW_SECRET = newWebhookSecret();
const now = () => Math.floor(Date.now() / 1000);

let h: Harness;
const clock = { now: Date.now() };

beforeAll(async () => {
  h = await startHarness({
    app: { clock: () => clock.now },
    env: { TRUNK_WEBHOOK_SECRET: `${OLD_SECRET},${NEW_SECRET}` },
  });
}, 30_000);
afterAll(async () => {
  await h?.close();
});

const endpoint = (ws = TEAM) => `${h.url}/trunk/webhooks/${ws}`;

async function post(
  body: string,
  headers: Record<string, string>,
  ws = TEAM,
): Promise<{ status: number; text: string }> {
  const res = await fetch(endpoint(ws), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

function payload(type: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type,
    action: type.split('.')[1],
    status: type.split('.')[1],
    author: 'octocat',
    pr_number: 4901,
    repository: { host: 'github.com', owner: 'acme', name: 'elsewhere' },
    target_branch: 'main',
    http_details_url: 'https://app.trunk.io/gh/acme/elsewhere/merge/main/1',
    timestamp: new Date().toISOString(),
    ...extra,
  });
}

async function metric(outcome: string): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const m = new RegExp(`mergequeue_trunk_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`).exec(
    text,
  );
  return m ? Number(m[1]) : 0;
}

const kept = (id: string) =>
  h.app!.store.db.query('SELECT delivery_id FROM webhook_inbox WHERE delivery_id = $1', [id]);

describe('verification', () => {
  it('keeps a delivery signed with svix-* headers and answers 200 at once', async () => {
    const id = newMessageId();
    const body = payload('pull_request.submitted');
    const r = await post(body, signDelivery(OLD_SECRET, id, now(), body));
    expect(r.status).toBe(200);
    expect(await kept(id)).toHaveLength(1);
  });

  it('accepts the white-labelled webhook-* header names', async () => {
    const id = newMessageId();
    const body = payload('pull_request.queued');
    const r = await post(body, signDelivery(NEW_SECRET, id, now(), body, 'webhook'));
    expect(r.status).toBe(200);
    expect(await kept(id)).toHaveLength(1);
  });

  it('accepts any one of several signatures and secrets (rotation)', async () => {
    const id = newMessageId();
    const body = payload('pull_request.testing');
    const ts = now();
    const stale = signDelivery(newWebhookSecret(), id, ts, body)['svix-signature']!;
    const good = signDelivery(NEW_SECRET, id, ts, body);
    const r = await post(body, { ...good, 'svix-signature': `${stale} ${good['svix-signature']}` });
    expect(r.status).toBe(200);
    expect(await kept(id)).toHaveLength(1);
  });

  it('refuses forged, stale, unsigned and unknown-workspace deliveries with a fixed 401, keeping nothing', async () => {
    const before = await metric('rejected');
    const body = payload('pull_request.merged');
    const forgedId = newMessageId();
    const forged = await post(body, signDelivery(newWebhookSecret(), forgedId, now(), body));
    const tamperedId = newMessageId();
    const tampered = await post(
      body.replace('4901', '4902'),
      signDelivery(OLD_SECRET, tamperedId, now(), body),
    );
    const staleId = newMessageId();
    const stale = await post(body, signDelivery(OLD_SECRET, staleId, now() - 6 * 60, body));
    const unsigned = await post(body, {});
    const otherId = newMessageId();
    const other = await post(body, signDelivery(OLD_SECRET, otherId, now(), body), 'T0SOMEONE');
    for (const r of [forged, tampered, stale, unsigned, other]) {
      expect(r.status).toBe(401);
      expect(r.text).toBe('unauthorized\n');
      expect(r.text).not.toContain('whsec_');
    }
    for (const id of [forgedId, tamperedId, staleId, otherId]) expect(await kept(id)).toHaveLength(0);
    expect(await metric('rejected')).toBe(before + 5);
  });

  it('answers 413 to an oversized body and keeps nothing', async () => {
    const id = newMessageId();
    const body = payload('pull_request.submitted', { padding: 'x'.repeat(1024 * 1024 + 10) });
    const r = await post(body, signDelivery(OLD_SECRET, id, now(), body));
    expect(r.status).toBe(413);
    expect(await kept(id)).toHaveLength(0);
    expect(await metric('too_large')).toBeGreaterThanOrEqual(1);
  });

  it('answers a retried delivery (same id) 200 and does nothing new', async () => {
    const id = newMessageId();
    const body = payload('pull_request.submitted');
    const first = await post(body, signDelivery(OLD_SECRET, id, now(), body));
    const before = await metric('duplicate');
    const again = await post(body, signDelivery(OLD_SECRET, id, now(), body));
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await kept(id)).toHaveLength(1);
    expect(await metric('duplicate')).toBe(before + 1);
    expect(await new InboxRepository(h.app!.store.db).lastReceived(TEAM)).toBe(clock.now);
  });

  it("shows on the Home when the workspace's last delivery arrived", async () => {
    const home = await h.openHome(USERS.admin);
    const text = JSON.stringify(home.view);
    expect(text).toContain('Trunk webhooks:* last delivery');
    expect(text).toContain(`<!date^${Math.floor(clock.now / 1000)}^`);
  });
});

describe('the merge-queue pipeline', () => {
  let n = 0;
  async function watched(topics = 'submitted testing merged failed') {
    n++;
    const repo = `acme/hook${n}`;
    const channel = `C0HOOK${String(n).padStart(4, '0')}`;
    h.trunk.addQueue(repo, 'main', { state: 'running' });
    const sent = await h.sendCommand(`watch ${repo}:main ${topics}`, { channel });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('follows');
    await tick();
    return { repo, owner: 'acme', name: `hook${n}`, channel };
  }
  async function tick(seconds = 21) {
    clock.now += seconds * 1000;
    await h.app!.events!.tick();
  }
  /** Waits until every webhook the fake sent is answered, the inbox drained and Slack answered. */
  async function settle() {
    await h.trunk.webhooks.settled();
    await h.app!.webhooks.idle();
    await h.app!.events!.watch.watcher.settled();
  }
  const posts = (channel: string) =>
    h.slack.channelMessages(channel).filter((m) => !/started a feed of|feed of/.test(textOf(m)));
  function send(
    q: { owner: string; name: string },
    action: string,
    pr: number,
    extra: Record<string, unknown> = {},
  ) {
    return h.trunk.webhooks.deliver(`pull_request.${action}`, {
      action,
      status: action,
      author: 'octocat',
      pr_number: pr,
      repository: { host: 'github.com', owner: q.owner, name: q.name },
      target_branch: 'main',
      ...extra,
    });
  }

  /** The PR left the queue in the fake Trunk, as getSubmittedPullRequest then tells it. */
  function leaves(q: { repo: string }, prNumber: number, state: 'merged' | 'failed' | 'cancelled') {
    h.trunk.dequeuePr(q.repo, 'main', prNumber);
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber,
      prAuthor: 'octocat',
      state,
      isCurrentlySubmittedToQueue: false,
    });
  }

  beforeAll(() => {
    h.trunk.webhooks.subscribe(endpoint(), NEW_SECRET);
  });

  it('posts a webhook transition at once, and the poll that sees it later posts nothing more', async () => {
    const q = await watched();
    h.trunk.enqueuePr(q.repo, 'main', {
      prNumber: 11,
      prAuthor: 'octocat',
      prTitle: 'Fast path',
      state: 'pending',
    });
    const started = Date.now();
    send(q, 'submitted', 11);
    await settle();
    const first = await h.slack.waitFor(() => posts(q.channel)[0]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(textOf(first)).toContain('#11');
    expect(textOf(first)).toContain('entered the queue');
    await tick();
    await settle();
    expect(posts(q.channel)).toHaveLength(1);
  });

  it('posts a polled transition once when its webhook comes later', async () => {
    const q = await watched();
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 21, prAuthor: 'octocat', state: 'pending' });
    await tick();
    await settle();
    expect(posts(q.channel)).toHaveLength(1);
    send(q, 'submitted', 21);
    await settle();
    expect(posts(q.channel)).toHaveLength(1);
  });

  it('shows the failure reason Trunk sent, in the words `why` uses, once', async () => {
    const q = await watched();
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 31, prAuthor: 'octocat', state: 'testing' });
    await tick();
    await settle();
    const before = posts(q.channel).length;
    send(q, 'failed', 31, { failure_reason: 'SOMETHING_NEW_ENTIRELY' });
    await settle();
    const failed = await h.slack.waitFor(() => posts(q.channel)[before]);
    expect(textOf(failed)).toContain('SOMETHING_NEW_ENTIRELY');
    leaves(q, 31, 'failed');
    await tick();
    await settle();
    expect(posts(q.channel)).toHaveLength(before + 1);
  });

  it('covers a webhook outage by polling', async () => {
    const q = await watched();
    h.trunk.webhooks.setOutage(true);
    try {
      h.trunk.enqueuePr(q.repo, 'main', { prNumber: 41, prAuthor: 'octocat', state: 'pending' });
      send(q, 'submitted', 41);
      await settle();
      expect(posts(q.channel)).toHaveLength(0);
      await tick();
      await settle();
      expect(posts(q.channel).map(textOf).join('\n')).toContain('#41');
      expect(posts(q.channel)).toHaveLength(1);
    } finally {
      h.trunk.webhooks.setOutage(false);
    }
  });

  it('drops an older transition that arrives after a newer one', async () => {
    const q = await watched();
    const before = await metric('stale');
    const t0 = Date.now();
    send(q, 'merged', 51, { timestamp: new Date(t0).toISOString() });
    await settle();
    send(q, 'testing', 51, { timestamp: new Date(t0 - 60_000).toISOString() });
    await settle();
    const texts = posts(q.channel).map(textOf);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('merged');
    expect(await metric('stale')).toBe(before + 1);
  });

  it('announces each PR of a merged batch once, and a cancellation with its reason in words', async () => {
    const q = await watched();
    for (const prNumber of [71, 72, 73])
      h.trunk.enqueuePr(q.repo, 'main', { prNumber, prAuthor: 'octocat', state: 'testing' });
    await tick();
    await settle();
    const before = posts(q.channel).length;
    h.trunk.webhooks.deliver('pull_request_batch.merged', {
      action: 'merged',
      status: 'merged',
      pr_numbers: [71, 72],
      repository: { host: 'github.com', owner: q.owner, name: q.name },
      target_branch: 'main',
      test_branch: 'trunk-merge/pr-71-72/abc',
    });
    send(q, 'canceled', 73, { cancellation_reason: 'USER_REQUESTED', unknown_field: { nested: true } });
    await settle();
    const said = await h.slack.waitFor(() => {
      const text = posts(q.channel).slice(before).map(textOf).join('\n');
      return ['#71', '#72', '#73'].every((n) => text.includes(n)) ? text : undefined;
    });
    expect(said).toMatch(/#71[\s\S]*merged/);
    expect(said).toMatch(/#72[\s\S]*merged/);
    expect(said).toContain('#73');
    expect(said).toContain('cancelled');
    expect(said).toContain('someone asked for it');
    expect(said).not.toContain('USER_REQUESTED');
    // The poll sees all three gone (merged, merged, cancelled): nothing more is posted.
    leaves(q, 71, 'merged');
    leaves(q, 72, 'merged');
    leaves(q, 73, 'cancelled');
    const count = posts(q.channel).length;
    await tick();
    await settle();
    expect(posts(q.channel)).toHaveLength(count);
  });

  it("announces a PR submitted through the app by the fake's webhook, before any poll", async () => {
    const q = await watched();
    const sent = await h.sendCommand(`submit 81 ${q.repo}:main`, { user: USERS.admin });
    expect(sent.status).toBe(200);
    await h.trunk.waitForRequest('submitPullRequest');
    await settle();
    const post = await h.slack.waitFor(() => posts(q.channel).find((m) => textOf(m).includes('#81')));
    expect(textOf(post)).toContain('entered the queue');
    expect(
      h.trunk.webhooks.attempts.some((a) => a.type === 'pull_request.submitted' && a.status === 200),
    ).toBe(true);
    await tick();
    await settle();
    expect(posts(q.channel).filter((m) => textOf(m).includes('#81'))).toHaveLength(1);
  });

  it('redraws a live status message and notes the linked author at once', async () => {
    const q = await watched();
    const live = await postStatusMessage(h, `${q.repo}:main`);
    await new PeopleRepository(h.app!.store.db).link({
      workspaceId: TEAM,
      userId: USERS.operator,
      githubLogin: 'hook-author',
      linkedBy: USERS.admin,
      verified: true,
      now: clock.now,
    });
    h.trunk.enqueuePr(q.repo, 'main', {
      prNumber: 91,
      prAuthor: 'hook-author',
      prTitle: 'Live one',
      state: 'testing',
    });
    const redraws = live.history.length;
    send(q, 'testing', 91, { author: 'hook-author' });
    await settle();
    await h.slack.waitFor(() => (live.history.length > redraws ? true : undefined));
    expect(textOf(h.slack.channelMessages(CHANNEL).find((m) => m.ts === live.ts))).toContain('#91');
    const note = await h.slack.waitFor(() =>
      h.slack.channelMessages(USERS.operator).find((m) => textOf(m).includes('#91')),
    );
    expect(textOf(note)).toContain('started testing');
  });

  it('posts every transition of a PR resubmitted after failing, and drops a same-second step that arrives late', async () => {
    const q = await watched();
    const t0 = Date.parse('2026-07-28T11:35:00Z');
    const at = (s: number) => ({ timestamp: new Date(t0 + s * 1000).toISOString() });
    send(q, 'testing', 101, at(0));
    send(q, 'failed', 101, { ...at(10), failure_reason: 'TEST_RUN_TIMEOUT' });
    await settle();
    send(q, 'submitted', 101, at(20));
    send(q, 'testing', 101, at(30));
    await settle();
    send(q, 'merged', 101, at(40));
    await settle();
    // Trunk stamps whole seconds: `testing` of the same second as `merged`, delivered after it, is stale.
    send(q, 'testing', 101, at(40));
    await settle();
    const texts = posts(q.channel)
      .map(textOf)
      .filter((t) => t.includes('#101'));
    expect(texts.map((t) => /entered the queue|started testing|failed|merged/.exec(t)?.[0])).toEqual([
      'started testing',
      'failed',
      'entered the queue',
      'started testing',
      'merged',
    ]);
  });

  it("notes the author once when the poll sees the webhook's transition again", async () => {
    const q = await watched();
    await new PeopleRepository(h.app!.store.db).link({
      workspaceId: TEAM,
      userId: USERS.member,
      githubLogin: 'once-author',
      linkedBy: USERS.admin,
      verified: true,
      now: clock.now,
    });
    h.trunk.enqueuePr(q.repo, 'main', { prNumber: 111, prAuthor: 'once-author', state: 'testing' });
    send(q, 'testing', 111, { author: 'once-author' });
    await settle();
    const notes = () => h.slack.channelMessages(USERS.member).filter((m) => textOf(m).includes('#111'));
    await h.slack.waitFor(() => notes()[0]);
    await tick();
    await settle();
    await tick();
    await settle();
    expect(notes()).toHaveLength(1);
  });

  it("notes the author of a PR in the workspace's default queue, followed by no channel", async () => {
    await new PeopleRepository(h.app!.store.db).link({
      workspaceId: TEAM,
      userId: USERS.admin,
      githubLogin: 'default-author',
      linkedBy: USERS.admin,
      verified: true,
      now: clock.now,
    });
    h.trunk.enqueuePr('acme/web', 'main', { prNumber: 121, prAuthor: 'default-author', state: 'testing' });
    send({ owner: 'acme', name: 'web' }, 'failed', 121, {
      author: 'default-author',
      failure_reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
    await settle();
    const note = await h.slack.waitFor(() =>
      h.slack.channelMessages(USERS.admin).find((m) => textOf(m).includes('#121')),
    );
    expect(textOf(note)).toContain('failed');
  });

  it('ignores transitions of queues nobody follows, and unknown event types', async () => {
    const before = await metric('ignored');
    h.trunk.webhooks.deliver('pull_request.testing', {
      pr_number: 61,
      repository: { host: 'github.com', owner: 'acme', name: 'unfollowed' },
      target_branch: 'main',
    });
    h.trunk.webhooks.deliver('something.new', { hello: 'world' });
    await settle();
    expect(await metric('ignored')).toBe(before + 2);
  });
});

describe('the flaky-test sink, through the same route', () => {
  it('hands a signed test_case delivery to the flaky-test feed, which posts it in the watching channel', async () => {
    const channel = 'C0TESTFEED';
    const sent = await h.sendCommand('tests watch acme/widgets', { channel, user: USERS.admin });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('This channel will hear');
    const id = newMessageId();
    const body = JSON.stringify(
      statusChanged(
        { id: 'bfeebcf4-0000-8000-8000-0000000000aa', name: 'webhook wired test' },
        'HEALTHY',
        'FLAKY',
      ),
    );
    const r = await post(body, signDelivery(NEW_SECRET, id, now(), body));
    expect(r.status).toBe(200);
    const msg = await h.slack.waitFor(() =>
      h.slack.channelMessages(channel).find((m) => textOf(m).includes('webhook wired test')),
    );
    expect(textOf(msg)).toContain('@acme/payments');
  });
});
