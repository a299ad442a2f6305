/**
 * The app's Workflow Builder steps through the real wire: the fake Slack starts an execution (its own
 * token) and its function_executed envelope is posted signed to /slack/events; the step acts on the fake
 * Trunk as the person who started the workflow and ends with functions.completeSuccess or completeError,
 * which the fake Slack accepts only with that execution's token.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { payload, runStep, shapeDifferences } from '../../helpers/slack-payloads.ts';
import { startWorld, usePostgres, type World } from '../../helpers/world.ts';

let h: Harness;
const clock = { now: Date.now() };
let n = 0;

beforeAll(async () => {
  h = await startHarness({ app: { clock: () => clock.now, trunk: { interactiveDeadlineMs: 2_500 } } });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
});

/** Each test its own queue and announcement channel. */
function fresh(prs: Array<{ prNumber: number; prAuthor?: string; state?: string }> = []) {
  n++;
  const repo = `acme/flow${n}`;
  h.trunk.addQueue(repo, 'main', { state: 'running', concurrency: 2 }, prs);
  return { repo, target: `${repo}:main`, channel: `C0FLOW${String(n).padStart(4, '0')}` };
}

/** The one completion Slack accepted for the execution (waits for it). */
async function completion(executionId: string) {
  const c = await h.slack.waitFor(() => h.slack.functionCompletions(executionId)[0]);
  await h.idle();
  expect(h.slack.functionCompletions(executionId)).toHaveLength(1);
  return c;
}

describe('the function_executed payload', () => {
  it("follows Slack's documented example field for field", () => {
    const { envelope } = h.slack.startFunction({
      callbackId: 'sample_function',
      inputs: { user_id: USERS.member },
    });
    expect(shapeDifferences(envelope, payload('function_executed'))).toEqual([]);
  });
});

describe('a step this version does not offer', () => {
  it('fails at once saying what to do, instead of leaving the workflow running', async () => {
    const run = await runStep(h, 'retired_step', { target: 'acme/web:main' }, { person: USERS.admin });
    expect(run.sent.status).toBe(200);
    const done = await completion(run.executionId);
    expect(done).toMatchObject({ kind: 'error', token: run.token });
    expect(done.error).toContain('no workflow step `retired_step`');
    expect(done.error).toContain('Nothing was changed.');
    expect(h.trunk.requests).toEqual([]);
  });
});

describe('queue steps', () => {
  it('an operator pauses a queue: Trunk paused, the step completes with the state, announced and audited', async () => {
    const q = fresh();
    const run = await runStep(
      h,
      'pause_queue',
      { target: q.target, reason: 'release freeze', channel: q.channel },
      { person: USERS.admin },
    );
    expect(run.sent.status).toBe(200);
    const done = await completion(run.executionId);
    expect(done).toMatchObject({ kind: 'success', outputs: { state: 'paused' }, token: run.token });
    expect(h.trunk.queue(q.repo, 'main')!.state).toBe('paused');
    const post = await h.slack.waitFor(() => h.slack.channelMessages(q.channel)[0]);
    expect(textOf(post)).toContain(`<@${USERS.admin}>`);
    expect(textOf(post)).toContain('release freeze');
    const audit = await h.app!.store.listAudit(TEAM, { target: q.target, limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: USERS.admin });
  });

  it('drain, resume and set_concurrency act as their commands do', async () => {
    const q = fresh();
    const drain = await runStep(h, 'drain_queue', { target: q.target }, { person: USERS.admin });
    expect(await completion(drain.executionId)).toMatchObject({ outputs: { state: 'draining' } });
    const conc = await runStep(
      h,
      'set_concurrency',
      { target: q.target, concurrency: 5 },
      { person: USERS.owner },
    );
    expect(await completion(conc.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'draining' },
    });
    expect(h.trunk.queue(q.repo, 'main')!.concurrency).toBe(5);
    const resume = await runStep(h, 'resume_queue', { target: q.target }, { person: USERS.admin });
    expect(await completion(resume.executionId)).toMatchObject({ outputs: { state: 'running' } });
    // Already running: nothing to do, and the workflow goes on with the queue as it is.
    const again = await runStep(h, 'resume_queue', { target: q.target }, { person: USERS.admin });
    expect(await completion(again.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'running' },
    });
  });

  it("someone who is not an operator is refused with the command's words; nothing changes", async () => {
    const q = fresh();
    const run = await runStep(
      h,
      'pause_queue',
      { target: q.target, channel: q.channel },
      { person: USERS.member },
    );
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toContain(`You can't pause ${q.target}`);
    expect(done.error).toContain('/mergequeue config operators add');
    expect(h.trunk.queue(q.repo, 'main')!.state).toBe('running');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.slack.channelMessages(q.channel)).toHaveLength(0);
    const audit = await h.app!.store.listAudit(TEAM, { target: q.target, limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'refused', userId: USERS.member });
  });

  it('Trunk failing (5xx every time) fails the step with a message saying what to do', async () => {
    const q = fresh();
    h.trunk.failNext(50, { status: 500 }, 'updateQueue');
    const run = await runStep(h, 'pause_queue', { target: q.target }, { person: USERS.admin });
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toMatch(/not reachable|did not answer/);
    expect(done.error).toContain('/mergequeue status');
    expect(done.error).not.toMatch(/at .*\.ts|Error:/);
    expect(h.trunk.queue(q.repo, 'main')!.state).toBe('running');
    h.trunk.resetFaults();
  });

  it('a run with no person behind it (a scheduled trigger) fails and changes nothing', async () => {
    const q = fresh();
    const run = await runStep(h, 'drain_queue', { target: q.target });
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toContain('workflow started by a person');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });

  it('bad input fails the step naming the input; nothing changes', async () => {
    const q = fresh();
    const run = await runStep(
      h,
      'set_concurrency',
      { target: q.target, concurrency: 0 },
      { person: USERS.admin },
    );
    const done = await completion(run.executionId);
    expect(done.error).toContain('`concurrency` input');
    const bad = await runStep(h, 'pause_queue', { target: 'not a target!' }, { person: USERS.admin });
    expect((await completion(bad.executionId)).error).toContain('`target` input');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
  });
});

