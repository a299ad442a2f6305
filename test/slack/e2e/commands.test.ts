/**
 * Every /mergequeue command end to end: a signed slash command over HTTP to the running app, the fake
 * Slack Web API and response_url recording the answers, the fake Trunk recording what reached it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

let h: Harness;

beforeAll(async () => {
  // A short Trunk deadline, so the timeout test below need not wait the production 30 s.
  h = await startHarness({ app: { trunk: { interactiveDeadlineMs: 2_500 } } });
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.setTokens(['test-token']);
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 }, [
    { prNumber: 101, prTitle: 'Add login page', prAuthor: 'ada' },
    { prNumber: 102, prTitle: 'Fix flaky spinner', prAuthor: 'mel' },
  ]);
});

/** Sends a command and returns the first response_url reply (ack checked on the way). */
async function ask(text: string, opts: Parameters<Harness['sendCommand']>[1] = {}) {
  const sent = await h.sendCommand(text, opts);
  expect(sent.status).toBe(200);
  const reply = await h.reply(sent.responseUrl);
  return { sent, reply, text: textOf(reply) };
}

const writes = () => h.trunkCalls('updateQueue');

describe('reading commands', () => {
  it('help lists the commands with examples, ephemerally', async () => {
    const { reply, text } = await ask('help');
    expect(reply['response_type']).toBe('ephemeral');
    for (const name of ['status', 'pause', 'concurrency', 'digest', 'connect', 'config'])
      expect(text).toContain(name);
    expect(h.trunkCalls()).toHaveLength(0);
  });

  it('an empty command shows help', async () => {
    const { text } = await ask('');
    expect(text).toContain('status');
  });

  it('status posts the queue in the channel as the bot, with buttons', async () => {
    const sent = await h.sendCommand('status acme/web:main');
    expect(sent.status).toBe(200);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(msg.via).toBe('api');
    const text = textOf(msg);
    expect(text).toContain('acme/web:main');
    expect(text).toContain('running');
    expect(text).toContain('#101');
    expect(JSON.stringify(msg.blocks)).toContain('mq_pause');
    expect(h.trunkCalls('getQueue')).toHaveLength(1);
    expect(h.trunkCalls('getQueue')[0]!.headers['x-api-token']).toBe('test-token');
  });

  it('status uses DEFAULT_REPO when no target is typed', async () => {
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('acme/web:main');
  });

  it('status falls back to respond in_channel when the bot is not in the channel', async () => {
    h.slack.setChannel({ id: 'CPRIVATE01', isPrivate: true, isMember: false });
    const { reply } = await ask('status acme/web:main', { channel: 'CPRIVATE01' });
    expect(reply['response_type']).toBe('in_channel');
    expect(textOf(reply)).toContain('acme/web:main');
    expect(h.slack.callsTo('chat.postMessage')[0]!.response['error']).toBe('not_in_channel');
  });

  it('pr explains one submitted PR', async () => {
    h.trunk.addSubmittedPr('acme/web', 'main', { prNumber: 77, prTitle: 'Speed up CI', state: 'pending' });
    const { reply, text } = await ask('pr 77 acme/web:main');
    expect(reply['response_type']).toBe('ephemeral');
    expect(text).toContain('#77');
    expect(text).toContain('Speed up CI');
    expect(h.trunkCalls('getSubmittedPullRequest')).toHaveLength(1);
  });

  it('run shows one test run', async () => {
    h.trunk.addTestRun('acme/web', 'main', 'run-42', { status: 'failed' });
    const { text } = await ask('run run-42');
    expect(text).toContain('failed');
    expect(h.trunkCalls('getMergeQueueTestingDetails')).toHaveLength(1);
  });

  it('flaky lists failing tests of the repository', async () => {
    h.trunk.setFailingTests('acme/web', [
      // Failing tests are listed by their last status change falling inside the last 24 h.
      {
        name: 'login renders the form',
        status: {
          value: 'flaky',
          reason: 'fails 1 in 5',
          timestamp: new Date(Date.now() - 3_600_000).toISOString(),
        },
      },
    ]);
    const { text } = await ask('flaky acme/web');
    expect(text).toContain('login renders the form');
    expect(h.trunkCalls('listFailingTests').length).toBeGreaterThan(0);
  });

  it('quarantined lists quarantined tests', async () => {
    h.trunk.setQuarantinedTests('acme/web', [{ name: 'payment retries on timeout' }]);
    const { text } = await ask('quarantined acme/web');
    expect(text).toContain('payment retries on timeout');
  });
});

