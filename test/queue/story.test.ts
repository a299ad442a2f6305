/**
 * A PR's story from Trunk v2 histories, and its rendering: the latest attempt only, failures on their own or
 * because of a PR ahead, conflicts, pending failures, cancels, and reasons this app does not know.
 */
import { describe, expect, it } from 'vitest';
import { storyOf } from '../../src/queue/story.ts';
import { endingText, reasonWords, renderWhy } from '../../src/slack/blocks/story.ts';
import type { Transition } from '../../src/trunk/v2/schemas.ts';
import { assertValidReply } from '../helpers/block-kit.ts';
import { buttonsIn, textOf } from '../helpers/block-kit-reading.ts';

const ref = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const id = 'pr-1';

function t(state: string, minute: number, extra: Partial<Transition> = {}): Transition {
  return {
    pullRequestId: id,
    state,
    changedAt: new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString(),
    reason: undefined,
    verificationRunId: undefined,
    actor: undefined,
    prerequisitePullRequestId: undefined,
    pending: undefined,
    testsPassed: undefined,
    pendingFailure: undefined,
    failed: undefined,
    ...extra,
  };
}

const failedCheck = { name: 'ci/unit', url: 'https://ci.example/run/1', conclusion: 'failure' };

function why(transitions: Transition[], state: string) {
  const story = storyOf(transitions);
  const reply = renderWhy({
    ref,
    pr: { number: 42, title: 'Add widgets', author: 'dev1', url: undefined, state },
    story,
    renderedAt: Date.UTC(2026, 10, 20, 11),
  });
  assertValidReply(reply);
  return { story, reply, text: textOf(reply), buttons: buttonsIn(reply.blocks).map((b) => b.text) };
}

describe("a PR's story", () => {
  it('a required check failed: the reason in words, the check with its link, failed on its own, Re-submit', () => {
    const { story, text, buttons } = why(
      [
        t('pending', 0, {
          reason: 'MERGE_ITEM_NOW_READY',
          actor: { gitHubLogin: 'dev1', trunkUserId: undefined },
        }),
        t('testing', 1),
        t('failed', 20, {
          reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          failed: {
            failureCausingChecks: [failedCheck],
            apiFailureMessage: undefined,
            conflictCulprit: undefined,
          },
        }),
      ],
      'failed',
    );
    expect(story.ending).toMatchObject({ kind: 'failed', cause: 'own', bisected: false });
    expect(text).toContain('It failed: a required check failed');
    expect(text).toContain('ci/unit');
    expect(text).toContain('https://ci.example/run/1');
    expect(text).toContain('failed on its own');
    expect(text).toContain('by dev1');
    expect(buttons).toEqual(['Re-submit', 'Open in Trunk']);
  });

  it('a merge conflict names the PR it came from', () => {
    const { text } = why(
      [
        t('pending', 0),
        t('failed', 2, {
          reason: 'START_TEST_RUN_MERGE_CONFLICT',
          failed: {
            failureCausingChecks: [],
            apiFailureMessage: undefined,
            conflictCulprit: {
              kind: 'pullRequest',
              sha: 'a',
              pullRequestId: undefined,
              number: 40,
              url: undefined,
            },
          },
        }),
      ],
      'failed',
    );
    expect(text).toContain('a merge conflict with');
    expect(text).toContain('#40');
    expect(text).toContain('rebase');
  });

  it('put back in line by a failed PR ahead, then bisected and failed on its own', () => {
    const { story, text } = why(
      [
        t('pending', 0),
        t('testing', 1),
        t('pending', 5, {
          reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
          pending: {
            prerequisitePullRequests: [
              { id: undefined, pullRequestId: 'x', number: 41, title: undefined, url: undefined },
            ],
          },
        }),
        t('pending', 6, { reason: 'BISECTION_REQUIRED' }),
        t('testing', 7),
        t('failed', 30, {
          reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          failed: {
            failureCausingChecks: [failedCheck],
            apiFailureMessage: undefined,
            conflictCulprit: undefined,
          },
        }),
      ],
      'failed',
    );
    expect(story.putBackBy.map((p) => p.number)).toEqual([41]);
    expect(text).toContain('tested it on its own');
    expect(text).toContain('#41');
    expect(text).toContain('put it back in line');
  });

  it('pendingFailure says what it waits for, with Restart tests', () => {
    const { text, buttons } = why(
      [
        t('testing', 1),
        t('pendingFailure', 9, {
          pendingFailure: {
            eventualFailureReason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
            waitingFor: [{ id: undefined, pullRequestId: 'y', number: 39, title: undefined, url: undefined }],
            failureCausingChecks: [failedCheck],
          },
        }),
      ],
      'pendingFailure',
    );
    expect(text).toContain('waits for');
    expect(text).toContain('#39');
    expect(buttons).toContain('Restart tests');
  });

  it('a cancel says why', () => {
    const { text, buttons } = why(
      [t('pending', 0), t('cancelled', 3, { reason: 'PR_PUSHED_TO' })],
      'cancelled',
    );
    expect(text).toContain('new commits were pushed to the PR');
    expect(buttons).toContain('Re-submit');
  });

  it('a PR submitted several times shows its latest attempt', () => {
    const { story, text } = why(
      [
        t('pending', 0),
        t('failed', 5, {
          reason: 'TEST_RUN_TIMEOUT',
          failed: { failureCausingChecks: [], apiFailureMessage: undefined, conflictCulprit: undefined },
        }),
        t('pending', 10, { reason: 'MERGE_ITEM_NOW_READY' }),
        t('testing', 11),
      ],
      'testing',
    );
    expect(story.attempts).toBe(2);
    expect(story.steps.map((s) => s.state)).toEqual(['pending', 'testing']);
    expect(text).toContain('attempt 2');
    expect(text).not.toContain('timed out');
  });

  it('an unknown reason and state are shown as Trunk sent them', () => {
    const { text } = why([t('pending', 0), t('failed', 3, { reason: 'COSMIC_RAYS' })], 'failed');
    expect(text).toContain('COSMIC_RAYS');
    expect(reasonWords('SOMETHING_NEW')).toContain('SOMETHING_NEW');
    const odd = storyOf([t('levitating', 1)]);
    expect(endingText(ref, 42, odd)).toContain('levitating');
  });

  it('people’s words in a story cannot notify a channel', () => {
    const { text } = why(
      [
        t('failed', 3, {
          reason: 'X',
          failed: {
            failureCausingChecks: [{ name: '<!channel> check', url: undefined, conclusion: undefined }],
            apiFailureMessage: '<!here>',
            conflictCulprit: undefined,
          },
        }),
      ],
      'failed',
    );
    expect(text).not.toMatch(/<!channel>|<!here>/);
  });
});
