/**
 * What visibility asks Slack is cached like the Trunk reads (issue 19): many people listing at once cost
 * one conversations.members and one conversations.info per channel, and a channel Slack will not describe
 * (gone, or the bot not in it) is not asked again for each person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { manyUsers, PEOPLE } from '../../helpers/people-load.ts';

const SEEN = 'C0VISSEEN1';
/** Known to the app (a digest posts there) but not to Slack any more: conversations.* answer channel_not_found. */
const GONE = 'C0VISGONE1';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    slackOptions: {
      users: manyUsers(),
      channels: [
        { id: SEEN, name: 'web-team', isPrivate: true, members: [USERS.admin, ...PEOPLE] },
        { id: GONE, gone: true },
      ],
    },
  });
  h.trunk.setFailingTests('acme/web', []);
  for (const channel of [SEEN, GONE]) {
    const sent = await h.sendCommand('digest add failing acme/web 09:00 UTC daily', {
      user: USERS.admin,
      channel,
    });
    expect(textOf(await h.reply(sent.responseUrl))).toMatch(/Added digest/);
  }
});
afterAll(async () => h?.close());

describe('visibility lookups are cached', () => {
  it('ten people listing digests at once cost one lookup per channel, refusals included', async () => {
    await h.reset();
    const sent = await Promise.all(
      PEOPLE.slice(0, 10).map((user) => h.sendCommand('digest list', { user, channel: SEEN })),
    );
    const replies = await Promise.all(sent.map((s) => h.reply(s.responseUrl, 15_000)));
    for (const r of replies) {
      // Each sees the digest of the private channel they are in, and not the one Slack will not describe.
      expect(textOf(r)).toContain(SEEN);
      expect(textOf(r)).not.toContain(GONE);
    }
    const asked = (method: string, channel: string) =>
      h.slack.callsTo(method).filter((c) => c.args['channel'] === channel).length;
    expect(asked('conversations.members', SEEN)).toBe(1);
    expect(asked('conversations.members', GONE)).toBe(1);
    expect(asked('conversations.info', GONE)).toBeLessThanOrEqual(1);
  });
});
