/**
 * A Workflow Builder step's execution token (function_executed `bot_access_token`, `xwfp-…`) and its
 * interactor's secret never reach a log at LOG_LEVEL=trace. Over Socket Mode, @slack/socket-mode logs every
 * envelope it receives as text at debug level: the token and the secret are in it.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interactivityOf } from '../../../dev/fakes/slack/functions.ts';
import { createLogger } from '../../../src/observability/log.ts';
import { type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';

let h: Harness;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  h = await startHarness({
    env: { SLACK_APP_TOKEN: 'xapp-1-A0FAKEAPP-steps', SLACK_SIGNING_SECRET: undefined },
    app: { logger: createLogger('trace', sink) },
  });
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  await h.slack.socketMode.connected();
});
afterAll(async () => h?.close());

describe('a workflow step at LOG_LEVEL=trace (Socket Mode)', () => {
  it('completes, and no log line holds its execution token or the interactor secret', async () => {
    const interactivity = interactivityOf(USERS.admin);
    const run = h.slack.startFunction({
      callbackId: 'pause_queue',
      inputs: { target: 'acme/web:main', interactivity },
    });
    const ack = await h.slack.socketMode.send('events_api', run.envelope);
    expect(ack.ackMs).toBeLessThan(3_000);
    const done = await h.slack.waitFor(() => h.slack.functionCompletions(run.executionId)[0]);
    await h.idle();
    expect(done).toMatchObject({ kind: 'success', outputs: { state: 'paused' } });

    const written = lines.join('');
    // The envelope was logged (the check below looks at the text that held the secrets).
    expect(written).toContain(run.executionId);
    expect(written).not.toContain(run.token);
    expect(written).not.toContain(run.token.slice(5));
    const secret = (interactivity['interactor'] as { secret: string }).secret;
    expect(written).not.toContain(secret);
  });
});
