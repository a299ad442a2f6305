/** The PR buttons, the cancel modal and the prs list are valid Block Kit within Slack's limits. */
import { describe, expect, it } from 'vitest';
import { makeEnqueuedPr, makeSubmittedPr } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import { nextSteps } from '../../../src/queue/pull-requests.ts';
import { renderPr } from '../../../src/slack/blocks/pr.ts';
import {
  buildCancelModal,
  encodePrButtonValue,
  parseCancelMetadata,
  parsePrButtonValue,
  prActionButtons,
  renderPrAnnouncement,
} from '../../../src/slack/blocks/pr-actions.ts';
import { renderPrs } from '../../../src/slack/blocks/prs.ts';
import { assertValidModal, assertValidReply } from '../../helpers/block-kit.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const nasty = `<!channel> *bold* ${'x<>&'.repeat(300)}`;

describe('PR action blocks', () => {
  it('buttons fit the state: restart and re-submit for failed, cancel while queued', () => {
    expect(nextSteps('failed')).toEqual(['restart', 'submit']);
    expect(nextSteps('pending_failure')).toEqual(['restart']);
    expect(nextSteps('cancelled')).toEqual(['submit']);
    expect(nextSteps('testing')).toEqual(['cancel']);
    expect(nextSteps('merged')).toEqual([]);
    const ids = (state: string) =>
      prActionButtons({ ref, pr: { prNumber: 1, state }, renderedAt: 5 }).elements.map(
        (e) => (e as { action_id: string }).action_id,
      );
    expect(ids('merged')).toEqual(['mq_open_trunk']);
    expect(ids('failed')).toEqual(['mq_pr_restart', 'mq_pr_resubmit', 'mq_open_trunk']);
  });

  it('button values round-trip, and anything else is refused', () => {
    const v = { ref, prNumber: 42, state: 'failed', renderedAt: 1700000000000 };
    expect(parsePrButtonValue(encodePrButtonValue(v))).toEqual(v);
    for (const bad of [
      '',
      '{}',
      'null',
      '{"t":"acme/web:main","n":0,"s":"x","v":1}',
      '{"t":"nope","n":1,"s":"x","v":1}',
    ])
      expect(parsePrButtonValue(bad)).toBeUndefined();
  });

  it('the /mergequeue pr reply with buttons, the announcement and the modal are valid with hostile text', () => {
    const pr = makeSubmittedPr({ prNumber: 7, prTitle: nasty, prAuthor: nasty, state: 'failed' });
    assertValidReply(renderPr({ ref, pr, renderedAt: 1, note: 'note' }));
    const result = {
      outcome: 'ok' as const,
      action: 'cancel' as const,
      target: 'x',
      confirmedBy: 'read_back' as const,
      because: 'b',
      before: pr,
      after: { ...pr, state: 'cancelled' },
    };
    const a = renderPrAnnouncement({ result, ref, prNumber: 7, userId: 'U1', at: 0, reason: nasty });
    assertValidReply(a);
    expect(JSON.stringify(a.blocks)).not.toContain('<!channel>');
    const meta = {
      value: { ref, prNumber: 7, state: 'testing', renderedAt: 3 },
      channelId: 'C1',
      messageTs: '1.2',
      ephemeral: true,
      responseUrl: 'https://hooks.slack.com/actions/T/1/x',
    };
    const modal = buildCancelModal(meta, pr);
    assertValidModal(modal);
    expect(parseCancelMetadata(modal.private_metadata)).toEqual(meta);
    expect(parseCancelMetadata('{"c":"C1"}')).toBeUndefined();
  });

  it('prs: 40 long rows and the count of the rest stay within 50 blocks', () => {
    const shown = Array.from({ length: 40 }, (_, i) =>
      makeEnqueuedPr({ prNumber: i + 1, prTitle: nasty, prAuthor: nasty }),
    );
    const reply = renderPrs({ ref, listing: { shown, more: 1234, moreAtLeast: true } });
    assertValidReply(reply);
    expect(JSON.stringify(reply.blocks)).toMatch(/at least 1,2\d\d more PRs/);
  });
});
