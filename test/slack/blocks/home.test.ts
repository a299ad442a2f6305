/**
 * The Home tab's Block Kit builder on its own: valid against the schema's home_view, within 100 blocks
 * however much a workspace holds, buttons for operators only, and every list saying how many more.
 */
import { describe, expect, it } from 'vitest';
import { makeEnqueuedPr, makeQueue } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import { type HomeInput, type HomeQueue, renderHome } from '../../../src/slack/blocks/home.ts';
import { assertValidHome } from '../../helpers/block-kit.ts';
import { findActions, textOf } from '../../helpers/block-kit-reading.ts';

const at = 1_700_000_000_000;
const ref = (name: string): QueueRef => ({
  repo: { host: 'github.com', owner: 'acme', name },
  branch: 'main',
});

function input(o: Partial<HomeInput> = {}): HomeInput {
  return {
    userId: 'UADMIN0001',
    renderedAt: at,
    operator: true,
    trunk: { connected: true, orgSlug: 'acme' },
    prs: [],
    prProblems: [],
    queues: [],
    digests: [],
    watches: [],
    freezes: [],
    operators: [],
    ...o,
  };
}

const readable = (name: string, state = 'running'): HomeQueue => ({
  ref: ref(name),
  sources: ['watch'],
  channels: ['C0GENERAL1'],
  reading: { ok: true, queue: makeQueue({ state, concurrency: 2, enqueuedPullRequests: [] }) },
});

describe('renderHome', () => {
  it('an operator gets the status buttons per readable queue; a member gets none; a failed read has none', () => {
    const queues = [
      readable('web'),
      readable('api', 'paused'),
      {
        ref: ref('broken'),
        sources: ['watch'],
        channels: [],
        reading: { ok: false as const, problem: 'Trunk did not answer.' },
      },
    ];
    const op = renderHome(input({ queues }));
    assertValidHome(op);
    expect(findActions(op.blocks, 'mq_pause')).toHaveLength(1);
    expect(findActions(op.blocks, 'mq_resume')).toHaveLength(1);
    expect(findActions(op.blocks, 'mq_refresh')).toHaveLength(2);
    expect(textOf({ blocks: op.blocks })).toContain(
      '*acme/broken:main* · :warning: could not read: Trunk did not answer.',
    );
    const member = renderHome(input({ queues, operator: false }));
    assertValidHome(member);
    for (const id of ['mq_pause', 'mq_resume', 'mq_refresh', 'mq_settings_open', 'mq_home_connect'])
      expect(findActions(member.blocks, id)).toHaveLength(0);
  });

  it('a PR shows its queue, state and place in the queue; text from Trunk is escaped', () => {
    const home = renderHome(
      input({
        login: 'ada-gh',
        prs: [
          {
            ref: ref('web'),
            pr: makeEnqueuedPr({ prNumber: 7, prTitle: 'Fix <b> & co', state: 'testing' }),
            position: { at: 1, of: 4 },
          },
          { ref: ref('web'), pr: makeEnqueuedPr({ prNumber: 9, prTitle: 'Done', state: 'merged' }) },
        ],
      }),
    );
    assertValidHome(home);
    const text = textOf({ blocks: home.blocks });
    expect(text).toContain(
      '<https://github.com/acme/web/pull/7|#7> Fix &lt;b&gt; &amp; co · *acme/web:main* · testing · 1st of 4',
    );
    // A PR that left the queue has no place in it.
    expect(text).toMatch(/#9> Done · \*acme\/web:main\* · merged$/m);
  });

  it('within 100 blocks however many queues and lines, each saying how many more', () => {
    const queues = Array.from({ length: 80 }, (_, i) => readable(`service-${i}`));
    const unread: HomeQueue[] = Array.from({ length: 200 }, (_, i) => ({
      ref: ref(`other-${i}`),
      sources: ['digest'],
      channels: [],
    }));
    const many = Array.from({ length: 300 }, (_, i) => ({
      ref: ref('web'),
      pr: makeEnqueuedPr({
        prNumber: i + 1,
        prTitle: `PR number ${i + 1} with a longish title to fill lines`,
        state: 'pending',
      }),
      position: { at: i + 1, of: 300 },
    }));
    const home = renderHome(input({ queues: [...queues, ...unread], login: 'ada-gh', prs: many }));
    assertValidHome(home);
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    const text = textOf({ blocks: home.blocks });
    expect(text).toContain('Queues (280)');
    expect(text).toMatch(
      /_…and \d+ more queues: `\/mergequeue status owner\/repo:branch` shows any of them_/,
    );
    expect(text).toMatch(/Your PRs \(300\)[\s\S]*_…and \d+ more_/);
  });

  it("a click's answer is shown on top of the Home", () => {
    const home = renderHome(
      input({ notices: [{ text: 'You cannot pause acme/web:main: not an operator.' }] }),
    );
    assertValidHome(home);
    expect(textOf({ blocks: home.blocks.slice(0, 3) })).toContain(
      'You cannot pause acme/web:main: not an operator.',
    );
  });
});
