/**
 * The buttons of the live status message, end to end: signed block_actions payloads built from the
 * message the fake Slack holds, so every click carries exactly the value the app rendered.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANNEL,
  type Harness,
  postStatusMessage,
  startHarness,
  TEAM,
  USERS,
} from '../../helpers/app-harness.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { clickThroughReasonModal, reasonModal, submitReason } from '../../helpers/reason-modal.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

const statusMessage = () => postStatusMessage(h);

const writes = () => h.trunkCalls('updateQueue');
/** Messages posted after the status message (announcements). */
const announcements = () => h.slack.channelMessages(CHANNEL).slice(1);

describe('state buttons', () => {
  it('Pause by an admin opens a reason modal; submitting it pauses, redraws in place, announces and audits the reason', async () => {
    const msg = await statusMessage();
    const before = h.slack.views.length;
    const { click, view, submit } = await clickThroughReasonModal(h, {
      message: msg,
      actionId: 'mq_pause',
      user: USERS.admin,
      reason: 'main is broken, fixing',
    });
    expect(click.status).toBe(200);
    // The click only opened the modal, naming the queue; the change waited for the submission.
    expect(h.slack.views.length).toBe(before + 1);
    expect(textOf({ blocks: view.view['blocks'] })).toContain('acme/web:main');
    expect(submit.status).toBe(200);
    expect(submit.json).toBeUndefined(); // a plain ack closes the modal
    await h.slack.waitFor(() => announcements()[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    expect(writes()).toHaveLength(1);
    // The same message (same ts), edited: now paused, with the clicker and the reason, and a Resume button.
    const updated = h.slack.message(CHANNEL, msg.ts)!;
    expect(updated.history).toHaveLength(1);
    expect(textOf(updated)).toContain('paused');
    expect(textOf(updated)).toContain(`<@${USERS.admin}>`);
    expect(textOf(updated)).toContain('main is broken, fixing');
    expect(findAction(updated.blocks ?? [], 'mq_resume')).toBeDefined();
    expect(textOf(announcements()[0])).toContain(`<@${USERS.admin}>`);
    expect(textOf(announcements()[0])).toContain('main is broken, fixing');
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: USERS.admin });
    expect(audit[0]!.detail).toMatchObject({ reason: 'main is broken, fixing', via: 'button' });
  });

  it('Pause submitted with no reason still pauses; a reason over 500 characters is refused in the modal', async () => {
    const msg = await statusMessage();
    const long = await clickThroughReasonModal(h, {
      message: msg,
      actionId: 'mq_pause',
      user: USERS.admin,
      reason: 'x'.repeat(501),
    });
    expect(long.submit.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(long.submit.json)).toContain('500 characters');
    expect(writes()).toHaveLength(0);
    await submitReason(h, long.view, undefined, USERS.admin);
    await h.slack.waitFor(() => announcements()[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
  });

  it('Drain (through its modal) then Resume (a quick confirm, no modal) from the updated message', async () => {
    const msg = await statusMessage();
    await clickThroughReasonModal(h, { message: msg, actionId: 'mq_drain', user: USERS.owner });
    await h.slack.waitFor(() => announcements()[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('draining');
    const now = h.slack.message(CHANNEL, msg.ts)!;
    const resume = findAction(now.blocks ?? [], 'mq_resume')!;
    expect(resume['confirm']).toBeDefined();
    const views = h.slack.views.length;
    await h.clickButton({ message: now, actionId: 'mq_resume', user: USERS.owner });
    await h.slack.waitFor(() => announcements()[1]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(h.slack.views.length).toBe(views);
  });

  it('a double click opens two modals; submitting both changes the queue once', async () => {
    const msg = await statusMessage();
    await Promise.all([
      h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.admin, triggerId: 'trig-double-1' }),
      h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.admin, triggerId: 'trig-double-2' }),
    ]);
    const [v1, v2] = await Promise.all([reasonModal(h, 'trig-double-1'), reasonModal(h, 'trig-double-2')]);
    const [a, b] = await Promise.all([
      submitReason(h, v1, 'first', USERS.admin),
      submitReason(h, v2, 'second', USERS.admin),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await h.slack.waitFor(() =>
      h.slack.ephemerals.some((e) => /already handled|already paused/.test(textOf(e))),
    );
    await h.slack.waitFor(() => announcements()[0]);
    expect(writes()).toHaveLength(1);
    expect(announcements()).toHaveLength(1);
    const audit = await h.app!.store.listAudit(TEAM, { limit: 2 });
    expect(audit.map((e) => e.outcome).sort()).toEqual(['noop', 'ok']);
  });

  it('a modal submitted after someone else changed the queue acts on the current state, not the shown one', async () => {
    const msg = await statusMessage(); // shows running
    const triggerId = 'trig-stale-drain';
    await h.clickButton({ message: msg, actionId: 'mq_drain', user: USERS.admin, triggerId });
    const view = await reasonModal(h, triggerId);
    await h.sendCommand('pause', { user: USERS.admin }); // someone pauses by command meanwhile
    await h.slack.waitFor(() => h.trunk.queue('acme/web', 'main')!.state === 'paused');
    h.trunk.clearRequests();
    await submitReason(h, view, 'release cut', USERS.admin);
    const eph = await h.slack.waitFor(() => h.slack.ephemerals.find((e) => e.user === USERS.admin));
    expect(textOf(eph)).toContain('paused now');
    expect(writes()).toHaveLength(0);
    // The message is redrawn with the current state.
    await h.slack.waitFor(() => h.slack.message(CHANNEL, msg.ts)!.history.length === 1);
    expect(textOf(h.slack.message(CHANNEL, msg.ts))).toContain('paused');
  });

  it('a submission by someone who is not an operator is refused, ephemeral and audited', async () => {
    const msg = await statusMessage();
    const { submit } = await clickThroughReasonModal(h, {
      message: msg,
      actionId: 'mq_pause',
      user: USERS.admin,
      submitAs: USERS.member,
      reason: 'forged',
    });
    expect(submit.status).toBe(200);
    const eph = await h.slack.waitFor(() => h.slack.ephemerals.find((e) => e.user === USERS.member));
    expect(textOf(eph)).toContain("can't");
    expect(writes()).toHaveLength(0);
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'refused', userId: USERS.member });
  });

  it('a member who is not an operator is refused: ephemeral, nothing changed, message untouched, audited', async () => {
    const msg = await statusMessage();
    const click = await h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.member });
    const reply = await h.reply(click.responseUrl);
    expect(reply['response_type']).toBe('ephemeral');
    expect(reply['replace_original']).toBe(false);
    expect(textOf(reply)).toContain("can't");
    expect(writes()).toHaveLength(0);
    expect(h.trunkCalls()).toHaveLength(0);
    expect(h.slack.message(CHANNEL, msg.ts)!.history).toHaveLength(0);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'refused', userId: USERS.member });
  });

  it('a tampered button value is rejected without touching Trunk', async () => {
    const msg = await statusMessage();
    for (const value of [
      'not json',
      '{"t":"acme/web:main"}',
      JSON.stringify({ t: '../../x', s: 'running', c: 2, v: 1 }),
    ]) {
      const click = await h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.admin, value });
      const reply = await h.reply(click.responseUrl);
      expect(textOf(reply)).toContain('no longer valid');
    }
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('when chat.update fails the message is replaced through response_url', async () => {
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    const msg = await statusMessage();
    h.slack.failNext('chat.update', { error: 'message_not_found' });
    const click = await h.clickButton({ message: msg, actionId: 'mq_resume', user: USERS.admin });
    const reply = await h.slack.waitFor(() =>
      h.slack.postsTo(click.responseUrl).find((p) => p.body['replace_original'] === true),
    );
    expect(textOf(reply.body)).toContain('running');
    expect(h.slack.message(CHANNEL, msg.ts)!.history).toHaveLength(1);
  });

  it('when the bot may not post in the channel the announcement goes through respond in_channel', async () => {
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    const msg = await statusMessage();
    h.slack.failNext('chat.postMessage', { error: 'not_in_channel' });
    const click = await h.clickButton({ message: msg, actionId: 'mq_resume', user: USERS.admin });
    const reply = await h.slack.waitFor(() =>
      h.slack
        .postsTo(click.responseUrl)
        .find((p) => p.body['response_type'] === 'in_channel' && !p.body['replace_original']),
    );
    expect(textOf(reply.body)).toContain(`<@${USERS.admin}>`);
  });

  it('Trunk failing during a click: friendly ephemeral error, message unchanged', async () => {
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    const msg = await statusMessage();
    h.trunk.failNext(50, { status: 502 });
    const click = await h.clickButton({ message: msg, actionId: 'mq_resume', user: USERS.admin });
    const reply = await h.reply(click.responseUrl);
    expect(textOf(reply)).toMatch(/not reachable|did not answer/);
    expect(h.slack.message(CHANNEL, msg.ts)!.history).toHaveLength(0);
  });
});

