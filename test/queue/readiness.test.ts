import { describe, expect, it } from 'vitest';
import { makeSubmittedPr } from '../../dev/fakes/trunk/index.ts';
import { explainReadiness } from '../../src/queue/readiness.ts';

describe('explainReadiness', () => {
  it('ready when every condition of the contract holds', () => {
    const pr = makeSubmittedPr({
      prNumber: 1,
      state: 'not_ready',
      isCurrentlySubmittedToQueue: true,
      readiness: {
        doesBaseBranchMatch: true,
        gitHubMergeability: 'MERGEABLE',
        requiresImpactedTargets: true,
        hasImpactedTargets: true,
      },
    });
    const e = explainReadiness(pr, 'main');
    expect(e.ready).toBe(true);
    expect(e.reasons.every((r) => r.ok === true)).toBe(true);
    expect(e.summary).toContain('should start testing shortly');
  });

  it('impacted targets matter only when the queue requires them', () => {
    const base = {
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
      hasImpactedTargets: false,
    } as const;
    const notRequired = explainReadiness(
      makeSubmittedPr({
        state: 'not_ready',
        isCurrentlySubmittedToQueue: true,
        readiness: { ...base, requiresImpactedTargets: false },
      }),
    );
    expect(notRequired.ready).toBe(true);
    const required = explainReadiness(
      makeSubmittedPr({
        state: 'not_ready',
        isCurrentlySubmittedToQueue: true,
        readiness: { ...base, requiresImpactedTargets: true },
      }),
    );
    expect(required.ready).toBe(false);
    expect(required.summary).toContain('one condition is not met');
    expect(required.reasons.find((r) => r.ok === false)?.text).toContain('impacted targets');
  });

  it('mergeability still being computed is neither yes nor no', () => {
    const e = explainReadiness(
      makeSubmittedPr({
        state: 'not_ready',
        isCurrentlySubmittedToQueue: true,
        readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'in_progress' },
      }),
    );
    expect(e.ready).toBe(false);
    expect(e.reasons.some((r) => r.ok === undefined && r.text.includes('still working out'))).toBe(true);
    expect(e.summary).toContain('once GitHub settles');
  });

  it('states in plain words, including unknown ones and PRs no longer queued', () => {
    expect(
      explainReadiness(makeSubmittedPr({ prNumber: 5, state: 'testing', isCurrentlySubmittedToQueue: true }))
        .summary,
    ).toBe('#5 is being tested now.');
    expect(
      explainReadiness(makeSubmittedPr({ prNumber: 5, state: 'merged', isCurrentlySubmittedToQueue: false }))
        .summary,
    ).toBe('#5 has been merged.');
    expect(
      explainReadiness(
        makeSubmittedPr({ prNumber: 5, state: 'cancelled', isCurrentlySubmittedToQueue: false }),
      ).summary,
    ).toBe('#5 is not in the queue right now (last state: cancelled).');
    expect(
      explainReadiness(
        makeSubmittedPr({ prNumber: 5, state: 'brand_new', isCurrentlySubmittedToQueue: true }),
      ).summary,
    ).toBe('#5 is in state `brand_new`.');
  });
});
