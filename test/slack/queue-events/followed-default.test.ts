/**
 * A queue is followed while a channel watches it, a live status message shows it, or it is a channel's or
 * the workspace's default queue (DESIGN, "Timing") — including a workspace default that comes from
 * DEFAULT_REPO alone. Through the real wire: single-workspace mode with DEFAULT_REPO=acme/web:main and
 * nothing configured in Slack, a person links themselves with a signed `/mergequeue me github dev1`, and
 * the watcher (clock injected) polls the Trunk fake and DMs them when their PR fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;
const clock = { now: Date.now() };

beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now }, env: { DEFAULT_REPO: 'acme/web:main' } });
});
afterAll(async () => h?.close());

async function interval(seconds = 21) {
  clock.now += seconds * 1000;
  await h.app!.events!.tick();
}

describe('the workspace default from DEFAULT_REPO alone is followed', () => {
  it('a person linked with `me github` hears that their PR failed, though no channel watches the queue', async () => {
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 1 });
    h.trunk.enqueuePr('acme/web', 'main', { prNumber: 1001, prAuthor: 'dev1', state: 'testing' });
    // Nothing is configured in Slack: no workspace settings, no channel default, no watch.
    expect(await h.app!.store.getWorkspace(TEAM)).toBeUndefined();
    const sent = await h.sendCommand('me github dev1', { user: USERS.member });
    expect(textOf(await h.reply(sent.responseUrl))).toContain('linked to GitHub login');

    h.trunk.clearRequests();
    await interval(); // the first look sets the baseline
    expect(h.trunkCalls('getQueue').length).toBeGreaterThan(0);

    h.trunk.dequeuePr('acme/web', 'main', 1001);
    h.trunk.addSubmittedPr('acme/web', 'main', {
      prNumber: 1001,
      prAuthor: 'dev1',
      state: 'failed' as never,
      isCurrentlySubmittedToQueue: false,
    });
    await interval();
    const note = await h.slack.waitFor(() =>
      h.slack.channelMessages(USERS.member).find((m) => textOf(m).includes('#1001')),
    );
    expect(textOf(note)).toContain('Your PR');
    expect(textOf(note)).toContain('failed');
  });
});
