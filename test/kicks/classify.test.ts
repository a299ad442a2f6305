/**
 * Issue 29: the kick classifier alone (pure). The wire tests (test/kicks/kicks.test.ts) send the same facts
 * as Trunk's payloads; here every row of DESIGN's class table, the order the rules apply in, and the evidence
 * words.
 */
import { describe, expect, it } from 'vitest';
import { classifyKick } from '../../src/kicks/classify.ts';

const flaky = (entries: Array<[string, number]>) => new Map(entries);

describe('classifyKick', () => {
  it('conflict: the merge-conflict reason, or a named culprit', () => {
    expect(classifyKick({ state: 'failed', reason: 'START_TEST_RUN_MERGE_CONFLICT' })).toMatchObject({
      kickClass: 'conflict',
      evidence: 'Trunk could not merge it onto the queue: a merge conflict',
    });
    expect(
      classifyKick({ state: 'failed', reason: 'SOMETHING_NEW', conflictWith: { number: 4890 } }).evidence,
    ).toContain('with #4890');
  });

  it('infra: the test-run timeout, or every failing check timed out or was cancelled', () => {
    expect(classifyKick({ state: 'failed', reason: 'TEST_RUN_TIMEOUT' }).kickClass).toBe('infra');
    const k = classifyKick({
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      checks: [
        { name: 'e2e', conclusion: 'timeout' },
        { name: 'build', conclusion: 'cancelled' },
      ],
    });
    expect(k).toMatchObject({ kickClass: 'infra', evidence: '`e2e` timed out; `build` was cancelled' });
    expect(
      classifyKick({
        state: 'failed',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        checks: [
          { name: 'e2e', conclusion: 'timeout' },
          { name: 'unit', conclusion: 'failure' },
        ],
      }).kickClass,
    ).toBe('failure');
  });

  it('flaky: every failing check failed-then-passed on one commit at least twice this week', () => {
    const k = classifyKick({
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      checks: [{ name: 'e2e', conclusion: 'failure' }],
      flakyCounts: flaky([['e2e', 3]]),
    });
    expect(k).toEqual({
      kickClass: 'flaky',
      evidence: '`e2e` failed; it failed and then passed on the same commit 3 times this week',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
    });
    // Once is not enough; and one steady failure among flaky ones is a real failure.
    expect(
      classifyKick({
        state: 'failed',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        checks: [{ name: 'e2e', conclusion: 'failure' }],
        flakyCounts: flaky([['e2e', 1]]),
      }).kickClass,
    ).toBe('failure');
    const mixed = classifyKick({
      state: 'failed',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      checks: [
        { name: 'e2e', conclusion: 'failure' },
        { name: 'unit', conclusion: 'failure' },
      ],
      flakyCounts: flaky([['e2e', 4]]),
    });
    expect(mixed.kickClass).toBe('failure');
    expect(mixed.evidence).toBe('`unit` failed (`e2e` is flaky here, but not that one)');
  });

  it("upstream: Trunk's prerequisite and stack reasons", () => {
    expect(classifyKick({ state: 'cancelled', reason: 'PREREQUISITE_MERGE_ITEM_FAILED' }).kickClass).toBe(
      'upstream',
    );
    expect(classifyKick({ state: 'cancelled', reason: 'STACKED_PR_MEMBER_CLOSED' }).kickClass).toBe(
      'upstream',
    );
  });

  it('superseded: pushed to, closed, retargeted, made a draft', () => {
    for (const reason of ['PR_PUSHED_TO', 'PR_CLOSED', 'PR_BASE_BRANCH_CHANGED', 'PR_CONVERTED_TO_DRAFT'])
      expect(classifyKick({ state: 'cancelled', reason }).kickClass, reason).toBe('superseded');
  });

  it('cancelled: by a person, in Slack or in Trunk, naming them when Trunk does', () => {
    expect(
      classifyKick({ state: 'cancelled', reason: 'USER_REQUESTED', cancelledBy: 'octocat' }),
    ).toMatchObject({ kickClass: 'cancelled', evidence: '`octocat` cancelled it' });
    expect(classifyKick({ state: 'cancelled', reason: 'TRUNK_ADMIN_REQUESTED' }).kickClass).toBe('cancelled');
  });

  it('timeout: not ready in time', () => {
    expect(classifyKick({ state: 'cancelled', reason: 'NOT_READY_TIMEOUT_EXPIRED' }).kickClass).toBe(
      'timeout',
    );
  });

  it('failure: a required check failed; an unknown code is shown as sent', () => {
    expect(
      classifyKick({
        state: 'failed',
        reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
        checks: [{ name: 'ci/unit', conclusion: 'failure' }],
      }),
    ).toMatchObject({ kickClass: 'failure', evidence: '`ci/unit` failed' });
    const unknown = classifyKick({ state: 'failed', reason: 'QUANTUM_FLUX_DETECTED' });
    expect(unknown).toEqual({
      kickClass: 'failure',
      evidence: "Trunk's reason: `QUANTUM_FLUX_DETECTED`",
      reason: 'QUANTUM_FLUX_DETECTED',
    });
  });

  it('unknown: no reason at all (no v2 key and no webhook reason)', () => {
    expect(classifyKick({ state: 'failed' }).kickClass).toBe('unknown');
    expect(classifyKick({ state: 'cancelled', reason: '  ' }).kickClass).toBe('unknown');
  });
});
