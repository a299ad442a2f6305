/**
 * Work after an answer waits while requests await theirs, never longer than MAX_DEFER_MS, and a request's
 * own work before its answer never waits.
 */
import { describe, expect, it } from 'vitest';
import {
  afterAnswers,
  MAX_DEFER_MS,
  requestReceived,
  unansweredRequests,
} from '../../src/core/scheduling-gate.ts';
import { answersFirst } from '../../src/observability/answers-first.ts';
import { runWithRequestContext } from '../../src/observability/request-context.ts';

const turn = () => new Promise((r) => setImmediate(r));

describe('answers first', () => {
  it('waiting work goes on once the last request is answered, one piece per turn', async () => {
    const answered = [requestReceived(), requestReceived()];
    const done: string[] = [];
    let afterA: string[] = [];
    const a = answersFirst().then(() => {
      done.push('a');
      // Anything released in the same turn as 'a' would have run by the end of this turn's microtasks.
      queueMicrotask(() => queueMicrotask(() => (afterA = [...done])));
    });
    const b = answersFirst().then(() => done.push('b'));
    for (let i = 0; i < 5; i++) await turn();
    expect(done).toEqual([]);
    answered[0]!();
    answered[0]!(); // a second call changes nothing
    for (let i = 0; i < 5; i++) await turn();
    expect(done).toEqual([]);
    expect(unansweredRequests()).toBe(1);
    answered[1]!();
    await Promise.all([a, b]);
    expect(done).toEqual(['a', 'b']);
    expect(afterA).toEqual(['a']);
  });

  it('waits at most MAX_DEFER_MS when requests keep coming', async () => {
    const answered = requestReceived();
    const t0 = performance.now();
    await answersFirst();
    const waited = performance.now() - t0;
    answered();
    expect(waited).toBeGreaterThanOrEqual(MAX_DEFER_MS - 5);
    expect(waited).toBeLessThan(MAX_DEFER_MS + 500);
  });

  it("a request's own work before its answer does not wait; after its answer it does", async () => {
    const answered = requestReceived();
    const ctx: { reqId: string; answered?: boolean } = { reqId: 'r1' };
    let before = false;
    await runWithRequestContext(ctx, async () => {
      await answersFirst();
      before = true;
    });
    expect(before).toBe(true);
    ctx.answered = true;
    let after = false;
    const waiting = runWithRequestContext(ctx, () => answersFirst().then(() => (after = true)));
    for (let i = 0; i < 5; i++) await turn();
    expect(after).toBe(false);
    answered();
    await waiting;
    expect(after).toBe(true);
  });

  it('holds a pass of 30 reads back MAX_DEFER_MS in all, not per read, while requests keep coming', async () => {
    const answered = requestReceived();
    const t0 = performance.now();
    let reads = 0;
    await afterAnswers(async () => {
      for (let i = 0; i < 30; i++) {
        await answersFirst(); // as the Trunk read cache does for each reader
        reads++;
      }
    });
    const took = performance.now() - t0;
    answered();
    expect(reads).toBe(30);
    expect(took).toBeGreaterThanOrEqual(MAX_DEFER_MS - 5);
    expect(took).toBeLessThan(MAX_DEFER_MS + 700);
  });

  it("shares one MAX_DEFER_MS among a request's waits after its ack", async () => {
    const answered = requestReceived();
    const ctx: { reqId: string; answered?: boolean } = { reqId: 'r2', answered: true };
    const t0 = performance.now();
    await runWithRequestContext(ctx, async () => {
      await answersFirst(); // after the ack
      await answersFirst(); // a cached Trunk read
      await answersFirst();
    });
    const took = performance.now() - t0;
    answered();
    expect(took).toBeGreaterThanOrEqual(MAX_DEFER_MS - 5);
    expect(took).toBeLessThan(MAX_DEFER_MS + 500);
  });
});
