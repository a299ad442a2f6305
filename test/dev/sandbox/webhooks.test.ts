/**
 * The sandbox wires the fake Trunk's webhooks to the app: a story step's PR transitions on the watched queue
 * reach #merge-queue within a second, signed and delivered as Svix would, with no poll (the scheduler is off
 * and the watcher never ticks here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../dev/sandbox/index.ts';
import { CHANNEL_ID } from '../../../dev/sandbox/people.ts';
import { FLAKY_EVERY, FLAKY_TESTS, WATCHED_QUEUE } from '../../../dev/sandbox/story.ts';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/observability/log.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

describe('sandbox: Trunk webhooks', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox(loadConfig({ PORT: '0', SCHEDULER_ENABLED: 'false' }), {
      logger: silentLogger(),
      activityIntervalMs: 0,
    });
  }, 30_000);
  afterAll(async () => {
    await sb?.stop();
  });

  it('moves the feed within a second of a change, without a poll', async () => {
    // The watcher has no baseline (it never polled): only a webhook can bring an event.
    const [repo] = WATCHED_QUEUE.split(':');
    const name = repo!.split('/')[1];
    const feed = () =>
      sb.slack.channelMessages(CHANNEL_ID).filter((m) => textOf(m).includes(repo!) && /#\d+/.test(textOf(m)));
    const fed = /^pull_request\.(submitted|merged|failed|canceled)$/;
    for (let i = 0; i < 60; i++) {
      const before = feed().length;
      const attemptsBefore = sb.trunk.webhooks.attempts.length;
      const changed = Date.now();
      sb.step();
      await sb.trunk.webhooks.settled();
      const sent = sb.trunk.webhooks.attempts.slice(attemptsBefore);
      expect(sent.every((a) => a.status === 200)).toBe(true);
      const ours = sent.filter((a) => fed.test(a.type));
      if (ours.length === 0) continue;
      const rows = await sb.app.store.db.query(
        "SELECT payload FROM webhook_inbox WHERE outcome = 'applied' AND payload LIKE $1",
        [`%"name":"${name}"%`],
      );
      if (!rows.some((r) => fed.test(JSON.parse(String(r['payload'])).type))) continue;
      await sb.slack.waitFor(() => (feed().length > before ? true : undefined), 1_000);
      expect(Date.now() - changed).toBeLessThan(1_000);
      return;
    }
    throw new Error('no story step moved the watched queue');
  });

  it("a channel that types `tests watch` hears the story's flaky-test changes of its owners", async () => {
    const res = await fetch(`${sb.url}/api/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: '/mergequeue tests watch owner @acme/payments', as: 'operator' }),
    });
    expect(res.status).toBe(200);
    const heard = () =>
      sb.slack
        .channelMessages(CHANNEL_ID)
        .filter((m) => FLAKY_TESTS.some((t) => textOf(m).includes(t.name)) && !m.threadTs);
    // (+1: the story's first step is the operator's failure alone, when this test runs first.)
    for (let i = 0; i < FLAKY_EVERY * FLAKY_TESTS.length + 1; i++) sb.step();
    await sb.trunk.webhooks.settled();
    await sb.app.webhooks.idle();
    const names = await sb.slack.waitFor(() => {
      const texts = heard().map(textOf);
      return texts.length >= 2 ? texts.join('\n') : undefined;
    });
    for (const t of FLAKY_TESTS) expect(names.includes(t.name)).toBe(t.owner === '@acme/payments');
  });
});
