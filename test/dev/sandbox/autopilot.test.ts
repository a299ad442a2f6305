/**
 * Issue 29 in the sandbox: the watched queue's autopilot is on and `ci/e2e` is flaky in its history; the
 * sandbox kicks two PRs by Trunk's webhook as it starts. Sam's PR, kicked by the flaky check, is
 * submitted again by the app and its note says so (class, evidence, Cancel); the real failure is left alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../dev/sandbox/index.ts';
import { USERS } from '../../../dev/sandbox/people.ts';
import { KICKS } from '../../../dev/sandbox/story.ts';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/observability/log.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

describe('sandbox: the autopilot', () => {
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

  it('re-submits the flaky kick with its note, and leaves the real failure alone', async () => {
    // The sandbox kicks the two PRs as it starts.
    await sb.trunk.webhooks.settled();
    await sb.app.webhooks.idle();
    const note = await sb.slack.waitFor(
      () =>
        sb.slack
          .channelMessages(USERS.member.id)
          .find((m) => textOf(m).includes(`#${KICKS.flaky.n}`) && textOf(m).includes('The app submitted')),
      10_000,
    );
    expect(textOf(note)).toContain('its kick was *flaky*');
    expect(textOf(note)).toContain(
      '`ci/e2e` failed; it failed and then passed on the same commit twice this week',
    );
    const submits = sb.trunk
      .requestsTo('submitPullRequest')
      .map((r) => (r.body as { pr: { number: number } }).pr.number);
    expect(submits).toEqual([KICKS.flaky.n]);
    expect(sb.trunk.submittedPr('acme/web', 'main', KICKS.real.n)?.state).toBe('failed');
  });
});
