/**
 * The per-organization Trunk budget on its own, with a clock the test moves: the one-second window,
 * commands before background work, the bound on a command's wait, organizations kept apart, aborts.
 */
import { describe, expect, it } from 'vitest';
import { startTrunkFake } from '../../dev/fakes/trunk/index.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import {
  type BudgetClock,
  createTrunkBudget,
  TRUNK_CALLERS,
  type TrunkBudgetOptions,
  type TrunkCaller,
} from '../../src/trunk/budget.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';

/** A clock whose timers fire only when advance() moves time past them, in order. */
function manualClock(): BudgetClock & { advance(ms: number): Promise<void> } {
  let t = 0;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    now: () => t,
    setTimeout(fn, ms) {
      timers.set(++nextId, { at: t + ms, fn });
      return nextId;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    async advance(ms) {
      const end = t + ms;
      for (;;) {
        await settle();
        let first: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers)
          if (entry[1].at <= end && (!first || entry[1].at < first[1].at)) first = entry;
        if (!first) break;
        timers.delete(first[0]);
        t = first[1].at;
        first[1].fn();
      }
      t = end;
      await settle();
    },
  };
}

interface Grant {
  caller: TrunkCaller;
  asked: number;
  at: number;
  tag: string;
}

function rig(opts: Partial<TrunkBudgetOptions> & { maxPerSecond: number }) {
  const clock = manualClock();
  const waits: Array<[TrunkCaller, number]> = [];
  const overdrafts: TrunkCaller[] = [];
  const budget = createTrunkBudget({
    clock,
    onWait: (caller, ms) => waits.push([caller, ms]),
    onOverdraft: (caller) => overdrafts.push(caller),
    ...opts,
  });
  const grants: Grant[] = [];
  const take = (caller: TrunkCaller, tag: string = caller, org = 'acme') => {
    const asked = clock.now();
    return budget.acquire(org, caller).then(() => {
      grants.push({ caller, asked, at: clock.now(), tag });
    });
  };
  return { clock, budget, grants, waits, overdrafts, take };
}

