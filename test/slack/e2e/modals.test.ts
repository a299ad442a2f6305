/**
 * The settings and connect modals end to end: the command opens the modal through the fake Slack
 * (views.open, views.update), the harness submits it as Slack would (view_submission), and the answer
 * is checked in the modal response, in Trunk and in the store.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakes/slack/server.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { stateFromView, textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.setTokens(['test-token', 'new-trunk-token-1', 'new-trunk-token-2']);
  h.trunk.addQueue('acme/web', 'main', {
    state: 'running',
    concurrency: 2,
    mode: 'single',
    batch: false,
    requiredStatuses: ['ci/build'],
  });
});

/** Opens the settings modal by command and waits until it is filled in. */
async function openSettings(user: string = USERS.admin): Promise<FakeView> {
  await h.sendCommand('settings acme/web:main', { user });
  return h.slack.waitFor(() => h.slack.views.find((v) => v.view['callback_id'] === 'mq_settings'));
}

describe('settings modal', () => {
  it('opens at once, is filled with the current settings, and saves only the changed fields', async () => {
    const view = await openSettings();
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect(h.slack.callsTo('views.update')).toHaveLength(1);
    const values = stateFromView(view.view);
    expect(values['concurrency']!['v']).toMatchObject({ value: '2' });
    values['concurrency']!['v'] = { type: 'number_input', value: '6' };
    values['mode']!['v'] = { type: 'static_select', selected_option: { value: 'parallel' } };
    h.trunk.clearRequests();
    const sub = await h.submitView({ view, values, user: USERS.admin });
    expect(sub.status).toBe(200);
    expect(sub.json).toBeUndefined(); // a plain ack closes the modal
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    const writes = h.trunkCalls('updateQueue');
    expect(writes).toHaveLength(1);
    const body = writes[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ concurrency: 6, mode: 'parallel' });
    // Only what changed is sent, plus the queue address.
    expect(Object.keys(body).sort()).toEqual(['concurrency', 'mode', 'repo', 'targetBranch']);
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(6);
    expect(textOf(h.slack.channelMessages(CHANNEL)[0])).toContain('settings');
  });

  it('invalid values are shown in the modal and nothing is sent', async () => {
    const view = await openSettings();
    const values = stateFromView(view.view);
    values['concurrency']!['v'] = { type: 'number_input', value: '4294967296' };
    h.trunk.clearRequests();
    const sub = await h.submitView({ view, values, user: USERS.admin });
    expect(sub.status).toBe(200);
    expect(sub.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(sub.json)).toContain('4294967295');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });

  it('an unchanged form sends nothing and says so privately', async () => {
    const view = await openSettings();
    h.trunk.clearRequests();
    await h.submitView({ view, values: stateFromView(view.view), user: USERS.admin });
    const eph = await h.slack.waitFor(() => h.slack.ephemerals[0]);
    expect(eph.user).toBe(USERS.admin);
    expect(eph.text).toContain('Nothing to change');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });

  it('where no ephemeral can be shown, the answer comes as a DM through the outbox', async () => {
    const view = await openSettings();
    h.slack.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    await h.submitView({ view, values: stateFromView(view.view), user: USERS.admin });
    const dm = await h.slack.waitFor(() =>
      h.slack.callsTo('chat.postMessage').find((c) => c.args['channel'] === USERS.admin),
    );
    expect(String(dm.args['text'])).toContain('Nothing to change');
    // Posted by the outbox, whose posts never unfurl links (the listener's own client set no such flag).
    expect(String(dm.args['unfurl_links'])).toBe('false');
  });

  it('a member cannot open it, and a forged submission by a member is refused', async () => {
    const sent = await h.sendCommand('settings acme/web:main', { user: USERS.member });
    expect(textOf(await h.reply(sent.responseUrl))).toContain("can't");
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    const view = await openSettings(USERS.admin);
    const values = stateFromView(view.view);
    values['concurrency']!['v'] = { type: 'number_input', value: '9' };
    h.trunk.clearRequests();
    await h.submitView({ view, values, user: USERS.member });
    const eph = await h.slack.waitFor(() => h.slack.ephemerals.find((e) => e.user === USERS.member));
    expect(eph.text).toContain("can't");
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });

  it('Trunk failing while reading shows the problem in the modal', async () => {
    h.trunk.failNext(50, { status: 503 }, 'getQueue');
    await h.sendCommand('settings acme/web:main', { user: USERS.admin });
    const update = await h.slack.waitFor(() => h.slack.callsTo('views.update')[0]);
    expect(String(update.args['view'])).toMatch(/not reachable|did not answer/);
  });
});

