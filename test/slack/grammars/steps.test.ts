/**
 * The Workflow Builder steps' inputs (slack/grammars/steps.ts): typed values for every step, a sentence
 * naming the input for anything else, and never a throw, whatever a workflow hands over.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TIMEOUT_MINUTES, parseStepInputs, STEP_IDS } from '../../../src/slack/grammars/steps.ts';

const person = { interactor: { id: 'U0PERSON01', secret: 's' }, interactivity_pointer: 'p' };

describe('parseStepInputs', () => {
  it('reads each step, its target and the person who started the workflow', () => {
    expect(
      parseStepInputs('pause_queue', {
        target: 'acme/web:main',
        reason: ' release ',
        channel: 'C0RELEASE1',
        interactivity: person,
      }),
    ).toEqual({
      ok: true,
      value: {
        step: 'pause_queue',
        target: { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' },
        reason: 'release',
        channel: 'C0RELEASE1',
        interactor: 'U0PERSON01',
      },
    });
    expect(parseStepInputs('set_concurrency', { target: ':main', concurrency: '4' })).toMatchObject({
      ok: true,
      value: { concurrency: 4, target: { branch: 'main' } },
    });
    expect(parseStepInputs('submit_pr', { pr: 12, priority: 'URGENT' })).toMatchObject({
      ok: true,
      value: { pr: 12, priority: 'urgent' },
    });
    expect(parseStepInputs('submit_pr', { pr: 12, priority: 7 })).toMatchObject({ value: { priority: 7 } });
    expect(parseStepInputs('wait_for_pr', { pr: 3, timeout_minutes: MAX_TIMEOUT_MINUTES })).toMatchObject({
      ok: true,
      value: { pr: 3, timeoutMinutes: MAX_TIMEOUT_MINUTES },
    });
  });

  it('has no person without an interactor (a scheduled or event trigger)', () => {
    const r = parseStepInputs('drain_queue', { target: 'acme/web:main', interactivity: { interactor: {} } });
    expect(r.ok && r.value.interactor).toBeUndefined();
  });

  it.each([
    ['set_concurrency', { concurrency: 0 }, '`concurrency` input'],
    ['set_concurrency', { concurrency: 1.5 }, '`concurrency` input'],
    ['submit_pr', { pr: 'twelve' }, '`pr` input'],
    ['submit_pr', { pr: 12, priority: 'asap' }, '`priority` input'],
    ['submit_pr', { pr: 12, priority: 256 }, '`priority` input'],
    ['cancel_pr', {}, '`pr` input'],
    ['wait_for_pr', { pr: 3, timeout_minutes: MAX_TIMEOUT_MINUTES + 1 }, '`timeout_minutes` input'],
    ['pause_queue', { target: 'no such target!' }, '`target` input'],
    ['make_coffee', {}, 'no workflow step `make_coffee`'],
  ])('%s %j is refused naming the input', (id, inputs, words) => {
    const r = parseStepInputs(id, inputs);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(words);
  });

  it('never throws, whatever the inputs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...STEP_IDS, 'other'),
        fc.anything({ withBigInt: true, withNullPrototype: true }),
        (id, inputs) => {
          const r = parseStepInputs(id, inputs);
          expect(typeof r.ok).toBe('boolean');
        },
      ),
      { numRuns: 300 },
    );
  });
});
