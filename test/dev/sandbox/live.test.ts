/**
 * What the sandbox shows of queue events, freeze windows, the Home tab and PR buttons, over the page's
 * HTTP API: the story moves one step at a time (no timers: `activityIntervalMs: 0`, scheduler off) and the
 * watcher polls when the test says, so every run sees the same thing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../dev/sandbox/index.ts';
import { USERS } from '../../../dev/sandbox/people.ts';
import { SEEDED } from '../../../dev/sandbox/seed.ts';
import { FREEZE_REASON, FROZEN_QUEUE, failOperatorPr } from '../../../dev/sandbox/story.ts';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/observability/log.ts';
import { follow, type PageMessage } from './page-stream.ts';

const textOf = (m: PageMessage) => `${m.text} ${JSON.stringify(m.blocks ?? [])}`;
const OPERATOR_PR = `#${SEEDED.operatorPr}`;

/** [block index, element index] of the button whose action_id is `actionId`. */
function buttonPath(m: PageMessage, actionId: string): string | undefined {
  for (const [i, b] of (m.blocks ?? []).entries()) {
    const elements = (b['elements'] ?? []) as Array<Record<string, unknown>>;
    const j = elements.findIndex((e) => e['action_id'] === actionId);
    if (b['type'] === 'actions' && j !== -1) return `${i}.${j}`;
  }
  return undefined;
}

