/**
 * Link unfurls through the wire (issue 22): link_shared events signed to /slack/events, answered with
 * chat.unfurl on the fake Slack, read from the fake Trunk. A known PR shows its state and place in line (v1,
 * and v2's "waits behind"), a failed PR its reason; a queue link its state, concurrency and depth. Nothing
 * unfurls (no chat.unfurl, no message) for an unknown PR, a channel shared with another organization, a
 * private conversation the app was not invited to, a repository the workspace is not connected to or that
 * the person cannot see a source of, another Trunk organization's link, GitHub links while they are off, and
 * a Trunk fault. The same link pasted in ten channels at once costs one read of each kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUnfurl } from '../../../dev/fakes/slack/server.ts';
import { linkSharedEvent } from '../../../dev/fakes/slack/unfurl.ts';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { actionsIn, textOf } from '../../helpers/block-kit-reading.ts';
import { payload, postEventEnvelope, shapeDifferences } from '../../helpers/slack-payloads.ts';

const APP = 'https://app.trunk.example';
const KEY = 'trunk_v2_unfurl_key_123';
let h: Harness;
let v2: Harness;

beforeAll(async () => {
  [h, v2] = await Promise.all([startHarness(), startHarness({ env: { TRUNK_API_KEY: KEY } })]);
});
afterAll(async () => Promise.all([h?.close(), v2?.close()]));

/** acme/web:main with #11 testing and #12 pending (in that order), and #13 failed out of it. */
function seed(harness: Harness) {
  harness.trunk.addQueue('acme/web', 'main', { concurrency: 3 });
  const prs = [
    [11, 'Testing one', 'testing'],
    [12, 'Waiting one', 'pending'],
  ] as const;
  for (const [prNumber, prTitle, state] of prs)
    harness.trunk.enqueuePr('acme/web', 'main', {
      prNumber,
      prTitle,
      prAuthor: `dev${prNumber - 10}`,
      state,
    });
  const failed = { prNumber: 13, prTitle: 'Kicked one', prAuthor: 'dev3', state: 'failed' } as const;
  harness.trunk.addSubmittedPr('acme/web', 'main', { ...failed, isCurrentlySubmittedToQueue: false });
}

/** Posts a link and waits until the app is done with it; the chat.unfurl calls it made. */
async function paste(
  harness: Harness,
  urls: string[],
  o: { user?: string; channel?: string | null; botIsMember?: boolean } = {},
): Promise<FakeUnfurl[]> {
  const before = harness.slack.unfurls.length;
  const event = linkSharedEvent({
    user: o.user ?? USERS.member,
    ...(o.channel === null ? {} : { channel: o.channel ?? CHANNEL }),
    urls,
    ...(o.botIsMember !== undefined ? { botIsMember: o.botIsMember } : {}),
  });
  const sent = await harness.sendEvent(event);
  expect(sent.status).toBe(200);
  await harness.idle();
  const made = harness.slack.unfurls.slice(before);
  for (const u of made) for (const body of Object.values(u.unfurls)) checkUnfurl(body);
  return made;
}

/** Valid Block Kit, and nothing anyone in the channel could click to change something. */
function checkUnfurl(body: Record<string, unknown>) {
  assertValidMessage(body['blocks']);
  expect(actionsIn(body['blocks'])).toEqual([]);
}

/** The unfurl's text as a reader sees it: links by their labels (`raw` keeps Slack's mrkdwn). */
function textOfUnfurl(u: FakeUnfurl | undefined, url: string, raw = false): string {
  const body = u?.unfurls[url];
  const text = textOf({ blocks: body?.['blocks'] });
  return raw ? text : text.replace(/<[^|>]+\|([^>]+)>/g, '$1').replaceAll('*', '');
}

/** Nothing reached the channel: no unfurl, no message, no ephemeral. */
function saidNothing(harness: Harness) {
  expect(harness.slack.unfurls).toEqual([]);
  expect(harness.slack.callsTo('chat.unfurl')).toEqual([]);
  expect(harness.slack.messages).toEqual([]);
  expect(harness.slack.ephemerals).toEqual([]);
}

