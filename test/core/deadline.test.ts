/** core/deadline.ts: the one race of work against a deadline, which every timed wait in src/ goes through. */
import { describe, expect, it } from 'vitest';
import { answerWithin, settleBy } from '../../src/core/deadline.ts';

const never = new Promise<never>(() => undefined);

describe('settleBy', () => {
  it('answers the work’s value when it comes in time', async () => {
    expect(await settleBy(Promise.resolve(42), Date.now() + 1_000)).toEqual({ kind: 'ok', value: 42 });
  });

  it('answers the work’s error without throwing', async () => {
    const error = new Error('boom');
    expect(await settleBy(Promise.reject(error), Date.now() + 1_000)).toEqual({ kind: 'error', error });
  });

  it('answers timeout at the deadline, and a later failure of the abandoned work goes unnoticed', async () => {
    let fail: (err: Error) => void = () => undefined;
    const late = new Promise<never>((_, reject) => (fail = reject));
    const started = Date.now();
    expect(await settleBy(late, started + 30)).toEqual({ kind: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    fail(new Error('too late')); // no unhandled rejection: vitest fails the run if there is one
    await new Promise((r) => setTimeout(r, 5));
  });
});

describe('answerWithin', () => {
  it('answers the value in time, rethrows the work’s own error, and throws late() after the budget', async () => {
    expect(await answerWithin(Promise.resolve('yes'), 1_000, () => new Error('late'))).toBe('yes');
    await expect(
      answerWithin(Promise.reject(new Error('own')), 1_000, () => new Error('late')),
    ).rejects.toThrow('own');
    await expect(answerWithin(never, 20, () => new Error('no answer within 20 ms'))).rejects.toThrow(
      'no answer within 20 ms',
    );
  });
});