describe('sandbox: queue events, freeze, Home and PR buttons', () => {
  let sb: Sandbox;
  let base: string;
  let page: Awaited<ReturnType<typeof follow>>;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}/sandbox/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const channelMessages = () => [...page.messages.values()].filter((m) => !m.ephemeralTo && !m.dmWith);
  /** The app's clock runs ahead by this much: each tick is one watch interval after the last. */
  let skew = 0;
  const tick = () => {
    skew += 5_000;
    return sb.app.events!.tick();
  };

  beforeAll(async () => {
    sb = await startSandbox(loadConfig({ PORT: '0', SCHEDULER_ENABLED: 'false' }), {
      logger: silentLogger(),
      activityIntervalMs: 0,
      clock: () => Date.now() + skew,
    });
    base = sb.url.replace(/\/sandbox$/, '');
    page = await follow(base);
  });
  afterAll(async () => {
    page?.close();
    await sb?.stop();
  });

  it('the seed links the operator (checked by an operator), watches a queue and adds a freeze window', async () => {
    await post('command', { as: 'operator', text: 'me' });
    await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => m.ephemeralTo === USERS.operator.id && textOf(m).includes(USERS.operator.github),
        ),
      "the operator's link",
    );
    await post('command', { as: 'operator', text: 'watch list' });
    const watches = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) =>
            m.ephemeralTo === USERS.operator.id &&
            /acme\/web:main/.test(textOf(m)) &&
            /watch/i.test(textOf(m)),
        ),
      'the watch list',
    );
    expect(textOf(watches)).toMatch(/submitted/);
  });

  it("a status message of the frozen queue shows its freeze window's line", async () => {
    await post('command', { as: 'operator', text: `status ${FROZEN_QUEUE}` });
    const status = await page.until(
      () => channelMessages().find((m) => textOf(m).includes(`Merge queue ${FROZEN_QUEUE}`)),
      'the status message of the frozen queue',
    );
    expect(textOf(status)).toMatch(/Freeze window `f[a-z0-9]{5}` is on \(drain\)/);
    expect(textOf(status)).toContain(FREEZE_REASON);
  });

  it("after a change in Trunk: the live status message updates itself, the feed posts, the author's DM arrives", async () => {
    await post('command', { as: 'operator', text: 'status' });
    const status = await page.until(
      () => channelMessages().find((m) => textOf(m).includes('Merge queue acme/web:main')),
      'the status message',
    );
    expect(textOf(status)).toContain(OPERATOR_PR);
    expect(textOf(status)).toContain('live · updated');
    await tick(); // the watcher's first look: a baseline, nothing announced
    const before = channelMessages().length;
    expect(before).toBeGreaterThan(0);

    expect((await post('step', { as: 'operator' }))['happened']).toEqual([
      `acme/web:main: ${OPERATOR_PR} (${USERS.operator.name}'s) failed its tests`,
    ]);
    await tick();

    const updated = await page.until(() => {
      const m = page.messages.get(status.ts);
      return m?.edited && !textOf(m).includes('Retry the 3-D') && !textOf(m).includes(OPERATOR_PR)
        ? m
        : undefined;
    }, 'the status message updated in place');
    expect(textOf(updated)).toContain('live · updated');
    const feed = await page.until(
      () =>
        channelMessages().find(
          (m) => m.ts > status.ts && /failed/i.test(textOf(m)) && textOf(m).includes(OPERATOR_PR),
        ),
      'the feed post',
    );
    expect(feed.ts).not.toBe(status.ts);
    const dm = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => m.dmWith === USERS.operator.id && textOf(m).includes(OPERATOR_PR),
        ),
      "the operator's DM",
    );
    expect(textOf(dm)).toMatch(/Your PR .*failed/);
    // Only the author gets it, and it is not in the channel.
    expect(sb.slack.messages.find((m) => m.ts === dm.ts)?.channel).toBe(USERS.operator.id);
  });

  it("the operator restarts their own failed PR from its note's Restart tests button", async () => {
    // The note about the failed PR, in the operator's DM, carries its next steps.
    const note = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => m.dmWith === USERS.operator.id && buttonPath(m, 'mq_pr_restart') !== undefined,
        ),
      "the failed PR's note with its Restart tests button",
    );
    const restarts = sb.trunk.requestsTo('restartTestsOnPullRequest').length;
    const res = await post('action', {
      as: 'operator',
      ts: note.ts,
      path: buttonPath(note, 'mq_pr_restart'),
    });
    expect(res).toEqual({ ok: true });
    await sb.trunk.waitForRequest('restartTestsOnPullRequest', { count: restarts + 1 });
    expect(sb.trunk.submittedPr('acme/web', 'main', SEEDED.operatorPr)?.state).toBe('testing');
    await page.until(() => page.messages.get(note.ts)?.edited, 'the message updated in place');
  });

  it("a click in the app's DM is sent from the DM, and the app acts and updates that message", async () => {
    // The PR fails again; its `pr` reply's buttons, posted by the app into the operator's DM, are clicked there.
    expect(failOperatorPr(sb.trunk)).toBe(true);
    await post('command', { as: 'operator', text: `pr ${SEEDED.operatorPr}` });
    const reply = await page.until(
      () =>
        [...page.messages.values()]
          .reverse()
          .find((m) => m.ephemeralTo === USERS.operator.id && buttonPath(m, 'mq_pr_restart') !== undefined),
      'the PR reply with Restart tests',
    );
    const posted = await sb.app.bolt.client.chat.postMessage({
      channel: USERS.operator.id,
      text: reply.text,
      blocks: reply.blocks as never,
    });
    const dm = await page.until(() => page.messages.get(String(posted.ts)), 'the DM on the page');
    expect(dm.dmWith).toBe(USERS.operator.id);
    // Only its person can click in a DM.
    const path = buttonPath(dm, 'mq_pr_restart');
    expect(await post('action', { as: 'member', ts: dm.ts, path })).toEqual({
      ok: false,
      error: 'That message is no longer there.',
    });
    const restarts = sb.trunk.requestsTo('restartTestsOnPullRequest').length;
    expect(await post('action', { as: 'operator', ts: dm.ts, path })).toEqual({ ok: true });
    await sb.trunk.waitForRequest('restartTestsOnPullRequest', { count: restarts + 1 });
    expect(sb.trunk.submittedPr('acme/web', 'main', SEEDED.operatorPr)?.state).toBe('testing');
    const updated = await page.until(() => {
      const m = page.messages.get(dm.ts);
      return m?.edited ? m : undefined;
    }, 'the DM updated in place');
    expect(updated.dmWith).toBe(USERS.operator.id);
    expect(buttonPath(updated, 'mq_pr_restart')).toBeUndefined();
  });

  it("the queues move on: a step of the fake's activity says what happened", async () => {
    const happened = (await post('step', { as: 'operator' }))['happened'] as string[];
    expect(Array.isArray(happened)).toBe(true);
    expect(sb.trunk.activity?.steps).toBe(1);
  });

  it("opening Home sends app_home_opened; the operator's Home, built by the app, lists their own PR", async () => {
    expect(await post('home', { as: 'operator' })).toEqual({ ok: true });
    const home = await page.until(() => {
      const h = page.homes.get(USERS.operator.id);
      return h && JSON.stringify(h.view).includes(OPERATOR_PR) ? h : undefined;
    }, "the operator's Home with their PR");
    expect(JSON.stringify(home.view)).toContain('Your PRs');
    expect(page.homes.get(USERS.member.id)).toBeUndefined();
  });

  it("why and eta in the sandbox: a kicked PR's story, a PR held behind a failure, an ETA", async () => {
    const ephemeral = (needle: string) =>
      page.until(
        () => [...page.messages.values()].find((m) => m.ephemeralTo && textOf(m).includes(needle)),
        needle,
      );
    await post('command', { as: 'member', text: `why ${SEEDED.kickedPr}` });
    const kicked = textOf(await ephemeral(`#${SEEDED.kickedPr} Orders`));
    expect(kicked).toContain('It failed: a required check failed');
    expect(kicked).toContain('ci/e2e');
    expect(kicked).toContain('tested it on its own');
    expect(kicked).toContain('#4797');

    await post('command', { as: 'member', text: `why ${SEEDED.heldPr}` });
    const held = textOf(await ephemeral('waits for'));
    expect(held).toContain('#4812');

    await post('command', { as: 'member', text: `eta ${SEEDED.etaPr}` });
    expect(textOf(await ephemeral('Expected to merge'))).toContain('<!date^');
  });
});