describe('inputs handed over as text', () => {
  it('numbers a workflow variable gives as text are read as numbers (concurrency, pr)', async () => {
    const q = fresh();
    const conc = await runStep(
      h,
      'set_concurrency',
      { target: ` ${q.target} `, concurrency: '3' },
      { person: USERS.admin },
    );
    expect(await completion(conc.executionId)).toMatchObject({ kind: 'success' });
    expect(h.trunk.queue(q.repo, 'main')!.concurrency).toBe(3);
    const submit = await runStep(h, 'submit_pr', { target: q.target, pr: '7005' }, { person: USERS.admin });
    expect(await completion(submit.executionId)).toMatchObject({ kind: 'success' });
    expect((h.trunk.queue(q.repo, 'main')!.enqueuedPullRequests ?? []).map((p) => p.prNumber)).toContain(
      7005,
    );
  });
});

describe('PR steps', () => {
  it('an operator submits a PR (state after) and cancels it, announced with the reason', async () => {
    const q = fresh();
    const submit = await runStep(
      h,
      'submit_pr',
      { target: q.target, pr: 7001, priority: 'high', channel: q.channel },
      { person: USERS.admin },
    );
    const s = await completion(submit.executionId);
    expect(s.kind).toBe('success');
    expect(String(s.outputs!['state'])).toMatch(/pending|testing|not_ready/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(1);
    const cancel = await runStep(
      h,
      'cancel_pr',
      { target: q.target, pr: 7001, reason: 'release cut', channel: q.channel },
      { person: USERS.admin },
    );
    expect(await completion(cancel.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'cancelled' },
    });
    const posts = await h.slack.waitFor(() => {
      const m = h.slack.channelMessages(q.channel);
      return m.length >= 2 ? m : undefined;
    });
    expect(textOf(posts[1]!)).toContain('release cut');
  });

  it('`urgent` is for operators: someone else is refused, nothing submitted', async () => {
    const q = fresh();
    const run = await runStep(
      h,
      'submit_pr',
      { target: q.target, pr: 7002, priority: 'urgent' },
      { person: USERS.member },
    );
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toMatch(/You can't submit #7002|can't submit/);
    expect(h.trunkCalls('submitPullRequest')).toHaveLength(0);
  });

  it('Trunk failing on a cancel fails the step saying to check the PR', async () => {
    const q = fresh([{ prNumber: 7003, state: 'pending' }]);
    h.trunk.failNext(50, { status: 503 }, 'cancelPullRequest');
    const run = await runStep(h, 'cancel_pr', { target: q.target, pr: 7003 }, { person: USERS.admin });
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toMatch(/not reachable|did not answer/);
    h.trunk.resetFaults();
  });
});