describe('changing the queue', () => {
  it('pause by an admin pauses via Trunk, announces in the channel and audits', async () => {
    const sent = await h.sendCommand('pause acme/web:main deploy freeze', { user: USERS.admin });
    expect(sent.status).toBe(200);
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('deploy freeze');
    expect(textOf(msg)).toContain(`<@${USERS.admin}>`);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.body).toMatchObject({ state: 'paused', targetBranch: 'main' });
    const audit = await h.app!.store.listAudit(TEAM, { limit: 5 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'ok', userId: USERS.admin });
  });

  it('drain and resume by the owner', async () => {
    await h.sendCommand('drain', { user: USERS.owner });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('draining');
    await h.sendCommand('resume acme/web:main', { user: USERS.owner });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[1]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
  });

  it('pausing a paused queue changes nothing and says so', async () => {
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });
    const { text } = await ask('pause', { user: USERS.admin });
    expect(text).toContain('already paused');
    expect(writes()).toHaveLength(0);
  });

  it('concurrency n sets it', async () => {
    await h.sendCommand('concurrency 5 acme/web:main', { user: USERS.admin });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(5);
    expect(writes()[0]!.body).toMatchObject({ concurrency: 5 });
  });

  it('config channel sets the channel default used by later commands', async () => {
    h.trunk.addQueue('acme/api', 'release', { state: 'paused' });
    const { text } = await ask('config channel acme/api:release', { user: USERS.admin });
    expect(text).toContain('acme/api:release');
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('acme/api:release');
    await ask('config channel clear', { user: USERS.admin });
  });

  it('config operators add lets a user group member pause', async () => {
    h.slack.setUsergroup('S0RELEASE1', [USERS.operator]);
    const added = await ask('config operators add <!subteam^S0RELEASE1|@release>', { user: USERS.admin });
    expect(added.text).toContain('S0RELEASE1');
    await h.sendCommand('pause acme/web:main', { user: USERS.operator });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    const list = await ask('config operators list');
    expect(list.text).toContain('S0RELEASE1');
    await ask('config operators remove <!subteam^S0RELEASE1>', { user: USERS.admin });
  });

  it('config workspace sets the workspace default (a channel default still wins)', async () => {
    h.trunk.addQueue('acme/docs', 'main', { state: 'draining' });
    const { text } = await ask('config workspace acme/docs', { user: USERS.admin });
    expect(text).toContain('acme/docs');
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('acme/docs:main');
    await ask('config workspace clear', { user: USERS.admin });
  });

  it('config show tells what is set', async () => {
    const { text } = await ask('config');
    expect(text).toContain('acme/web');
    expect(text).toMatch(/connected/);
  });

  it('digest commands go to the digest service', async () => {
    const { reply, text } = await ask('digest list');
    expect(reply['response_type']).toBe('ephemeral');
    expect(text.toLowerCase()).toContain('digest');
  });
});

describe('refusals', () => {
  it('a plain member may not pause: ephemeral refusal, nothing written, audited', async () => {
    const { reply, text } = await ask('pause acme/web:main', { user: USERS.member });
    expect(reply['response_type']).toBe('ephemeral');
    expect(text).toContain("can't");
    expect(text).toContain('config operators add');
    expect(writes()).toHaveLength(0);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'refused', userId: USERS.member });
  });

  it('a plain member may not change concurrency', async () => {
    const { text } = await ask('concurrency 3', { user: USERS.member });
    expect(text).toContain("can't");
    expect(writes()).toHaveLength(0);
  });

  it('a plain member may not change operators', async () => {
    const { text } = await ask(`config operators add <@${USERS.member}>`, { user: USERS.member });
    expect(text).toContain("can't");
    expect(await h.app!.store.listOperators(TEAM)).toHaveLength(0);
  });

  it('a user Slack cannot read is refused (fail closed)', async () => {
    const { text } = await ask('pause', { user: 'UNOBODY0001' });
    expect(text).toContain("can't");
    expect(writes()).toHaveLength(0);
  });
});