describe('concurrency and refresh buttons', () => {
  it('+ raises the concurrency by one from the shown value', async () => {
    const msg = await statusMessage();
    await h.clickButton({ message: msg, actionId: 'mq_concurrency_inc', user: USERS.admin });
    await h.slack.waitFor(() => announcements()[0]);
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(3);
    expect(writes()[0]!.body).toMatchObject({ concurrency: 3 });
    expect(textOf(h.slack.message(CHANNEL, msg.ts))).toContain('3');
  });

  it('− does nothing when the concurrency changed since the message was drawn', async () => {
    const msg = await statusMessage();
    h.trunk.patchQueue('acme/web', 'main', { concurrency: 7 });
    const click = await h.clickButton({ message: msg, actionId: 'mq_concurrency_dec', user: USERS.admin });
    const reply = await h.reply(click.responseUrl);
    expect(textOf(reply)).toContain('is 7 now');
    expect(writes()).toHaveLength(0);
  });

  it('Refresh redraws the message with the current queue, for anyone', async () => {
    const msg = await statusMessage();
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    await h.clickButton({ message: msg, actionId: 'mq_refresh', user: USERS.member });
    await h.slack.waitFor(() => h.slack.message(CHANNEL, msg.ts)!.history.length === 1);
    expect(textOf(h.slack.message(CHANNEL, msg.ts))).toContain('paused');
    expect(writes()).toHaveLength(0);
  });

  it('Settings opens the settings modal for that queue (operators only)', async () => {
    const msg = await statusMessage();
    const refused = await h.clickButton({ message: msg, actionId: 'mq_settings_open', user: USERS.member });
    expect(textOf(await h.reply(refused.responseUrl))).toContain("can't");
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    await h.clickButton({ message: msg, actionId: 'mq_settings_open', user: USERS.admin });
    const view = await h.slack.waitFor(() =>
      h.slack.views.find((v) => v.view['callback_id'] === 'mq_settings'),
    );
    expect(JSON.stringify(view.view)).toContain('acme/web:main');
  });

  it('Open in Trunk (a link button) is acknowledged and changes nothing', async () => {
    const msg = await statusMessage();
    const click = await h.clickButton({ message: msg, actionId: 'mq_open_trunk', user: USERS.member });
    expect(click.status).toBe(200);
    await h.idle();
    expect(h.trunkCalls()).toHaveLength(0);
    expect(h.slack.postsTo(click.responseUrl)).toHaveLength(0);
  });
});
