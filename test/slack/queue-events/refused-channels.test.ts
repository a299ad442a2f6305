/**
 * What Slack's refusals do to feeds and live status messages (issue 19), through the real wire: at most
 * three live status messages per queue and channel; a live message Slack says is gone is forgotten at
 * once; a feed whose channel Slack refuses is paused and its creator told once, and `watch` in that
 * channel starts it again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { feedPosts } from '../../helpers/slack-posts.ts';

let h: Harness;
const clock = { now: Date.now() };
let n = 0;

beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now } });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

function fresh() {
  n++;
  const repo = `acme/refused${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 1 });
  return { repo, target: `${repo}:main`, channel: `C0REFUSE${String(n).padStart(2, '0')}` };
}

async function interval(seconds = 21) {
  clock.now += seconds * 1000;
  await h.app!.events!.tick();
}

async function command(text: string, opts: { user?: string; channel?: string } = {}) {
  const sent = await h.sendCommand(text, opts);
  expect(sent.status).toBe(200);
  return textOf((await h.reply(sent.responseUrl)) as { text?: unknown; blocks?: unknown });
}

/** What the feed posted: the `watch` command's own announcement of a feed change (issue 19) is not counted. */
const posts = (channel: string) => feedPosts(h.slack, channel);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('live status messages', () => {
  it('at most three per queue and channel: a fourth `status` retires the oldest, which says it is no longer live', async () => {
    const q = fresh();
    for (let i = 1; i <= 3; i++) {
      await h.sendCommand(`status ${q.target}`, { channel: q.channel });
      await h.slack.waitFor(() => posts(q.channel).length === i);
    }
    const [oldest, second] = posts(q.channel);
    await h.sendCommand(`status ${q.target}`, { channel: q.channel });
    const retired = await h.slack.waitFor(() => {
      const m = h.slack.message(q.channel, oldest!.ts);
      return m && m.history.length === 1 ? m : undefined;
    });
    expect(textOf(retired)).toContain('no longer live');
    const live = h.app!.events!.live;
    expect(await live.isLive(TEAM, q.channel, oldest!.ts)).toBe(false);
    for (const m of posts(q.channel).slice(1)) expect(await live.isLive(TEAM, q.channel, m.ts)).toBe(true);

    // A change redraws the three live ones only; the retired one stays as it was.
    await interval();
    h.trunk.patchQueue(q.repo, 'main', { concurrency: 5 });
    await interval();
    for (const m of posts(q.channel).slice(1))
      expect(textOf(h.slack.message(q.channel, m.ts))).toContain('*Concurrency*\n5');
    expect(h.slack.message(q.channel, oldest!.ts)!.history).toHaveLength(1);
    expect(textOf(h.slack.message(q.channel, second!.ts))).toContain('live · updated');
  });

  it('one Slack says is gone (message_not_found) is forgotten at once: never edited again', async () => {
    const q = fresh();
    await h.sendCommand(`status ${q.target}`, { channel: q.channel });
    const [m] = await h.slack.waitFor(() => (posts(q.channel).length === 1 ? posts(q.channel) : undefined));
    await h.idle(); // registered as live
    await interval();
    h.trunk.patchQueue(q.repo, 'main', { concurrency: 3 });
    h.slack.failNext('chat.update', { error: 'message_not_found' });
    await interval();
    expect(await h.app!.events!.live.isLive(TEAM, q.channel, m!.ts)).toBe(false);
    const updates = () => h.slack.calls.filter((c) => c.method === 'chat.update').length;
    const before = updates();
    h.trunk.patchQueue(q.repo, 'main', { concurrency: 4 });
    await interval();
    await interval();
    expect(updates()).toBe(before);
  });
});

describe('a feed whose channel Slack refuses', () => {
  it('is paused and its creator told once by DM with the command that starts it again; `watch` there starts it again', async () => {
    const q = fresh();
    await command(`watch ${q.target} state stuck 30`, { channel: q.channel, user: USERS.member });
    await interval();

    h.trunk.patchQueue(q.repo, 'main', { state: 'paused' });
    h.slack.failNext('chat.postMessage', { error: 'is_archived' });
    await interval();
    const dm = await h.slack.waitFor(() => posts(USERS.member)[0]);
    expect(textOf(dm)).toContain('paused');
    expect(textOf(dm)).toContain('archived');
    expect(textOf(dm)).toContain(`/mergequeue watch ${q.target} state health stuck 30`);
    expect(await command('watch list', { channel: q.channel })).toContain('follows no queue');
    const metrics = await (await fetch(`${h.app!.url}/metrics`)).text();
    expect(metrics).toMatch(/^mergequeue_outbox_final_errors_total\{code="is_archived"\} 1$/m);

    // Paused: later changes post nothing there and tell nobody again.
    h.trunk.patchQueue(q.repo, 'main', { state: 'running' });
    await interval();
    await sleep(200);
    expect(posts(q.channel)).toHaveLength(0);
    expect(posts(USERS.member)).toHaveLength(1);

    // Started again from the channel.
    await command(`watch ${q.target} state`, { channel: q.channel, user: USERS.member });
    await interval();
    h.trunk.patchQueue(q.repo, 'main', { state: 'draining' });
    await interval();
    const post = await h.slack.waitFor(() => posts(q.channel).find((p) => textOf(p).includes('draining')));
    expect(textOf(post)).toMatch(/running.*→.*draining/s);
    expect(posts(USERS.member)).toHaveLength(1);
  });
});