describe('a modal’s private answer where the bot is not in the channel', () => {
  it('comes as a direct message through the outbox', async () => {
    const outside = 'C0OUTSIDE1';
    // The ephemeral answer is refused there (not_in_channel), so it arrives as a DM.
    h.slack.setChannel({ id: outside, name: 'outside', isMember: false });
    await h.sendCommand('settings acme/web:main', { user: USERS.admin, channel: outside });
    const view = await h.slack.waitFor(() =>
      h.slack.views.find((v) => v.view['callback_id'] === 'mq_settings'),
    );
    h.trunk.clearRequests();
    await h.submitView({ view, values: stateFromView(view.view), user: USERS.admin });
    const dm = await h.slack.waitFor(() => h.slack.messages.find((m) => m.channel === USERS.admin));
    expect(textOf(dm)).toContain('Nothing to change');
    expect(h.slack.ephemerals).toEqual([]);
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    // The outbox's own post: no link previews (a direct chat.postMessage here asked for none of that).
    const post = h.slack.callsTo('chat.postMessage').find((c) => c.args['channel'] === USERS.admin);
    expect(post?.args).toMatchObject({ unfurl_links: 'false', unfurl_media: 'false' });
  });
});

describe('connect modal', () => {
  async function openConnect(): Promise<FakeView> {
    await h.sendCommand('connect', { user: USERS.admin });
    return h.slack.waitFor(() => h.slack.views.find((v) => v.view['callback_id'] === 'mq_connect'));
  }

  function connectValues(view: FakeView, token: string, slug = 'acme', repo = '') {
    const values = stateFromView(view.view);
    values['token'] = { v: { type: 'plain_text_input', value: token } };
    values['orgSlug'] = { v: { type: 'plain_text_input', value: slug } };
    values['defaultRepo'] = { v: { type: 'plain_text_input', value: repo || null } };
    return values;
  }

  it('checks the token with one read call, stores it encrypted, and never echoes it', async () => {
    const view = await openConnect();
    h.trunk.clearRequests();
    const sub = await h.submitView({
      view,
      values: connectValues(view, 'new-trunk-token-1', 'acme', 'acme/web:main'),
      user: USERS.admin,
    });
    expect(sub.status).toBe(200);
    expect(sub.json).toBeUndefined();
    const reads = h.trunkCalls();
    expect(reads).toHaveLength(1);
    expect(reads[0]!.operation).toBe('getQueue');
    expect(reads[0]!.headers['x-api-token']).toBe('new-trunk-token-1');
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toEqual({
      token: 'new-trunk-token-1',
      orgSlug: 'acme',
    });
    const eph = await h.slack.waitFor(() => h.slack.ephemerals[0]);
    expect(eph.text).toContain('acme');
    // The token appears in no Slack call the app made.
    for (const c of h.slack.calls) expect(JSON.stringify(c.args)).not.toContain('new-trunk-token-1');
    // Commands now use the stored token.
    h.trunk.clearRequests();
    await h.sendCommand('status');
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunkCalls('getQueue')[0]!.headers['x-api-token']).toBe('new-trunk-token-1');
  });

  it('replacing the token works', async () => {
    const view = await openConnect();
    await h.submitView({ view, values: connectValues(view, 'new-trunk-token-2'), user: USERS.admin });
    expect((await h.app!.store.getTrunkCredentials(TEAM))?.token).toBe('new-trunk-token-2');
  });

  it('a token Trunk rejects is reported in the modal and not stored', async () => {
    const before = await h.app!.store.getTrunkCredentials(TEAM);
    const view = await openConnect();
    const sub = await h.submitView({
      view,
      values: connectValues(view, 'wrong-token-123'),
      user: USERS.admin,
    });
    expect(sub.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(sub.json)).toContain('rejected');
    expect(JSON.stringify(sub.json)).not.toContain('wrong-token-123');
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toEqual(before);
  });

  it('malformed fields are reported without calling Trunk', async () => {
    const view = await openConnect();
    h.trunk.clearRequests();
    const sub = await h.submitView({
      view,
      values: connectValues(view, 'has space', 'bad slug!'),
      user: USERS.admin,
    });
    expect(sub.json).toMatchObject({ response_action: 'errors' });
    const errors = (sub.json as { errors: Record<string, string> }).errors;
    expect(Object.keys(errors).sort()).toEqual(['orgSlug', 'token']);
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('a connect form submitted by a member is refused in the form, nothing stored, the refusal audited', async () => {
    const before = await h.app!.store.getTrunkCredentials(TEAM);
    const view = await openConnect();
    h.trunk.clearRequests();
    const sub = await h.submitView({
      view,
      values: connectValues(view, 'member-token-1'),
      user: USERS.member,
    });
    expect(sub.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(sub.json)).toContain("You can't connect Trunk");
    expect(h.trunkCalls()).toHaveLength(0);
    expect(await h.app!.store.getTrunkCredentials(TEAM)).toEqual(before);
    const [last] = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(last).toMatchObject({ userId: USERS.member, action: 'connect', outcome: 'refused' });
  });

  it('a member may not connect', async () => {
    const sent = await h.sendCommand('connect', { user: USERS.member });
    expect(textOf(await h.reply(sent.responseUrl))).toContain("can't");
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
  });
});
