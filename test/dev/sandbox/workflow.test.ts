/**
 * The sandbox's "Release freeze" workflow over the page's HTTP API: each click runs the app's next Workflow
 * Builder step as Slack would (function_executed, signed), and the channel shows the steps completing from
 * the completions the app sent the fake Slack. The watcher polls when the test says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../dev/sandbox/index.ts';
import { USERS } from '../../../dev/sandbox/people.ts';
import { RELEASE_PR, WORKFLOW_NAME } from '../../../dev/sandbox/workflow.ts';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/observability/log.ts';
import { follow, type PageMessage, pageApi } from './page-stream.ts';

const textOf = (m: PageMessage) => `${m.text} ${JSON.stringify(m.blocks ?? [])}`;

describe('sandbox: a "Release freeze" workflow run step by step', () => {
  let sb: Sandbox;
  let base: string;
  let page: Awaited<ReturnType<typeof follow>>;
  let skew = 0;
  const tick = () => {
    skew += 5_000;
    return sb.app.events!.tick();
  };
  const post = (path: string, body: unknown) => pageApi(base)(path, body);
  const notes = () =>
    [...page.messages.values()].filter((m) => m.author?.name === 'Workflow Builder').map((m) => m.text);
  const note = (pattern: RegExp, what: string) =>
    page.until(() => notes().find((t) => pattern.test(t)), what);

  beforeAll(async () => {
    sb = await startSandbox(loadConfig({ PORT: '0', SCHEDULER_ENABLED: 'false' }), {
      logger: silentLogger(),
      activityIntervalMs: 0,
      clock: () => Date.now() + skew,
    });
    base = sb.url.replace(/\/sandbox$/, '');
    page = await follow(base);
  });
  afterAll(async () => {
    page?.close();
    await sb?.stop();
  });

  it('pauses the queue, waits for the release PR to merge, then resumes', async () => {
    await tick(); // the watcher's baseline of the default queue
    const first = await post('workflow', { as: 'operator' });
    expect(first).toMatchObject({ ok: true, happened: ['Step 1 done.'] });
    await note(/step 1 of 3, Pause a merge queue, completed: `state` is \*paused\*/, 'step 1 completed');
    expect(notes()[0]).toContain(`Workflow *${WORKFLOW_NAME}*: ${USERS.operator.name} started it`);
    expect(sb.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    // The change is announced in the channel as the command announces it, in the operator's name.
    await page.until(
      () =>
        [...page.messages.values()].find(
          (m) =>
            m.author?.kind === 'bot' &&
            m.author.name !== 'Workflow Builder' &&
            textOf(m).includes(WORKFLOW_NAME),
        ),
      'the pause announcement',
    );

    const second = await post('workflow', { as: 'operator' });
    expect(second['happened']).toEqual([
      `Step 2 waits for #${RELEASE_PR}. Click again to have Trunk merge it.`,
    ]);
    await tick();
    expect(notes().some((t) => t.includes('step 2 of 3') && t.includes('completed'))).toBe(false);
    const merge = await post('workflow', { as: 'operator' });
    expect(String((merge['happened'] as string[])[0])).toContain(`Trunk merged #${RELEASE_PR}`);
    await tick();
    await note(
      /step 2 of 3, Wait for PR #\d+ to merge or leave the queue, completed: `state` is \*merged\*/,
      'step 2',
    );

    const third = await post('workflow', { as: 'operator' });
    expect(third['happened']).toEqual(['Step 3 done.']);
    await note(/step 3 of 3, Resume a merge queue, completed: `state` is \*running\*/, 'step 3 completed');
    expect(sb.trunk.queue('acme/web', 'main')!.state).toBe('running');
    expect(sb.slack.functionCompletions()).toHaveLength(3);
  });

  it('a member who is not an operator sees the first step fail with the reason', async () => {
    const run = await post('workflow', { as: 'member' });
    expect(run['happened']).toEqual(['The Release freeze workflow has run; the next click starts it again.']);
    await post('workflow', { as: 'member' });
    await note(/step 1 of 3, Pause a merge queue, failed: You can't pause acme\/web:main/, 'the refusal');
    expect(sb.trunk.queue('acme/web', 'main')!.state).toBe('running');
  });
});
