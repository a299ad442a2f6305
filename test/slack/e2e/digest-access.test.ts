/**
 * Digests are not a megaphone (issue 10, "Who may act"), through the real app: signed `/mergequeue digest …`
 * commands, the fake Slack answering conversations.info/members, the fake Trunk serving failing tests.
 * Operators manage every digest; anyone else only the digests of a channel they are a member of (never a
 * guest); a manual run has a per-digest cooldown held in the store; a list names only visible channels.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultUsers, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const PUBLIC = 'C0PUBLIC01';
const PRIVATE = 'C0PRIVATE1';
const OUTSIDER = 'UOUTSIDE01';
const GUEST = 'UGUEST0001';

let h: Harness;
const ids = { public: '', private: '' };

beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: [
        ...defaultUsers(),
        { id: OUTSIDER, name: 'otis' },
        { id: GUEST, name: 'gus', isRestricted: true },
      ],
      channels: [
        { id: PUBLIC, name: 'web-team', members: [USERS.admin, USERS.member, GUEST] },
        { id: PRIVATE, name: 'secret-project', isPrivate: true, members: [USERS.admin, USERS.owner] },
      ],
    },
  });
  h.trunk.setFailingTests('acme/web', [
    {
      id: 't1',
      name: 'CheckoutSpec totals',
      status: { reason: 'failed', timestamp: new Date().toISOString() },
    },
  ]);
  ids.public = await addDigest(PUBLIC, USERS.admin);
  ids.private = await addDigest(PRIVATE, USERS.admin);
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

async function ask(text: string, user: string, channel: string): Promise<string> {
  const sent = await h.sendCommand(`digest ${text}`, { user, channel });
  expect(sent.status).toBe(200);
  const reply = await h.reply(sent.responseUrl);
  expect(reply['response_type']).toBe('ephemeral');
  return textOf(reply);
}

async function addDigest(channel: string, user: string): Promise<string> {
  const text = await ask('add failing acme/web 09:00 UTC daily', user, channel);
  const id = /Added digest `(d[a-z0-9]{5})`/.exec(text)?.[1];
  if (!id) throw new Error(`digest not added: ${text}`);
  return id;
}

const manualRuns = async (id: string) =>
  (
    await h.app!.store.db.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM digest_runs WHERE subscription_id = $1 AND manual = 1',
      [id],
    )
  )[0]!.n;
const lastAudit = async () => (await h.app!.store.listAudit(TEAM, { limit: 1 }))[0];

describe('who may run and manage a digest', () => {
  it('someone outside a private channel cannot run its digest, nor learn that it exists; audited', async () => {
    const text = await ask(`run ${ids.private}`, USERS.member, PUBLIC);
    expect(text).toMatch(new RegExp(`no digest \`${ids.private}\``));
    await h.idle();
    expect(h.slack.channelMessages(PRIVATE)).toHaveLength(0);
    expect(Number(await manualRuns(ids.private))).toBe(0);
    expect(await lastAudit()).toMatchObject({
      userId: USERS.member,
      action: 'digest.run',
      outcome: 'refused',
    });
  });

  it('a member of the workspace who is not in the channel is refused, audited, nothing posted', async () => {
    const text = await ask(`run ${ids.public}`, OUTSIDER, 'C0ELSEWHER');
    expect(text).toMatch(/Only operators and members of <#C0PUBLIC01> can run this digest/);
    await h.idle();
    expect(h.slack.channelMessages(PUBLIC)).toHaveLength(0);
    expect(await lastAudit()).toMatchObject({ userId: OUTSIDER, action: 'digest.run', outcome: 'refused' });
  });

  it('a guest, even a member of the channel, is refused', async () => {
    const text = await ask(`run ${ids.public}`, GUEST, PUBLIC);
    expect(text).toMatch(/Only operators and members of <#C0PUBLIC01>/);
    expect(await lastAudit()).toMatchObject({ userId: GUEST, action: 'digest.run', outcome: 'refused' });
  });

  it('a non-member cannot change or remove a channel’s digest; a channel member may add and remove their own', async () => {
    expect(await ask(`set ${ids.public} top 20`, OUTSIDER, PUBLIC)).toMatch(/Only operators and members/);
    expect(await ask(`remove ${ids.public}`, OUTSIDER, PUBLIC)).toMatch(/Only operators and members/);
    expect(
      await h.app!.store.db.query('SELECT id FROM digest_subscriptions WHERE id = $1', [ids.public]),
    ).toHaveLength(1);
    const mine = await addDigest(PUBLIC, USERS.member);
    expect(await ask(`set ${mine} top 5`, USERS.member, PUBLIC)).toMatch(/top is now 5/);
    expect(await ask(`remove ${mine}`, USERS.member, PUBLIC)).toMatch(/Removed digest/);
  });

  it('eight concurrent `digest run`s by a channel member start exactly one run; the others are told when to retry', async () => {
    const before = Number(await manualRuns(ids.public));
    const sent = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.sendCommand(`digest run ${ids.public}`, { user: USERS.member, channel: PUBLIC }),
      ),
    );
    const replies = await Promise.all(sent.map((s) => h.reply(s.responseUrl).then(textOf)));
    await h.idle();
    await h.slack.waitFor(async () => Number(await manualRuns(ids.public)) > before);
    expect(replies.filter((t) => /Posting digest/.test(t))).toHaveLength(1);
    const told = replies.filter((t) =>
      /already running or ran <!date\^\d+\^.*Try again after <!date\^\d+\^/.test(t),
    );
    expect(told).toHaveLength(7);
    expect(told[0]).toContain(`by <@${USERS.member}>`);
    // One run: one header message in the channel, and exactly one manual claim recorded.
    await new Promise((r) => setTimeout(r, 300));
    expect(Number(await manualRuns(ids.public))).toBe(before + 1);
    expect(h.slack.channelMessages(PUBLIC).filter((m) => !m.threadTs)).toHaveLength(1);
    // The cooldown is per digest and held in the store: an operator is told to wait too.
    expect(await ask(`run ${ids.public}`, USERS.admin, PUBLIC)).toMatch(/already running or ran/);
  });
});

describe('digest list', () => {
  it('shows a person only the digests of channels they can see', async () => {
    const member = await ask('list', USERS.member, PUBLIC);
    expect(member).toContain(ids.public);
    expect(member).not.toContain(ids.private);
    expect(member).not.toContain(PRIVATE);
    const owner = await ask('list', USERS.owner, PUBLIC);
    expect(owner).toContain(ids.private);
    expect(owner).toContain(ids.public);
    // A guest sees only the channels they are in (here the public one), never the private one.
    const guest = await ask('list', GUEST, PUBLIC);
    expect(guest).toContain(ids.public);
    expect(guest).not.toContain(ids.private);
  });
});
