/** `/mergequeue eta` words: an estimate as a Slack date, no estimate with its reason, what a PR waits behind. */
import { describe, expect, it } from 'vitest';
import type { EtaAnswer } from '../../../src/queue/story-reader.ts';
import { renderEta } from '../../../src/slack/blocks/eta.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const ref = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const pr = {
  id: 'p',
  repositoryId: 'r',
  number: 5,
  title: 'Five',
  author: 'dev',
  url: undefined,
  htmlUrl: undefined,
  state: 'open',
  isCurrentlySubmittedToQueue: true,
  queueEntry: undefined,
};
const ahead = [{ id: 'a', number: 4, title: 'Four', url: undefined }];
const now = Date.UTC(2026, 10, 20, 12);

function eta(answer: EtaAnswer) {
  const reply = renderEta(ref, 5, answer, now);
  assertValidReply(reply);
  return textOf(reply);
}

describe('eta', () => {
  it('an estimate is a Slack date token, with the PRs directly ahead', () => {
    const text = eta({
      kind: 'eta',
      pr,
      estimate: {
        status: 'available',
        kind: 'merge',
        estimatedAt: '2026-11-20T13:00:00Z',
        computedAt: undefined,
        reason: undefined,
      },
      estimatesOff: false,
      ahead,
      heldBy: [],
      position: 'pending',
    });
    expect(text).toContain(`<!date^${Date.UTC(2026, 10, 20, 13) / 1000}^`);
    expect(text).toContain('Expected to merge');
    expect(text).toContain('#4');
  });

  it('a queue without estimates says so and still names what is ahead', () => {
    const text = eta({
      kind: 'eta',
      pr,
      estimate: undefined,
      estimatesOff: true,
      ahead,
      heldBy: [],
      position: 'pending',
    });
    expect(text).toContain('This queue gives no estimates');
    expect(text).toContain('#4');
  });

  it('an unavailable estimate gives its reason, an unknown one as sent', () => {
    const text = eta({
      kind: 'eta',
      pr,
      estimate: {
        status: 'unavailable',
        reason: 'MOON_PHASE',
        kind: undefined,
        estimatedAt: undefined,
        computedAt: undefined,
      },
      estimatesOff: false,
      ahead: [],
      heldBy: [],
      position: 'testing',
    });
    expect(text).toContain('MOON_PHASE');
    expect(text).toContain('testing now');
  });

  it('a PR not in the queue points to why', () => {
    expect(eta({ kind: 'not_in_queue', pr })).toContain('/mergequeue why 5');
  });
});