describe('link unfurls', () => {
  it('a queued PR (v2 PR link): its state and place in line, the time read, Open in Trunk, no buttons', async () => {
    await h.reset();
    seed(h);
    const url = `${APP}/acme/pull/12?repo=acme/web`;
    const [u] = await paste(h, [url]);
    expect(u!.channel).toBe(CHANNEL);
    expect(u!.source).toBeUndefined();
    expect(u!.ts).toBeDefined();
    const text = textOfUnfurl(u, url);
    const raw = textOfUnfurl(u, url, true);
    expect(text).toContain('#12 Waiting one');
    expect(text).toContain('pending');
    expect(text).toContain('number 2 of 2 PRs in the queue');
    expect(raw).toMatch(/read from Trunk <!date\^\d+\^/);
    expect(raw).toContain(`<${APP}/acme/merge-queue/acme/web?branch=main|Open in Trunk>`);
    expect(h.trunk.requestsTo('getSubmittedPullRequest')).toHaveLength(1);
  });

  it('a failed PR (webhook detail link): why it left the queue', async () => {
    await h.reset();
    seed(h);
    const url = `${APP}/gh/acme/web/merge/main/13`;
    const [u] = await paste(h, [url]);
    const text = textOfUnfurl(u, url);
    expect(text).toContain('#13 Kicked one');
    expect(text).toContain('failed: it is not in the queue right now (last state: failed)');
    expect(text).toContain('/mergequeue why 13 acme/web:main');
  });

  it('with a v2 key: the failure reason in why\u2019s words, and what a queued PR waits behind', async () => {
    await v2.reset();
    v2.trunk.v2.setKeys({ [KEY]: [] });
    seed(v2);
    const check = { name: 'ci/unit', url: 'https://ci.example/runs/77', conclusion: 'failure' };
    const failedStep = { state: 'failed', changedAt: '2026-11-20T10:30:00Z' };
    v2.trunk.v2.setHistory('acme/web', 13, [
      { state: 'testing', changedAt: '2026-11-20T10:01:00Z', reason: null },
      { ...failedStep, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', failed: { failureCausingChecks: [check] } },
    ]);
    const failed = `${APP}/acme/pull/13?repo=acme/web`;
    const queued = `${APP}/acme/pull/12?repo=acme/web`;
    const [u] = await paste(v2, [failed, queued]);
    expect(Object.keys(u!.unfurls)).toEqual([failed, queued]);
    const f = textOfUnfurl(u, failed);
    expect(f).toContain('It failed: a required check failed');
    expect(textOfUnfurl(u, failed, true)).toContain('<https://ci.example/runs/77|ci/unit>');
    const q = textOfUnfurl(u, queued);
    expect(q).toContain('waits behind');
    expect(q).toContain('#11');
  });

  it('a queue link (the documented link_shared example): state, concurrency and depth', async () => {
    await h.reset();
    seed(h);
    const envelope = payload('event_callback.link_shared');
    const event = envelope['event'] as Record<string, unknown>;
    // The fake's sender follows the documented example field for field.
    const built = linkSharedEvent({
      user: USERS.member,
      channel: CHANNEL,
      urls: ['https://x.example/1', 'https://x.example/2', 'https://y.example/3'],
      threadTs: '1.2',
    });
    expect(shapeDifferences(built, event)).toEqual([]);
    expect(shapeDifferences(event, built)).toEqual([]);
    event['message_ts'] = `${(Date.now() / 1000).toFixed(6)}`;
    expect((await postEventEnvelope(h, envelope)).status).toBe(200);
    await h.idle();
    const [u] = h.slack.unfurls;
    const url = `${APP}/acme/merge-queue/acme/web?branch=main`;
    // GitHub links are off by default, and the other domain is not ours: only the Trunk link unfurls.
    expect(Object.keys(u!.unfurls)).toEqual([url]);
    checkUnfurl(u!.unfurls[url]!);
    const text = textOfUnfurl(u, url);
    expect(text).toContain('acme/web:main');
    expect(text).toContain('running');
    expect(text).toMatch(/Concurrency\s*3/);
    expect(text).toContain('2 PRs');
  });

  it('a link with `&` (Slack sends `&amp;`) unfurls, keyed by the URL exactly as Slack sent it', async () => {
    await h.reset();
    h.trunk.addQueue('acme/web', 'release', {}, [{ prNumber: 21, prTitle: 'Release fix', state: 'pending' }]);
    const typed = `${APP}/acme/pull/21?repo=acme/web&branch=release`;
    const [u] = await paste(h, [typed]);
    const sent = `${APP}/acme/pull/21?repo=acme/web&amp;branch=release`;
    expect(Object.keys(u!.unfurls)).toEqual([sent]);
    expect(textOfUnfurl(u, sent)).toContain('#21 Release fix');
  });

  it('a composer preview unfurls to nothing (it names no channel), and Trunk is not asked', async () => {
    await h.reset();
    seed(h);
    await h.sendCommand('config unfurl github on', { user: USERS.admin });
    await h.idle();
    h.slack.clear();
    h.trunk.clearRequests();
    // Issue 26: the preview goes with the message wherever it is posted, a Slack Connect channel included.
    const urls = [`${APP}/acme/pull/11?repo=acme/web`, 'https://github.com/acme/web/pull/12'];
    for (const user of [USERS.admin, USERS.member])
      expect(await paste(h, urls, { user, channel: null })).toEqual([]);
    expect(h.trunk.requests).toEqual([]);
    saidNothing(h);
    // Posted in a channel, the same links unfurl by that channel's rules.
    const [u] = await paste(h, urls);
    expect(Object.keys(u!.unfurls)).toEqual(urls);
    await h.sendCommand('config unfurl github off', { user: USERS.admin });
    await h.idle();
  });

  it('an unknown PR unfurls to nothing (Trunk was asked and said 404)', async () => {
    await h.reset();
    seed(h);
    expect(await paste(h, [`${APP}/acme/pull/999?repo=acme/web`])).toEqual([]);
    expect(h.trunk.requestsTo('getSubmittedPullRequest')).toHaveLength(1);
    saidNothing(h);
  });

  it('a Trunk fault unfurls to nothing and says nothing in the channel', async () => {
    await h.reset();
    seed(h);
    // PR 14 was not read in the last seconds (a reading is shared for a few seconds; a fault never is).
    h.trunk.enqueuePr('acme/web', 'main', { prNumber: 14, prTitle: 'Fourteen', state: 'pending' });
    h.trunk.failNext(1, { status: 400, body: 'something Trunk did not like' }, 'getSubmittedPullRequest');
    const url = `${APP}/acme/pull/14?repo=acme/web`;
    expect(await paste(h, [url])).toEqual([]);
    saidNothing(h);
    // The fault was not kept: the next paste reads again and unfurls.
    expect(await paste(h, [url])).toHaveLength(1);
    expect(h.trunk.requestsTo('getSubmittedPullRequest')).toHaveLength(2);
  });

  it('a channel shared with another organization unfurls to nothing, and Trunk is not asked', async () => {
    await h.reset();
    seed(h);
    h.slack.setChannel({ id: 'C0SHARED01', name: 'with-partner', isShared: true });
    expect(await paste(h, [`${APP}/acme/pull/12?repo=acme/web`], { channel: 'C0SHARED01' })).toEqual([]);
    expect(h.trunk.requests).toEqual([]);
    saidNothing(h);
  });

  it('a channel shared between workspaces of one Grid organization (not Slack Connect) unfurls', async () => {
    await h.reset();
    seed(h);
    h.slack.setChannel({ id: 'C0ORGSHRD1', name: 'org-wide-releases', isOrgShared: true });
    const url = `${APP}/acme/pull/12?repo=acme/web`;
    const [u] = await paste(h, [url], { channel: 'C0ORGSHRD1' });
    expect(u!.channel).toBe('C0ORGSHRD1');
    expect(textOfUnfurl(u, url)).toContain('#12 Waiting one');
  });

  it('a private conversation the app was not invited to unfurls to nothing', async () => {
    await h.reset();
    seed(h);
    h.slack.setChannel({ id: 'G0PRIVATE1', name: 'secret', isPrivate: true, isMember: false });
    const url = `${APP}/acme/pull/12?repo=acme/web`;
    expect(await paste(h, [url], { channel: 'G0PRIVATE1', botIsMember: false })).toEqual([]);
    expect(h.trunk.requests).toEqual([]);
    saidNothing(h);
    // Invited, the same link unfurls there.
    h.slack.setChannel({ id: 'G0PRIVATE1', name: 'secret', isPrivate: true, isMember: true });
    expect(await paste(h, [url], { channel: 'G0PRIVATE1', botIsMember: true })).toHaveLength(1);
  });

  it('another Trunk organization\u2019s link and a repository not connected unfurl to nothing', async () => {
    await h.reset();
    seed(h);
    await h.sendCommand('config unfurl github on', { user: USERS.admin });
    await h.idle();
    h.slack.clear();
    h.trunk.addSubmittedPr('other/thing', 'main', { prNumber: 5, state: 'pending' });
    expect(
      await paste(h, [`${APP}/other-org/pull/12?repo=acme/web`, 'https://github.com/other/thing/pull/5']),
    ).toEqual([]);
    expect(h.trunk.requests).toEqual([]);
    saidNothing(h);
    await h.sendCommand('config unfurl github off', { user: USERS.admin });
    await h.idle();
  });

  it('GitHub PR links: off by default; an operator turns them on (audited); others are refused', async () => {
    await h.reset();
    seed(h);
    const url = 'https://github.com/acme/web/pull/12';
    expect(await paste(h, [url])).toEqual([]);
    expect(h.trunk.requests).toEqual([]);

    const audited = () =>
      h.app!.store.db.query<{ action: string; outcome: string; user_id: string }>(
        "SELECT action, outcome, user_id FROM audit_log WHERE action = 'config.unfurl' ORDER BY id",
      );
    const before = (await audited()).length;
    const refused = await h.sendCommand('config unfurl github on', { user: USERS.member });
    expect(textOf(await h.reply(refused.responseUrl))).toMatch(/operator/i);
    const bad = await h.sendCommand('config unfurl github maybe', { user: USERS.admin });
    expect(textOf(await h.reply(bad.responseUrl))).toContain('/mergequeue config unfurl github on');
    expect(await paste(h, [url])).toEqual([]);

    const on = await h.sendCommand('config unfurl github on', { user: USERS.admin });
    expect(textOf(await h.reply(on.responseUrl))).toContain('now unfurl');
    const shown = await h.sendCommand('config', { user: USERS.member });
    expect(textOf(await h.reply(shown.responseUrl))).toContain('GitHub PR links unfurl:* on');
    const [u] = await paste(h, [url]);
    expect(textOfUnfurl(u, url)).toContain('#12 Waiting one');
    expect((await audited()).slice(before).map((a) => [a.outcome, a.user_id])).toEqual([
      ['refused', USERS.member],
      ['ok', USERS.admin],
    ]);

    const off = await h.sendCommand('config unfurl github off', { user: USERS.admin });
    expect(textOf(await h.reply(off.responseUrl))).toContain('no longer unfurl');
    h.slack.clear();
    expect(await paste(h, [url])).toEqual([]);
  });

  it('a GitHub link unfurls only for people who can see a channel that connects its repository', async () => {
    await h.reset();
    seed(h);
    h.trunk.addQueue('acme/api', 'main', {}, [{ prNumber: 4, prTitle: 'Api change', state: 'pending' }]);
    h.slack.setChannel({ id: 'C0SECRET01', name: 'api-team', isPrivate: true, members: [USERS.admin] });
    await h.sendCommand('config channel acme/api:main', { user: USERS.admin, channel: 'C0SECRET01' });
    await h.sendCommand('config unfurl github on', { user: USERS.admin });
    await h.idle();
    h.slack.clear();
    const url = 'https://github.com/acme/api/pull/4';
    // Its only source is a private channel the member is not in.
    expect(await paste(h, [url], { user: USERS.member })).toEqual([]);
    saidNothing(h);
    // In that channel, for someone in it (issue 26: an admin pasting it in a public channel gets nothing,
    // see the next test).
    const [u] = await paste(h, [url], { user: USERS.admin, channel: 'C0SECRET01' });
    expect(textOfUnfurl(u, url)).toContain('#4 Api change');
    await h.sendCommand('config unfurl github off', { user: USERS.admin });
    await h.idle();
  });

  it('a repository known only as a private channel\u2019s default never unfurls in a public channel, whoever pastes it', async () => {
    await h.reset();
    seed(h);
    h.trunk.addQueue('acme/secret', 'main', {}, [
      { prNumber: 7, prTitle: 'Secret change', state: 'pending' },
    ]);
    h.slack.setChannel({ id: 'C0HUSH0001', name: 'hush', isPrivate: true, members: [USERS.admin] });
    h.slack.setChannel({ id: 'C0PUBLIC01', name: 'everyone', members: [USERS.admin, USERS.member] });
    await h.sendCommand('config channel acme/secret:main', { user: USERS.admin, channel: 'C0HUSH0001' });
    await h.sendCommand('config unfurl github on', { user: USERS.admin });
    await h.idle();
    h.slack.clear();
    h.trunk.clearRequests();
    const url = 'https://github.com/acme/secret/pull/7';
    // The admin can see the private channel; the public channel's readers cannot.
    for (const channel of ['C0PUBLIC01', CHANNEL])
      expect(await paste(h, [url], { user: USERS.admin, channel })).toEqual([]);
    expect(h.trunk.requests).toEqual([]);
    saidNothing(h);
    // In the private channel itself it unfurls.
    const [u] = await paste(h, [url], { user: USERS.admin, channel: 'C0HUSH0001' });
    expect(textOfUnfurl(u, url)).toContain('#7 Secret change');
    // Once a public channel follows it too, it unfurls in any public channel.
    await h.sendCommand('config channel acme/secret:main', { user: USERS.admin, channel: 'C0PUBLIC01' });
    await h.idle();
    const [v] = await paste(h, [url], { user: USERS.member, channel: CHANNEL });
    expect(textOfUnfurl(v, url)).toContain('#7 Secret change');
    await h.sendCommand('config unfurl github off', { user: USERS.admin });
    await h.idle();
  });

  it('one link pasted in ten channels at once costs one read of each kind', async () => {
    await h.reset();
    h.trunk.addQueue('acme/ten', 'main', {}, [
      { prNumber: 1, state: 'testing' },
      { prNumber: 5, prTitle: 'Everyone looks at this', state: 'pending' },
    ]);
    const url = `${APP}/gh/acme/ten/merge/main/5`;
    const channels = Array.from({ length: 10 }, (_, i) => `C0TEN${String(i).padStart(5, '0')}`);
    const sent = await Promise.all(
      channels.map((channel) => h.sendEvent(linkSharedEvent({ user: USERS.member, channel, urls: [url] }))),
    );
    expect(sent.map((s) => s.status)).toEqual(channels.map(() => 200));
    await h.slack.waitFor(() => h.slack.unfurls.length >= 10, 10_000);
    await h.idle();
    expect(h.slack.unfurls.map((u) => u.channel).sort()).toEqual(channels);
    for (const u of h.slack.unfurls) expect(textOfUnfurl(u, url)).toContain('number 2 of 2 PRs');
    // Every unfurl was read from one getSubmittedPullRequest and one getQueue.
    expect(h.trunk.requestsTo('getSubmittedPullRequest')).toHaveLength(1);
    expect(h.trunk.requestsTo('getQueue')).toHaveLength(1);
    expect(h.trunk.requests).toHaveLength(2);
  });

  it('with a v2 key too: ten channels at once send each v2 request once', async () => {
    await v2.reset();
    v2.trunk.v2.setKeys({ [KEY]: [] });
    v2.trunk.addQueue('acme/ten', 'main', {}, [
      { prNumber: 1, prTitle: 'First', state: 'testing' },
      { prNumber: 5, prTitle: 'Everyone looks at this', state: 'pending' },
    ]);
    const url = `${APP}/gh/acme/ten/merge/main/5`;
    const channels = Array.from({ length: 10 }, (_, i) => `C0TWO${String(i).padStart(5, '0')}`);
    await Promise.all(
      channels.map((channel) => v2.sendEvent(linkSharedEvent({ user: USERS.member, channel, urls: [url] }))),
    );
    await v2.slack.waitFor(() => v2.slack.unfurls.length >= 10, 10_000);
    await v2.idle();
    for (const u of v2.slack.unfurls) expect(textOfUnfurl(u, url)).toContain('waits behind #1');
    const v2Requests = v2.trunk.requests.filter((r) => r.path.startsWith('/v2/'));
    expect(v2Requests.length).toBeGreaterThan(0);
    const perOperation = new Map<string, number>();
    for (const r of v2Requests) perOperation.set(r.operation, (perOperation.get(r.operation) ?? 0) + 1);
    expect(
      [...perOperation.values()].every((n) => n === 1),
      JSON.stringify([...perOperation]),
    ).toBe(true);
  });
});
