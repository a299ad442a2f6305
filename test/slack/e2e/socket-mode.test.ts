/**
 * Socket Mode (SLACK_APP_TOKEN set): the app opens a WebSocket through apps.connections.open on the fake
 * Slack, acknowledges each envelope at once, answers through response_url, and still serves the
 * operational routes over HTTP on PORT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slashCommandBody } from '../../../dev/fakes/slack/signing.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { SLACK_APP_TOKEN: 'xapp-1-A0FAKEAPP-test', SLACK_SIGNING_SECRET: undefined },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  await h.slack.socketMode.connected();
});
afterAll(async () => h?.close());

/** A slash command as Socket Mode delivers it: the same fields, as a JSON object. */
function command(text: string, user: string, responseUrl: string) {
  return Object.fromEntries(
    new URLSearchParams(
      slashCommandBody({ teamId: TEAM, userId: user, channelId: CHANNEL, text, responseUrl }),
    ),
  );
}

describe('Socket Mode', () => {
  it('connected with the app token, not the bot token', () => {
    const open = h.slack.callsTo('apps.connections.open');
    expect(open.length).toBeGreaterThan(0);
    expect(open[0]!.token).toBe('xapp-1-A0FAKEAPP-test');
    expect(h.slack.socketMode.connections()).toBe(1);
  });

  it('acks a command envelope at once and answers through response_url', async () => {
    const responseUrl = h.slack.responseUrl({ channel: CHANNEL, user: USERS.member });
    const ack = await h.slack.socketMode.send('slash_commands', command('help', USERS.member, responseUrl));
    expect(ack.ackMs).toBeLessThan(1_000);
    const reply = await h.reply(responseUrl);
    expect(textOf(reply)).toContain('status');
  });

  it('a pause by an admin reaches Trunk and is announced', async () => {
    const responseUrl = h.slack.responseUrl({ channel: CHANNEL, user: USERS.admin });
    await h.slack.socketMode.send('slash_commands', command('pause acme/web:main', USERS.admin, responseUrl));
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
  });

  it('serves /healthz over HTTP on PORT', async () => {
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
