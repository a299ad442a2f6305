/** The status message in Trunk's dispatch order (issue 20): groups, what each PR waits behind, limits. */
import { describe, expect, it } from 'vitest';
import { makeEnqueuedPr, makeQueue } from '../../../dev/fakes/trunk/state.ts';
import { renderStatus } from '../../../src/slack/blocks/status.ts';
import type { MergeQueueOrder } from '../../../src/trunk/v2/schemas.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const ref = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const nasty = `<script>&amp; <!channel> ${'x<>&'.repeat(40)}`;
const qp = (n: number, title = `change ${n}`) => ({ id: `id-${n}`, number: n, title, url: undefined });

function order(partial: Partial<MergeQueueOrder> = {}): MergeQueueOrder {
  return {
    queueState: 'running',
    batches: [],
    pending: [],
    awaitingAdmission: [],
    awaitingAdmissionTotal: undefined,
    ...partial,
  } as MergeQueueOrder;
}

describe('renderStatus with a dispatch order', () => {
  it('lists batches, then pending with what each waits behind, then awaiting admission; v1 authors kept', () => {
    const queue = makeQueue({
      enqueuedPullRequests: [
        makeEnqueuedPr({ prNumber: 1, prAuthor: 'ana', state: 'testing' }),
        makeEnqueuedPr({ prNumber: 2, prAuthor: 'bo', state: 'pending' }),
        makeEnqueuedPr({ prNumber: 9, prAuthor: 'cy', state: 'not_ready' }),
      ],
    });
    const reply = renderStatus({
      ref,
      queue,
      renderedAt: 0,
      order: order({
        batches: [{ verificationRunId: 'r', state: 'testing', isBisection: true, pullRequests: [qp(1)] }],
        pending: [
          { pullRequest: qp(2), schedulability: 'schedulable', directlyAhead: [qp(1)], heldBy: [] },
          // batching off or a cycle: directlyAhead is empty, nothing is guessed from the array index
          { pullRequest: qp(3), schedulability: 'schedulable', directlyAhead: [], heldBy: [] },
        ],
        awaitingAdmission: [qp(4)],
        awaitingAdmissionTotal: 12,
      }),
    });
    assertValidReply(reply);
    const t = textOf(reply);
    expect(t).toContain("Enqueued PRs (16), in Trunk's dispatch order");
    expect(t).toMatch(/#1> change 1 · by ana.*tested alone after its batch failed/);
    expect(t).toMatch(/#2> change 2 · by bo.*waits behind #1/);
    expect(t).toMatch(/#3> change 3 · next to be tested/);
    expect(t).toContain('Awaiting admission (12)');
    // v1's not-ready PR, absent from the order, is still listed, last.
    expect(t).toContain('not in the order yet');
    expect(t.indexOf('#4')).toBeLessThan(t.indexOf('#9'));
  });

  it('stays within Slack limits with many PRs and hostile titles; says how many are not shown', () => {
    const pending = Array.from({ length: 120 }, (_, i) => ({
      pullRequest: qp(100 + i, nasty),
      schedulability: 'heldBehindFailure',
      directlyAhead: [],
      heldBy: Array.from({ length: 8 }, (_, j) => qp(j + 1)),
    }));
    const reply = renderStatus({
      ref,
      queue: makeQueue({ enqueuedPullRequests: [] }),
      renderedAt: 0,
      order: order({ pending }),
    });
    assertValidReply(reply);
    const t = textOf(reply);
    expect(t).toContain('held behind the failure of #1, #2, #3, #4, #5 and 3 more');
    expect(t).toContain('…and 105 more');
    expect(t).not.toContain('<script>');
  });

  it('an empty order says none', () => {
    const reply = renderStatus({
      ref,
      queue: makeQueue({ enqueuedPullRequests: [] }),
      renderedAt: 0,
      order: order(),
    });
    assertValidReply(reply);
    expect(textOf(reply)).toContain("*Enqueued PRs:* none (Trunk's dispatch order)");
  });
});
