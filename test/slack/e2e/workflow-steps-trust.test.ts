/**
 * What a Workflow Builder step shows, only where its person may see it, and who that person is (issue 26).
 * A step's `channel` input names where it announces (and whose default queue it uses without a target): a
 * channel the person who started the workflow cannot see is refused, nothing changes and the step's outcome
 * says why. The person is `interactivity.interactor` only when the input is Slack's interactivity value: declared
 * as `slack#/types/interactivity` in the function's parameters Slack sends, with a pointer and a secret.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { interactivityOf } from '../../../dev/fakes/slack/functions.ts';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { postEventEnvelope, runStep } from '../../helpers/slack-payloads.ts';

/** A private channel the bot is in and the admin (an operator) is not. */
const HIDDEN = 'C0HIDDEN01';
/** A private channel the admin is in. */
const THEIRS = 'C0THEIRS01';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
  h.trunk.addQueue('acme/secret', 'main', { state: 'running' });
  h.slack.setChannel({ id: HIDDEN, name: 'hidden', isPrivate: true, members: [USERS.owner] });
  h.slack.setChannel({ id: THEIRS, name: 'theirs', isPrivate: true, members: [USERS.admin] });
});
afterAll(async () => h?.close());
beforeEach(async () => {
  await h.reset();
  h.trunk.patchQueue('acme/web', 'main', { state: 'running' });
  h.trunk.patchQueue('acme/secret', 'main', { state: 'running' });
});

async function completion(executionId: string) {
  const c = await h.slack.waitFor(() => h.slack.functionCompletions(executionId)[0]);
  await h.idle();
  expect(h.slack.functionCompletions(executionId)).toHaveLength(1);
  return c;
}

describe("a step's channel input", () => {
  it('names a private channel the person is not in: refused, nothing drained, nothing announced there', async () => {
    const run = await runStep(
      h,
      'drain_queue',
      { target: 'acme/web:main', reason: 'release', channel: HIDDEN },
      { person: USERS.admin },
    );
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toContain('a channel you cannot see');
    expect(done.error).toContain('Nothing was changed.');
    await new Promise((r) => setTimeout(r, 200));
    await h.idle();
    expect(h.slack.channelMessages(HIDDEN)).toEqual([]);
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
  });

  it("without a target, a hidden channel's default queue is not used either", async () => {
    await h.sendCommand('config channel acme/secret:main', { user: USERS.owner, channel: HIDDEN });
    await h.idle();
    const run = await runStep(h, 'pause_queue', { channel: HIDDEN }, { person: USERS.admin });
    const done = await completion(run.executionId);
    expect(done.kind).toBe('error');
    expect(done.error).toContain('a channel you cannot see');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/secret', 'main')!.state).toBe('running');
  });

  it('names a private channel the person is in: done and announced there (control)', async () => {
    const run = await runStep(
      h,
      'drain_queue',
      { target: 'acme/web:main', reason: 'release', channel: THEIRS },
      { person: USERS.admin },
    );
    expect(await completion(run.executionId)).toMatchObject({
      kind: 'success',
      outputs: { state: 'draining' },
    });
    const post = await h.slack.waitFor(() => h.slack.channelMessages(THEIRS)[0]);
    expect(textOf(post)).toContain(`<@${USERS.admin}>`);
  });
});

describe('the interactivity input', () => {
  /** Starts `drain_queue` as the admin with the inputs and declared parameter types given, and posts it. */
  async function drainWith(interactivity: unknown, declaredAs = 'slack#/types/interactivity') {
    const execution = h.slack.startFunction({
      callbackId: 'drain_queue',
      inputs: { target: 'acme/web:main', interactivity },
    });
    const event = execution.envelope['event'] as {
      function: { input_parameters: Array<{ name: string; type: string }> };
    };
    for (const p of event.function.input_parameters) if (p.name === 'interactivity') p.type = declaredAs;
    expect((await postEventEnvelope(h, execution.envelope)).status).toBe(200);
    return completion(execution.executionId);
  }

  it.each([
    ['declared as text (a value a workflow builder typed)', interactivityOf(USERS.admin), 'string'],
    ['declared as an object', interactivityOf(USERS.admin), 'object'],
    [
      'without its interactivity_pointer',
      { interactor: interactivityOf(USERS.admin)['interactor'] },
      undefined,
    ],
    [
      'without the interactor secret',
      { interactor: { id: USERS.admin }, interactivity_pointer: '1.2.abc' },
      undefined,
    ],
  ])('a forged interactor, %s, names no one: the step fails and changes nothing', async (_, value, type) => {
    const done = await drainWith(value, type);
    expect(done.kind).toBe('error');
    expect(done.error).toContain('workflow started by a person');
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
  });

  it("Slack's own interactivity value acts as its person (control)", async () => {
    expect(await drainWith(interactivityOf(USERS.admin))).toMatchObject({
      kind: 'success',
      outputs: { state: 'draining' },
    });
  });
});
