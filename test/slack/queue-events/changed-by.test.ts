/**
 * "Changed by @X" only when X's own change produced the value the feed reports (issue 19): a pause made
 * from Slack followed, before the next poll, by a change of the same setting in Trunk's web app is reported
 * as changed outside Slack, never as X's doing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;
const clock = { now: Date.now() };
beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now } });
});
afterAll(async () => h?.close());

const CHANNEL = 'C0CHANGEDBY';
/** What the feed posted: the command's own announcements (feed started, queue paused) are not counted. */
const feed = () =>
  h.slack
    .channelMessages(CHANNEL)
    .filter((m) => /changed (by|outside|from)/.test(textOf(m)) && !/started a feed of/.test(textOf(m)));

async function interval() {
  clock.now += 21_000;
  await h.app!.events!.tick();
}

describe('who changed a queue, as the feed says it', () => {
  it("a person's pause undone in Trunk before the poll is reported as changed outside Slack", async () => {
    h.trunk.addQueue('acme/byx', 'main', { state: 'running', concurrency: 2 });
    const sent = await h.sendCommand('watch acme/byx:main', { channel: CHANNEL });
    await h.reply(sent.responseUrl);
    await interval(); // baseline

    // The admin pauses from Slack, then someone drains it in Trunk's web app: the poll sees "draining".
    const pause = await h.sendCommand('pause acme/byx:main incident', {
      user: USERS.admin,
      channel: CHANNEL,
    });
    expect(pause.status).toBe(200);
    // Trunk applied it (the command's own announcement is in the channel, not in its response_url).
    await h.slack.waitFor(() => h.trunk.requestsTo('updateQueue').find((r) => r.done));
    h.trunk.patchQueue('acme/byx', 'main', { state: 'draining' });
    await interval();
    const post = await h.slack.waitFor(() => feed()[0]);
    expect(textOf(post)).toMatch(/running.*→.*draining/s);
    expect(textOf(post)).toContain('changed outside Slack');
    expect(textOf(post)).not.toContain(`changed by <@${USERS.admin}>`);

    // Their own change, observed as they made it, still names them.
    const resume = await h.sendCommand('resume acme/byx:main done', { user: USERS.admin, channel: CHANNEL });
    expect(resume.status).toBe(200);
    await h.slack.waitFor(() => h.trunk.requestsTo('updateQueue').filter((r) => r.done)[1]);
    await interval();
    const ours = await h.slack.waitFor(() => feed()[1]);
    expect(textOf(ours)).toContain(`changed by <@${USERS.admin}>`);
  });
});
