/** Random Trunk answers, however odd, always render to messages Slack accepts. */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { makeEnqueuedPr, makeQueue, makeSubmittedPr, makeTestRun } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import { renderAnnouncement } from '../../../src/slack/blocks/announcement.ts';
import { renderPr } from '../../../src/slack/blocks/pr.ts';
import { renderRun } from '../../../src/slack/blocks/run.ts';
import { buildSettingsModal } from '../../../src/slack/blocks/settings.ts';
import { renderStatus } from '../../../src/slack/blocks/status.ts';
import { assertValidModal, assertValidReply } from '../../helpers/block-kit.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'release/2.x' };
const text = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.constantFrom('', '<!channel>', '`', '&amp;<>'),
);
const num = fc.oneof(fc.integer({ min: 0, max: 4294967295 }), fc.constantFrom(0, -1, 1.5, Number.NaN, 1e20));

const queueArb = fc.record({
  state: fc.oneof(fc.constantFrom('running', 'paused', 'draining', 'switching_modes'), text),
  mode: fc.oneof(fc.constantFrom('single', 'parallel'), text),
  concurrency: num,
  pendingFailureDepth: num,
  batch: fc.boolean(),
  requiredStatuses: fc.array(text, { maxLength: 150 }),
  mergeMethod: text,
  prs: fc.array(
    fc.record({ prNumber: num, prTitle: text, prAuthor: text, priorityName: text, stateChangedAt: text }),
    { maxLength: 600 },
  ),
});

describe('renderers under random input', () => {
  it('status, announcement and settings modal stay valid', () => {
    fc.assert(
      fc.property(queueArb, fc.integer({ min: 1, max: 100 }), (q, maxPrs) => {
        const queue = makeQueue({ ...q, enqueuedPullRequests: q.prs.map((p) => makeEnqueuedPr(p)) });
        assertValidReply(
          renderStatus({
            ref,
            queue,
            renderedAt: 1_700_000_000_000,
            maxPrs,
            lastAction: { userId: 'U1', verb: 'paused', at: 0 },
          }),
        );
        assertValidReply(
          renderAnnouncement({
            action: 'settings',
            ref,
            userId: 'U1',
            at: 0,
            before: makeQueue(),
            after: queue,
          }),
        );
        assertValidModal(buildSettingsModal({ ref, queue }));
      }),
      { numRuns: 150 },
    );
  });

  it('pr and run stay valid', () => {
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(text, { maxLength: 300 }),
        fc.array(fc.integer(), { maxLength: 300 }),
        (title, state, names, deps) => {
          assertValidReply(
            renderPr({ ref, pr: makeSubmittedPr({ prTitle: title, state, prAuthor: title }) }),
          );
          const run = makeTestRun({
            status: state,
            requiredStatuses: names,
            checkSuites: [
              { checkRuns: names.map((n) => ({ name: n, url: `https://ci/${encodeURIComponent(n)}` })) },
            ],
            testedPullRequests: deps.map((d) => ({ prNumber: d, prUrl: title, title })),
            dependentPrs: deps,
            impactedTargets: names,
          });
          assertValidReply(renderRun({ ref, testRunId: title || 'x', run }));
        },
      ),
      { numRuns: 150 },
    );
  });
});