describe('wait_for_pr', () => {
  /** One watch interval passes: the watcher polls and delivers, then the waits worker runs. */
  async function interval(seconds = 21) {
    clock.now += seconds * 1000;
    await h.app!.events!.tick();
    await h.app!.steps.tick();
  }

  it('completes at once for a PR that already merged, and for one never in the queue', async () => {
    const q = fresh();
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber: 81,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const merged = await runStep(h, 'wait_for_pr', { target: q.target, pr: 81, timeout_minutes: 30 });
    expect(await completion(merged.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'merged' },
      token: merged.token,
    });
    const never = await runStep(h, 'wait_for_pr', { target: q.target, pr: 99999, timeout_minutes: 30 });
    expect(await completion(never.executionId)).toMatchObject({ outputs: { state: 'not_in_queue' } });
  });

  it('waits while the PR is in the queue, follows its queue, and completes once when it merges', async () => {
    const q = fresh([{ prNumber: 82, prAuthor: 'kim', state: 'testing' }]);
    const run = await runStep(
      h,
      'wait_for_pr',
      { target: q.target, pr: 82, timeout_minutes: 60 },
      { person: USERS.member },
    );
    expect(run.sent.status).toBe(200);
    await h.idle();
    await interval(); // the queue is followed now: the first poll sets its baseline
    expect(h.slack.functionCompletions(run.executionId)).toHaveLength(0);
    const polls = h.trunkCalls('getQueue').length;
    expect(polls).toBeGreaterThan(0);

    h.trunk.dequeuePr(q.repo, 'main', 82);
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber: 82,
      prAuthor: 'kim',
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    await interval();
    expect(await completion(run.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'merged' },
    });
    await interval();
    await interval(); // later passes send nothing more, and the queue is no longer followed for the step
    expect(h.slack.functionCompletions(run.executionId)).toHaveLength(1);
  });

  it('a PR that merged before its queue was first polled (no event will come) still completes the step', async () => {
    const q = fresh([{ prNumber: 87, state: 'testing' }]);
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 87, timeout_minutes: 60 });
    await h.idle();
    h.trunk.dequeuePr(q.repo, 'main', 87);
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber: 87,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const reads = h.trunkCalls('getSubmittedPullRequest').length;
    await interval(); // the first poll is a baseline without the PR: no event
    expect(await completion(run.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'merged' },
    });
    await interval();
    // Asked of Trunk once, not at every pass.
    expect(h.trunkCalls('getSubmittedPullRequest').length).toBe(reads + 1);
  });

  it('a PR that fails completes the step with `failed`', async () => {
    const q = fresh([{ prNumber: 83, state: 'testing' }]);
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 83, timeout_minutes: 60 });
    await h.idle();
    await interval();
    h.trunk.dequeuePr(q.repo, 'main', 83);
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber: 83,
      state: 'failed',
      isCurrentlySubmittedToQueue: false,
    });
    await interval();
    expect(await completion(run.executionId)).toMatchObject({ outputs: { state: 'failed' } });
  });

  it('a workflow cancelled while its step waits: told once, Slack says it is over, never asked again', async () => {
    const q = fresh([{ prNumber: 88, state: 'testing' }]);
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 88, timeout_minutes: 60 });
    await h.idle();
    await interval();
    h.slack.cancelFunction(run.executionId);
    h.trunk.dequeuePr(q.repo, 'main', 88);
    h.trunk.addSubmittedPr(q.repo, 'main', {
      prNumber: 88,
      state: 'merged',
      isCurrentlySubmittedToQueue: false,
    });
    const attempts = () =>
      h.slack
        .callsTo('functions.completeSuccess')
        .filter((c) => c.args['function_execution_id'] === run.executionId);
    await interval();
    await h.slack.waitFor(() => attempts()[0]);
    await interval();
    await interval();
    expect(attempts()).toHaveLength(1);
    expect(h.slack.functionCompletions(run.executionId)).toEqual([]);
  });

  it('fails at its time limit with a message saying what to do', async () => {
    const q = fresh([{ prNumber: 84, state: 'pending' }]);
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 84, timeout_minutes: 2 });
    await h.idle();
    await interval(61);
    expect(h.slack.functionCompletions(run.executionId)).toHaveLength(0);
    await interval(60);
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toContain(`PR #84 did not merge or leave the queue ${q.target} within 2 minutes`);
    expect(done.error).toContain(`/mergequeue pr 84 ${q.target}`);
  });

  it('bad input fails at once', async () => {
    const q = fresh();
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 85, timeout_minutes: 0 });
    expect((await completion(run.executionId)).error).toContain('`timeout_minutes` input');
  });

  it('stores the execution token encrypted, never in clear', async () => {
    const q = fresh([{ prNumber: 86, state: 'pending' }]);
    const run = await runStep(h, 'wait_for_pr', { target: q.target, pr: 86, timeout_minutes: 60 });
    await h.idle();
    const rows = await h.app!.store.db.query<{ function_token: string }>(
      'SELECT function_token FROM step_waits WHERE execution_id = $1',
      [run.executionId],
    );
    expect(rows[0]!.function_token).toMatch(/^v1\./);
    expect(rows[0]!.function_token).not.toContain(run.token);
    // Copied to another row, it does not decrypt: the execution id is bound into it.
    await h.app!.store.db.execute(
      `INSERT INTO step_waits (execution_id, workspace_id, callback_id, queue_key, repo_host, repo_owner, repo_name,
         branch, pr_number, function_token, status, deadline_at, created_at)
       SELECT 'FxCOPY', workspace_id, callback_id, queue_key, repo_host, repo_owner, repo_name, branch, pr_number,
         function_token, 'done', deadline_at, created_at FROM step_waits WHERE execution_id = $1`,
      [run.executionId],
    );
    await expect(h.app!.store.stepWaitToken(TEAM, 'FxCOPY')).rejects.toThrow(/cannot be decrypted/);
    expect(await h.app!.store.stepWaitToken(TEAM, run.executionId)).toBe(run.token);
  });
});

