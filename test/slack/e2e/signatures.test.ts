/**
 * Requests not signed by Slack are refused with 401 and cause nothing: no Trunk call, no Slack call.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders, slashCommandBody } from '../../../dev/fakes/slack/signing.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.idle();
  h.slack.clear();
  h.trunk.clearRequests();
});

/** Waits long enough that a listener, had it run, would have called Trunk and Slack. */
async function nothingHappened() {
  await new Promise((r) => setTimeout(r, 300));
  expect(h.trunkCalls()).toHaveLength(0);
  expect(h.slack.calls.filter((c) => c.method !== 'auth.test')).toHaveLength(0);
  expect(h.slack.responsePosts).toHaveLength(0);
  expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
}

describe('request signatures', () => {
  it('a correctly signed command is accepted (control)', async () => {
    const sent = await h.sendCommand('pause', { user: USERS.admin });
    expect(sent.status).toBe(200);
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
    h.trunk.patchQueue('acme/web', 'main', { state: 'running' });
  });

  it('a wrong signing secret gets 401', async () => {
    const sent = await h.sendCommand('pause', { user: USERS.admin, signingSecret: 'not-the-secret' });
    expect(sent.status).toBe(401);
    await nothingHappened();
  });

  it('a missing signature gets 401', async () => {
    const sent = await h.sendCommand('pause', { user: USERS.admin, omitSignature: true });
    expect(sent.status).toBe(401);
    await nothingHappened();
  });

  it('a stale timestamp (10 minutes old, correctly signed) gets 401', async () => {
    const sent = await h.sendCommand('pause', {
      user: USERS.admin,
      timestampSeconds: Math.floor(Date.now() / 1000) - 600,
    });
    expect(sent.status).toBe(401);
    await nothingHappened();
  });

  it('a timestamp 10 minutes in the future (correctly signed) gets 401', async () => {
    const sent = await h.sendCommand('pause', {
      user: USERS.admin,
      timestampSeconds: Math.floor(Date.now() / 1000) + 600,
    });
    expect(sent.status).toBe(401);
    await nothingHappened();
  });

  it('a body changed after signing gets 401', async () => {
    const responseUrl = h.slack.responseUrl({ channel: CHANNEL, user: USERS.member });
    const signedBody = slashCommandBody({
      teamId: TEAM,
      userId: USERS.member,
      channelId: CHANNEL,
      text: 'status',
      responseUrl,
    });
    const forged = slashCommandBody({
      teamId: TEAM,
      userId: USERS.admin,
      channelId: CHANNEL,
      text: 'pause',
      responseUrl,
    });
    const res = await fetch(`${h.url}/slack/events`, {
      method: 'POST',
      headers: signedHeaders(h.signingSecret, signedBody),
      body: forged,
    });
    expect(res.status).toBe(401);
    await nothingHappened();
  });

  it('a signed button click with a bad signature gets 401', async () => {
    const sent = await h.clickButton({
      message: { channel: CHANNEL, ts: '1700000000.000100' },
      actionId: 'mq_pause',
      value: JSON.stringify({ t: 'acme/web:main', s: 'running', c: 1, v: 1 }),
      user: USERS.admin,
      signingSecret: 'wrong',
    });
    expect(sent.status).toBe(401);
    await nothingHappened();
  });

  it("Slack's unsigned ssl_check gets 200, and a payload smuggled beside it is not read", async () => {
    const payload = JSON.stringify({
      type: 'block_actions',
      user: { id: USERS.admin, team_id: TEAM },
      team: { id: TEAM },
      actions: [{ action_id: 'mq_pause', type: 'button', value: 'x' }],
    });
    for (const body of ['ssl_check=1&token=x', `ssl_check=1&payload=${encodeURIComponent(payload)}`]) {
      const res = await fetch(`${h.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      expect(res.status).toBe(200);
    }
    await nothingHappened();
  });
});
