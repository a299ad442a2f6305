/**
 * The `/mergequeue` slash command: ack at once (nothing awaited before it), then parse and hand the
 * command to its handler; every answer goes through respond() or a channel post.
 */
import type { App } from '@slack/bolt';
import { commandActor } from '../../actor.ts';
import { renderError, renderUsageError } from '../../blocks/errors.ts';
import { parseCommand } from '../../commands/grammar.ts';
import type { SlackDeps } from '../../deps.ts';
import { afterAck, sendReply } from '../../interaction.ts';
import { cancel } from './cancel.ts';
import { concurrency } from './concurrency.ts';
import { configure } from './config.ts';
import { connect } from './connect.ts';
import { dashboard } from './dashboard.ts';
import { digest } from './digest/index.ts';
import { eta } from './eta.ts';
import { freeze } from './freeze.ts';
import { help } from './help.ts';
import { me } from './me.ts';
import { pr } from './pr.ts';
import { prs } from './prs.ts';
import { restart } from './restart.ts';
import { run } from './run.ts';
import { settings } from './settings.ts';
import { changeQueueState } from './state.ts';
import { stats } from './stats.ts';
import { status } from './status.ts';
import { submit } from './submit.ts';
import { testFeeds } from './test-feeds.ts';
import { tests } from './tests.ts';
import type { CommandRequest, Outcome } from './types.ts';
import { unwatch, watch } from './watch.ts';
import { why } from './why.ts';

/** /mergequeue, and suffixed variants such as /mergequeue-dev for a second app on the same code. */
export const COMMAND = /^\/mergequeue(?:-[a-z0-9_-]+)?$/;

export function register(app: App, deps: SlackDeps): void {
  app.command(COMMAND, async ({ ack, command, client, respond, context }) => {
    await ack();
    await afterAck();
    const parsed = parseCommand(command.text);
    const name = parsed.ok ? parsed.command.name : 'invalid';
    // Who is asking, once for the whole command: every service asks it, nothing reads Slack until one does.
    const actor = commandActor(deps, client, context, command);
    const req: CommandRequest = {
      deps,
      client,
      respond,
      actor,
      workspaceId: actor.workspace.id,
      channelId: command.channel_id,
      userId: command.user_id,
      triggerId: command.trigger_id,
    };
    let outcome: Outcome;
    try {
      if (!parsed.ok) {
        await sendReply(deps, respond, renderUsageError(parsed.error, parsed.usage));
        outcome = 'invalid';
      } else {
        const c = parsed.command;
        switch (c.name) {
          case 'help':
            outcome = await help(req, c.topic);
            break;
          case 'status':
            outcome = await status(req, c.target);
            break;
          case 'pause':
          case 'drain':
          case 'resume':
            outcome = await changeQueueState(req, c.name, c.target, c.reason);
            break;
          case 'concurrency':
            outcome = await concurrency(req, c.value, c.target);
            break;
          case 'settings':
            outcome = await settings(req, c.target);
            break;
          case 'pr':
            outcome = await pr(req, c.number, c.target);
            break;
          case 'why':
            outcome = await why(req, c.number, c.target);
            break;
          case 'eta':
            outcome = await eta(req, c.number, c.target);
            break;
          case 'run':
            outcome = await run(req, c.testRunId, c.target);
            break;
          case 'flaky':
          case 'quarantined':
            outcome = await tests(req, c.name, c.repo);
            break;
          case 'connect':
            outcome = await connect(req);
            break;
          case 'config':
            outcome = await configure(req, c.config);
            break;
          case 'digest':
            outcome = await digest(req, c.args);
            break;
          case 'submit':
            outcome = await submit(req, c);
            break;
          case 'cancel':
            outcome = await cancel(req, c);
            break;
          case 'restart':
            outcome = await restart(req, c);
            break;
          case 'prs':
            outcome = await prs(req, c);
            break;
          case 'stats':
            outcome = await stats(req, c.target, c.days);
            break;
          case 'freeze':
            outcome = await freeze(req, c.text);
            break;
          case 'watch':
            outcome = await watch(req, c.watch);
            break;
          case 'unwatch':
            outcome = await unwatch(req, c.target);
            break;
          case 'me':
            outcome = await me(req, c.me);
            break;
          case 'tests':
            outcome = await testFeeds(req, c.tests);
            break;
          case 'dashboard':
            outcome = await dashboard(req, c.off, c.target);
            break;
        }
      }
    } catch (err) {
      // A bug or an unreachable store: the person still gets an answer, the log gets the details.
      deps.logger.error({ err, subcommand: name }, 'command failed');
      await sendReply(deps, respond, renderError(err));
      outcome = 'failed';
    }
    deps.metrics.commands.inc({ name, outcome });
  });
}
