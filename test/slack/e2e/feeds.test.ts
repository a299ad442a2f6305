/**
 * Who may change a channel's feed, and that everyone in the channel hears of it (DESIGN, "Feeds"), through
 * the real wire: signed `/mergequeue watch` and `unwatch` commands, the fake Slack's channel posts and the
 * store's audit. Guests and people of other organizations do not manage feeds; in a channel shared with
 * another organization (Slack Connect) only operators do; a stuck threshold under 10 minutes is for operators.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WatchRepository } from '../../../src/watch/index.ts';
import { defaultUsers, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const GUEST = 'UGUESTFEED';
const EXTERNAL = 'UEXTFEED01';
const SHARED = 'C0FEEDSHRD';

let h: Harness;
let n = 0;

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: GUEST, name: 'gus', isRestricted: true },
        // An admin of another organization, typing in a Slack Connect channel.
        { id: EXTERNAL, name: 'xena', teamId: 'T0OTHERORG', isAdmin: true },
      ],
      channels: [{ id: SHARED, name: 'with-vendor', isShared: true }],
    },
  });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** Each test its own queue and channel. */
function fresh() {
  n++;
  const repo = `acme/feed${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 1 });
  return { repo, target: `${repo}:main`, channel: `C0FEEDS${String(n).padStart(3, '0')}` };
}

async function command(text: string, user: string, channel: string): Promise<string> {
  const sent = await h.sendCommand(text, { user, channel });
  expect(sent.status).toBe(200);
  const reply = await h.reply(sent.responseUrl);
  await h.idle();
  return textOf(reply);
}

const posts = (channel: string) => h.slack.channelMessages(channel);
const feeds = (channel: string) => new WatchRepository(h.app!.store.db).listChannel(TEAM, channel);

describe('a feed change is announced in its channel', () => {
  it('starting, changing and ending a feed each tell the channel who did it and what changed', async () => {
    const q = fresh();
    expect(await command(`watch ${q.target}`, USERS.member, q.channel)).toContain('follows');
    const started = await h.slack.waitFor(() => posts(q.channel)[0]);
    expect(textOf(started)).toContain(`<@${USERS.member}> started a feed of *${q.target}* in this channel`);
    expect(textOf(started)).toContain('`state` `failed` `health`');
    assertValidMessage(started.blocks);

    await command(`watch ${q.target} merged stuck 30`, USERS.member, q.channel);
    const changed = await h.slack.waitFor(() => posts(q.channel)[1]);
    expect(textOf(changed)).toContain(`<@${USERS.member}> changed this channel's feed of *${q.target}*`);
    expect(textOf(changed)).toMatch(/`state` `failed` `health` → `merged` `health`, stuck after 30 min/);

    // The same settings again change nothing, so nothing more is said.
    await command(`watch ${q.target} merged stuck 30`, USERS.member, q.channel);
    expect(await command('unwatch', USERS.operator, q.channel)).toContain('no longer follows');
    const ended = await h.slack.waitFor(() => posts(q.channel)[2]);
    expect(textOf(ended)).toContain(`<@${USERS.operator}> ended this channel's feed of *${q.target}*`);
    expect(posts(q.channel)).toHaveLength(3);
  });
});

describe('who may manage a feed', () => {
  it('a guest may neither start nor end a feed: refused, audited, nothing changed or posted', async () => {
    const q = fresh();
    const refused = await command(`watch ${q.target}`, GUEST, q.channel);
    expect(refused).toContain("You can't start or change this channel's feed");
    expect(refused).toContain('guests do not manage channel feeds');
    expect(await feeds(q.channel)).toHaveLength(0);

    await command(`watch ${q.target}`, USERS.member, q.channel);
    const ending = await command('unwatch', GUEST, q.channel);
    expect(ending).toContain("You can't end this channel's feed");
    expect(await feeds(q.channel)).toHaveLength(1);
    // Only the member's start was announced.
    expect(posts(q.channel)).toHaveLength(1);
    const audit = await h.app!.store.listAudit(TEAM, { limit: 10 });
    const refusals = audit.filter((a) => a.userId === GUEST && a.outcome === 'refused');
    expect(refusals.map((a) => a.action).sort()).toEqual(['unwatch', 'watch']);
  });

  it('a person of another organization (an admin there) may not manage a feed', async () => {
    const q = fresh();
    const refused = await command(`watch ${q.target}`, EXTERNAL, q.channel);
    expect(refused).toContain("only the workspace's own people manage channel feeds");
    expect(await feeds(q.channel)).toHaveLength(0);
    expect(posts(q.channel)).toHaveLength(0);
  });

  it('in a Slack Connect channel only operators manage feeds', async () => {
    const q = fresh();
    const refused = await command(`watch ${q.target}`, USERS.member, SHARED);
    expect(refused).toContain('this channel is shared with another organization');
    expect(await feeds(SHARED)).toHaveLength(0);

    expect(await command(`watch ${q.target}`, USERS.admin, SHARED)).toContain('follows');
    expect(await feeds(SHARED)).toHaveLength(1);
    expect(await command(`unwatch ${q.target}`, USERS.member, SHARED)).toContain("You can't end");
    expect(await feeds(SHARED)).toHaveLength(1);
    expect(await command(`unwatch ${q.target}`, USERS.admin, SHARED)).toContain('no longer follows');
  });

  it('a stuck threshold under 10 minutes needs an operator; 10 or more does not', async () => {
    const q = fresh();
    const refused = await command(`watch ${q.target} stuck 5`, USERS.member, q.channel);
    expect(refused).toContain('a stuck threshold under 10 minutes is for operators');
    expect(await feeds(q.channel)).toHaveLength(0);

    expect(await command(`watch ${q.target} stuck 10`, USERS.member, q.channel)).toContain('follows');
    expect(await command(`watch ${q.target} stuck 5`, USERS.admin, q.channel)).toContain('follows');
    expect((await feeds(q.channel))[0]?.stuckMinutes).toBe(5);
  });
});