/** The most request starts within any half-open window [t, t + windowMs). */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[j] as number) < (sorted[i] as number) - windowMs + 1e-9) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('Trunk request budget', () => {
  it('starts at most maxPerSecond requests in any one-second window, however many wait', async () => {
    // Commands may wait as long as it takes here, so the window alone decides.
    const r = rig({ maxPerSecond: 5, interactiveMaxWaitMs: 60_000 });
    for (let i = 0; i < 40; i++) void r.take(TRUNK_CALLERS[i % 3]!);
    await r.clock.advance(30_000);
    expect(r.grants).toHaveLength(40);
    expect(
      busiestWindow(
        r.grants.map((g) => g.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(5);
    // The guard: not even a window of one second and the guard's 50 ms holds more.
    expect(
      busiestWindow(
        r.grants.map((g) => g.at),
        1_050,
      ),
    ).toBeLessThanOrEqual(5);
    // And the budget is used, not wasted: 40 requests at 5 a second take about 8 seconds (a little more
    // as background callers leave one slot a second to commands).
    expect(r.grants.at(-1)!.at).toBeLessThan(10_000);
    expect(r.waits.length).toBeGreaterThan(30);
    expect(r.overdrafts).toEqual([]);
  });

  it('lets a first burst of commands through at once, up to the budget', async () => {
    const r = rig({ maxPerSecond: 4 });
    for (let i = 0; i < 4; i++) void r.take('interactive');
    await r.clock.advance(0);
    expect(r.grants.map((g) => g.at)).toEqual([0, 0, 0, 0]);
    expect(r.waits).toEqual([]);
  });

  it('paces background callers and leaves a slot of each second to commands', async () => {
    const r = rig({ maxPerSecond: 10 });
    for (let i = 0; i < 30; i++) void r.take(i % 2 ? 'digest' : 'watch');
    await r.clock.advance(5_000);
    const gaps = r.grants.slice(1).map((g, i) => g.at - r.grants[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(105);
    expect(
      busiestWindow(
        r.grants.map((g) => g.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(9);
  });

  it('a command arriving during background work starts at once', async () => {
    const r = rig({ maxPerSecond: 3 });
    for (let i = 0; i < 10; i++) void r.take('digest', `page ${i}`);
    await r.clock.advance(400);
    void r.take('interactive', 'status');
    await r.clock.advance(0);
    expect(r.grants.map((g) => [g.tag, g.at])).toEqual([
      ['page 0', 0],
      ['page 1', 350],
      ['status', 400],
    ]);
  });

  it('serves a waiting command before every waiting background caller', async () => {
    const r = rig({ maxPerSecond: 1 });
    for (let i = 0; i < 4; i++) void r.take('digest', `page ${i}`);
    await r.clock.advance(300);
    void r.take('interactive', 'status');
    await r.clock.advance(10_000);
    expect(r.grants.map((g) => [g.tag, g.at])).toEqual([
      ['page 0', 0],
      ['status', 1_050],
      ['page 1', 2_100],
      ['page 2', 3_150],
      ['page 3', 4_200],
    ]);
  });

  it('is not starved by a digest pagination: commands start at once while it runs', async () => {
    const r = rig({ maxPerSecond: 10 });
    let pages = 0;
    let paginating = true;
    // One page after the other, as failingTestPages does, for as long as the test runs.
    const paginate = async () => {
      while (paginating) {
        await r.take('digest');
        pages++;
      }
    };
    void paginate();
    for (let i = 0; i < 25; i++) {
      await r.clock.advance(397);
      void r.take('interactive', `command ${i}`);
    }
    await r.clock.advance(1_000);
    paginating = false;
    const commands = r.grants.filter((g) => g.caller === 'interactive');
    expect(commands).toHaveLength(25);
    for (const c of commands) expect(c.at - c.asked).toBe(0);
    expect(
      busiestWindow(
        r.grants.map((g) => g.at),
        1_000,
      ),
    ).toBeLessThanOrEqual(10);
    // The pagination used the rest (10 a second, less the commands' 2.5 and the slot kept for them).
    expect(pages).toBeGreaterThan(65);
  });

  it('never keeps a person waiting past the bound: commands alone over budget go ahead and are counted', async () => {
    const r = rig({ maxPerSecond: 1, interactiveMaxWaitMs: 200 });
    for (let i = 0; i < 3; i++) void r.take('interactive');
    void r.take('digest');
    await r.clock.advance(100);
    expect(r.grants).toHaveLength(1);
    await r.clock.advance(100);
    expect(r.grants.filter((g) => g.caller === 'interactive').map((g) => g.at)).toEqual([0, 200, 200]);
    expect(r.overdrafts).toEqual(['interactive', 'interactive']);
    // Background work pays for the overdraft: it waits until the window has room again.
    await r.clock.advance(5_000);
    const digest = r.grants.find((g) => g.caller === 'digest')!;
    expect(digest.at).toBeGreaterThanOrEqual(1_250);
    expect(r.waits.map(([caller]) => caller).sort()).toEqual(['digest', 'interactive', 'interactive']);
  });

  it('keeps one budget per organization, slugs compared without case', async () => {
    const r = rig({ maxPerSecond: 1 });
    void r.take('digest', 'acme 1', 'acme');
    void r.take('digest', 'globex', 'globex');
    void r.take('digest', 'acme 2', 'ACME');
    await r.clock.advance(0);
    expect(r.grants.map((g) => g.tag).sort()).toEqual(['acme 1', 'globex']);
    expect(r.budget.waiting('acme')).toBe(1);
    expect(r.budget.waiting('globex')).toBe(0);
    await r.clock.advance(1_100);
    expect(r.grants.find((g) => g.tag === 'acme 2')?.at).toBe(1_050);
  });

  it('an aborted waiter leaves the line with the abort reason, and the next one moves up', async () => {
    const r = rig({ maxPerSecond: 1 });
    await r.take('watch');
    const ac = new AbortController();
    const aborted = r.budget.acquire('acme', 'digest', ac.signal);
    void r.take('watch', 'next');
    ac.abort(new Error('shutting down'));
    await expect(aborted).rejects.toThrow('shutting down');
    expect(r.budget.waiting()).toBe(1);
    await r.clock.advance(1_100);
    expect(r.grants.map((g) => [g.tag, g.at])).toEqual([
      ['watch', 0],
      ['next', 1_050],
    ]);
    await expect(r.budget.acquire('acme', 'digest', AbortSignal.abort(new Error('gone')))).rejects.toThrow(
      'gone',
    );
  });

  it('refuses a budget that is not a positive whole number', () => {
    for (const bad of [0, -1, 2.5, Number.NaN])
      expect(() => createTrunkBudget({ maxPerSecond: bad })).toThrow(/whole number of at least 1/);
  });
});

describe('Trunk client with a budget', () => {
  it('waits for a slot before every attempt, retries included, against a real server', async () => {
    const fake = await startTrunkFake();
    try {
      fake.addQueue('acme/web', 'main');
      fake.failNext(2, { status: 503 }, 'getQueue');
      const waits: Array<[TrunkCaller, number]> = [];
      const budget = createTrunkBudget({ maxPerSecond: 2, onWait: (c, ms) => waits.push([c, ms]) });
      const client = createTrunkClient({
        baseUrl: fake.url,
        auth: apiTokenAuth('test-token'),
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
        budget: budget.gate('acme', 'interactive'),
      });
      const queue = await client.getQueue({
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        targetBranch: 'main',
      });
      expect(queue.branch).toBe('main');
      const [first, , third] = fake.requestsTo('getQueue');
      expect(fake.requestsTo('getQueue').map((r) => r.status)).toEqual([503, 503, 200]);
      // Two attempts fit in the first second; the third waited for the window. The budget's window is measured
      // where requests leave (a second plus a 50 ms guard); the fake stamps arrivals, and on a loaded machine
      // the first request (a new connection) can arrive tens of ms late. Without the budget all three would
      // arrive within a few ms of each other.
      expect(third!.at - first!.at).toBeGreaterThanOrEqual(900);
      expect(waits).toHaveLength(1);
      expect(waits[0]![0]).toBe('interactive');

      // A call whose caller gives up while it waits for a slot ends with the caller's reason, unsent.
      const full = createTrunkBudget({ maxPerSecond: 1 });
      await full.acquire('acme', 'watch');
      const waiting = createTrunkClient({
        baseUrl: fake.url,
        auth: apiTokenAuth('test-token'),
        budget: full.gate('acme', 'watch'),
      });
      const ac = new AbortController();
      const pending = waiting.getQueue(
        { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' },
        { signal: ac.signal },
      );
      await new Promise((r) => setTimeout(r, 20));
      expect(full.waiting('acme')).toBe(1);
      ac.abort(new Error('shutting down'));
      await expect(pending).rejects.toThrow('shutting down');
      expect(full.waiting('acme')).toBe(0);
      expect(fake.requestsTo('getQueue')).toHaveLength(3);
    } finally {
      await fake.close();
    }
  });
});