/** Two apps on one database (a restart, then two replicas), one moved clock. */
function waitsAcrossApps(label: string, database: () => { kind: 'postgres'; url: string } | undefined) {
  describe(label, () => {
    let world: World;
    beforeAll(async () => {
      const db = database();
      world = await startWorld(db ? { database: db } : {});
    }, 60_000);
    afterAll(async () => world?.close(), 60_000);

    const replica = () => world.replica({ app: { clock: () => world.clock.now } });
    const pass = async (...apps: Harness[]) => {
      world.clock.now += 21_000;
      await Promise.all(apps.map((a) => a.app!.events!.tick()));
      await Promise.all(apps.map((a) => a.app!.steps.tick()));
    };

    it('a waiting step survives a restart: the new app completes it with the stored token', async () => {
      world.trunk.addQueue('acme/restart', 'main', {}, [{ prNumber: 91, state: 'testing' }]);
      const first = await replica();
      const run = await runStep(first, 'wait_for_pr', {
        target: 'acme/restart:main',
        pr: 91,
        timeout_minutes: 60,
      });
      expect(run.sent.status).toBe(200);
      await first.idle();
      await pass(first);
      await first.close();

      const second = await replica();
      world.trunk.dequeuePr('acme/restart', 'main', 91);
      world.trunk.addSubmittedPr('acme/restart', 'main', {
        prNumber: 91,
        state: 'merged',
        isCurrentlySubmittedToQueue: false,
      });
      await pass(second);
      const done = await world.slack.waitFor(() => world.slack.functionCompletions(run.executionId)[0]);
      expect(done).toMatchObject({ kind: 'success', outputs: { state: 'merged' }, token: run.token });
    });

    it('two replicas complete a step once (its merge, and its time limit racing it)', async () => {
      world.trunk.addQueue('acme/twice', 'main', {}, [
        { prNumber: 92, state: 'testing' },
        { prNumber: 93, state: 'pending' },
      ]);
      const a = await replica();
      const b = await replica();
      const merges = await runStep(a, 'wait_for_pr', {
        target: 'acme/twice:main',
        pr: 92,
        timeout_minutes: 60,
      });
      const times = await runStep(b, 'wait_for_pr', {
        target: 'acme/twice:main',
        pr: 93,
        timeout_minutes: 1,
      });
      await Promise.all([a.idle(), b.idle()]);
      await pass(a, b);
      world.trunk.dequeuePr('acme/twice', 'main', 92);
      world.trunk.addSubmittedPr('acme/twice', 'main', {
        prNumber: 92,
        state: 'merged',
        isCurrentlySubmittedToQueue: false,
      });
      for (let i = 0; i < 4; i++) await pass(a, b);
      await world.slack.waitFor(() => world.slack.functionCompletions(merges.executionId)[0]);
      await world.slack.waitFor(() => world.slack.functionCompletions(times.executionId)[0]);
      await Promise.all([a.idle(), b.idle()]);
      expect(world.slack.functionCompletions(merges.executionId)).toHaveLength(1);
      expect(world.slack.functionCompletions(times.executionId)).toHaveLength(1);
      expect(world.slack.functionCompletions(times.executionId)[0]!.kind).toBe('error');
      // Not even a refused second attempt: one call each.
      const ids = [merges.executionId, times.executionId];
      const calls = world.slack.calls.filter(
        (c) =>
          c.method.startsWith('functions.complete') && ids.includes(String(c.args['function_execution_id'])),
      );
      expect(calls).toHaveLength(2);
    });
  });
}

waitsAcrossApps('wait_for_pr across apps on one SQLite file', () => undefined);
const pg = await usePostgres('workflow steps across replicas (PostgreSQL)');
describe.runIf(pg.enabled)('on PostgreSQL', () => {
  waitsAcrossApps('wait_for_pr across replicas on PostgreSQL', () => ({ kind: 'postgres', url: pg.db.url }));
});