describe('bad input changes nothing and says what to type', () => {
  const cases: Array<[string, RegExp]> = [
    ['frobnicate', /not a \/mergequeue command/],
    ['concurrency 0', /between 1 and 4294967295/],
    ['concurrency 4294967296', /between 1 and 4294967295/],
    ['concurrency lots', /not a whole number/],
    ['concurrency -1', /at least 1/],
    ['pr abc', /not a PR number/],
    ['status acme/web/extra/parts', /not a valid target/],
    ['status :bad..branch', /not a valid/],
    ['flaky acme/web:main', /leave out the `:branch`/],
  ];
  for (const [input, message] of cases) {
    it(`"${input}"`, async () => {
      const { reply, text } = await ask(input, { user: USERS.admin });
      expect(reply['response_type']).toBe('ephemeral');
      expect(text).toMatch(message);
      expect(text).toContain('/mergequeue');
      expect(h.trunkCalls()).toHaveLength(0);
    });
  }
});

describe('Trunk faults get a friendly ephemeral answer', () => {
  it('unknown repository: 404', async () => {
    const { reply, text } = await ask('status nobody/nothing:main');
    expect(reply['response_type']).toBe('ephemeral');
    expect(text).toContain('Trunk found no merge queue for nobody/nothing:main.');
    expect(text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('unknown PR: 404', async () => {
    const { text } = await ask('pr 999999');
    expect(text).toContain('Trunk found no PR #999999 in the merge queue for acme/web:main.');
  });

  it('expired token: 401 says to reconnect, without the token', async () => {
    h.trunk.setTokens(['another-token']);
    const { text } = await ask('status');
    expect(text).toContain('rejected the API token');
    expect(text).toContain('/mergequeue connect');
    expect(text).not.toContain('test-token');
  });

  it('Trunk down (5xx every time) says Trunk is unreachable; retries happened', async () => {
    h.trunk.failNext(50, { status: 503 }, 'getQueue');
    const { text } = await ask('status');
    expect(text).toMatch(/not reachable|did not answer/);
    expect(h.trunkCalls('getQueue').length).toBeGreaterThan(1);
  });

  it('Trunk down while pausing: nothing claimed, failure audited', async () => {
    h.trunk.failNext(50, { status: 500 }, 'updateQueue');
    const { text } = await ask('pause', { user: USERS.admin });
    expect(text).toMatch(/not reachable|did not answer/);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');
    const audit = await h.app!.store.listAudit(TEAM, { limit: 1 });
    expect(audit[0]).toMatchObject({ action: 'pause', outcome: 'failed' });
  });

  it('Trunk rate limiting (429 every time) says so and when to retry', async () => {
    h.trunk.failNext(50, { status: 429, retryAfter: 0 }, 'getQueue');
    const { text } = await ask('status');
    expect(text).toContain('rate limiting');
  });

  it('an answer Trunk breaks (invalid JSON) is reported without a stack trace', async () => {
    h.trunk.malformedNext(1, 'invalid-json', 'getQueue');
    const { text } = await ask('status');
    expect(text).toContain('does not understand');
    expect(text).not.toMatch(/SyntaxError|at .*\.ts/);
  });

  it('a Trunk timeout says Trunk did not answer in time', async () => {
    h.trunk.setLatency({ getQueue: 4_000 });
    const { text } = await ask('status');
    expect(text).toContain('did not answer in time');
  }, 15_000);
});

describe('Slack Web API faults', () => {
  it('a 429 from chat.postMessage is waited out (Retry-After) and the status still arrives', async () => {
    h.slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const t0 = Date.now();
    await h.sendCommand('status');
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0], 10_000);
    expect(textOf(msg)).toContain('acme/web:main');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(h.slack.callsTo('chat.postMessage').map((c) => c.status)).toEqual([429, 200]);
  });

  it('a revoked bot token (invalid_auth) on posting falls back to respond in_channel', async () => {
    h.slack.failNext('chat.postMessage', { error: 'invalid_auth' });
    const { reply } = await ask('status');
    expect(reply['response_type']).toBe('in_channel');
    expect(textOf(reply)).toContain('acme/web:main');
  });

  it('an expired response_url does not crash the app; the next command is answered', async () => {
    h.slack.failNext('response_url', { status: 404, body: 'expired_url' });
    const first = await h.sendCommand('help');
    await h.slack.waitFor(() => h.slack.postsTo(first.responseUrl)[0]);
    const { text } = await ask('help');
    expect(text).toContain('status');
  });
});
