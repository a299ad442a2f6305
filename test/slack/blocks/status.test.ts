import type { ActionsBlock, Button } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { makeEnqueuedPr, makeQueue } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import { ACTIONS, clickKey, encodeButtonValue, parseButtonValue } from '../../../src/slack/blocks/ids.ts';
import { renderStatus } from '../../../src/slack/blocks/status.ts';
import type { Queue } from '../../../src/trunk/types.ts';
import { assertValidReply } from '../../helpers/block-kit.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const at = 1_700_000_000_000;

function buttons(blocks: unknown[] | undefined): Button[] {
  const a = (blocks ?? []).find((b) => (b as { type: string }).type === 'actions') as ActionsBlock;
  return a.elements as Button[];
}
const ids = (q: Queue) =>
  buttons(renderStatus({ ref, queue: q, renderedAt: at }).blocks).map((b) => b.action_id);

describe('renderStatus', () => {
  it('shows the settings and PRs with linked numbers, authors, priorities and local times', () => {
    const queue = makeQueue({
      state: 'running',
      mode: 'parallel',
      concurrency: 3,
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 5,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 0,
      requiredStatuses: ['ci/build', 'ci/`test`'],
      enqueuedPullRequests: [
        makeEnqueuedPr({
          prNumber: 12,
          prTitle: 'Fix <b> & co',
          prAuthor: 'alice',
          priorityName: 'HIGH',
          stateChangedAt: '2026-01-02T03:04:05Z',
        }),
      ],
    });
    const r = renderStatus({ ref, queue, renderedAt: at, appUrl: 'https://app.trunk.io', orgSlug: 'acme' });
    assertValidReply(r);
    const text = JSON.stringify(r.blocks);
    expect(text).toContain('running');
    expect(text).toContain('parallel');
    expect(text).toContain('on (min 2 PRs, waits up to 5 min)');
    expect(text).toContain('*Pending-failure depth*\\noff');
    expect(text).toContain("`ci/build`, `ci/'test'`");
    expect(text).toContain('<https://github.com/acme/web/pull/12|#12> Fix &lt;b&gt; &amp; co');
    expect(text).toContain('by alice · high');
    expect(text).toContain(
      `since <!date^${Date.parse('2026-01-02T03:04:05Z') / 1000}^{date_short_pretty} {time}|`,
    );
    expect(text).toContain('https://app.trunk.io/acme/merge-queue/acme/web?branch=main');
    expect(r.text).toContain('running, concurrency 3, 1 PR enqueued');
  });

  it('offers the buttons that fit the state: Pause and Drain open a reason modal, Resume confirms', () => {
    expect(ids(makeQueue({ state: 'running', concurrency: 1 }))).toEqual([
      ACTIONS.pause,
      ACTIONS.drain,
      ACTIONS.concurrencyInc,
      ACTIONS.refresh,
      ACTIONS.settings,
      ACTIONS.openTrunk,
    ]);
    expect(ids(makeQueue({ state: 'paused', concurrency: 2 }))).toEqual([
      ACTIONS.resume,
      ACTIONS.concurrencyDec,
      ACTIONS.concurrencyInc,
      ACTIONS.refresh,
      ACTIONS.settings,
      ACTIONS.openTrunk,
    ]);
    expect(ids(makeQueue({ state: 'draining', concurrency: 4294967295 }))).toEqual([
      ACTIONS.pause,
      ACTIONS.resume,
      ACTIONS.concurrencyDec,
      ACTIONS.refresh,
      ACTIONS.settings,
      ACTIONS.openTrunk,
    ]);
    // Unknown states (a newer Trunk) still render, with every state button.
    const odd = makeQueue({ concurrency: 2 });
    (odd as { state: string }).state = 'HIBERNATING';
    expect(ids(odd)).toEqual(expect.arrayContaining([ACTIONS.pause, ACTIONS.drain, ACTIONS.resume]));
    assertValidReply(renderStatus({ ref, queue: odd, renderedAt: at }));

    const bs = buttons(renderStatus({ ref, queue: makeQueue({ state: 'running' }), renderedAt: at }).blocks);
    // The contract's words, with no ellipsis: the reason modal that opens speaks for itself.
    expect(bs.find((b) => b.action_id === ACTIONS.pause)?.text.text).toBe('Pause');
    expect(bs.find((b) => b.action_id === ACTIONS.drain)?.text.text).toBe('Drain');
    // A modal asks for the reason instead of a bare confirm dialog (a confirm would come first, twice).
    expect(bs.find((b) => b.action_id === ACTIONS.pause)?.confirm).toBeUndefined();
    expect(bs.find((b) => b.action_id === ACTIONS.drain)?.confirm).toBeUndefined();
    const paused = buttons(
      renderStatus({ ref, queue: makeQueue({ state: 'paused' }), renderedAt: at }).blocks,
    );
    expect(paused.find((b) => b.action_id === ACTIONS.resume)?.confirm?.title?.text).toBe(
      'Resume the queue?',
    );
    expect(bs.find((b) => b.action_id === ACTIONS.openTrunk)?.url).toBe('https://app.trunk.io');
  });

  it('button values carry the target and what was shown, and round-trip', () => {
    const queue = makeQueue({ state: 'paused', concurrency: 7 });
    const b = buttons(renderStatus({ ref, queue, renderedAt: at }).blocks)[0]!;
    const v = parseButtonValue(b.value);
    expect(v).toEqual({ ref, state: 'paused', concurrency: 7, renderedAt: at });
    expect(clickKey(ACTIONS.resume, v!)).toBe(`mq_resume:acme/web:main:${at}`);
    const gitlab: QueueRef = {
      repo: { host: 'gitlab.example.com', owner: 'a', name: 'b' },
      branch: 'release/1.x',
    };
    expect(
      parseButtonValue(encodeButtonValue({ ref: gitlab, state: 'running', concurrency: 1, renderedAt: 1 }))
        ?.ref,
    ).toEqual(gitlab);
  });

  it('rejects tampered or foreign button values', () => {
    for (const bad of [
      undefined,
      42,
      '',
      'not json',
      'null',
      '{"t":"acme/web","s":"running","c":1,"v":1}', // no branch
      '{"t":"../../etc","s":"running","c":1,"v":1}',
      '{"t":"acme/web:main","s":"running","c":-1,"v":1}',
      '{"t":"acme/web:main","s":"running","c":1.5,"v":1}',
      '{"t":"acme/web:main","s":1,"c":1,"v":1}',
      `{"t":"acme/web:main","s":"running","c":1,"v":1,"x":"${'a'.repeat(2000)}"}`,
    ])
      expect(parseButtonValue(bad)).toBeUndefined();
  });

  it('cuts 500 enqueued PRs with long nasty titles to fit, saying how many more', () => {
    const prs = Array.from({ length: 500 }, (_, i) =>
      makeEnqueuedPr({
        prNumber: i + 1,
        prTitle: `<>&${'t'.repeat(97)}`,
        prAuthor: `author-${'x'.repeat(80)}`,
        stateChangedAt: 'garbage',
      }),
    );
    const queue = makeQueue({
      requiredStatuses: Array.from({ length: 300 }, (_, i) => `status-${i}-${'s'.repeat(40)}`),
      enqueuedPullRequests: prs,
    });
    for (const maxPrs of [15, 100, 1000]) {
      const r = renderStatus({
        ref,
        queue,
        renderedAt: at,
        maxPrs,
        lastAction: { userId: 'U1', verb: 'paused', at, reason: 'x'.repeat(2000), note: '<already>' },
      });
      assertValidReply(r);
      const text = JSON.stringify(r.blocks);
      const shown = (text.match(/\/pull\/\d+\|#/g) ?? []).length;
      const more = /and (\d+) more_/.exec(text);
      expect(more).not.toBeNull();
      expect(shown + Number(more![1])).toBe(500);
      expect(text).toContain('Enqueued PRs (500)');
      expect(text).toContain('and ');
      expect(text).toContain('<@U1> paused this <!date^1700000000^');
    }
  });

  it('says when Trunk sent no PR list (updateQueue answers) instead of claiming the queue is empty', () => {
    const q = makeQueue();
    delete q.enqueuedPullRequests;
    const r = renderStatus({ ref, queue: q, renderedAt: at });
    assertValidReply(r);
    expect(JSON.stringify(r.blocks)).toContain('press Refresh');
    expect(r.text).not.toContain('PRs enqueued');
  });

  it('shows an empty queue and a queue with 0 (off) settings', () => {
    const r = renderStatus({
      ref,
      queue: makeQueue({ enqueuedPullRequests: [], concurrency: 0, requiredStatuses: [] }),
      renderedAt: at,
    });
    assertValidReply(r);
    expect(JSON.stringify(r.blocks)).toContain('none');
    expect(JSON.stringify(r.blocks)).toContain('from branch protection or the repo config');
  });
});
