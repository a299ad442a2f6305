/**
 * What every button click shares: ack at once, read the click (click.ts) with the request's context, run
 * the handler after the ack, answer any failure in words, count the outcome. A click on the Home tab acts
 * the same way; what it answers, and the redraw, become a re-published Home.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { afterAck } from '../../after-ack.ts';
import { renderError } from '../../blocks/errors.ts';
import { actorOf, type ListenerArgs, type RequestContext } from '../../context.ts';
import type { SlackDeps } from '../../deps.ts';
import { homeSession, isHomeClick } from '../../home.ts';
import { createReply } from '../../reply.ts';
import { type Click, type ClickArgs, readClick } from './click.ts';

export type ButtonArgs = ListenerArgs<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;

/** The listener of one button, as Bolt calls it: `read` checks the click, `handle` acts on it. */
export function buttonListener<C>(
  actionId: string,
  read: (deps: SlackDeps, args: ClickArgs) => Promise<C | undefined>,
  handle: (c: C, triggerId: string) => Promise<string>,
): (args: ButtonArgs) => Promise<void> {
  return async ({ ack, body, action, client, respond, context }) => {
    await ack();
    await afterAck();
    const deps = context.slack;
    const home = isHomeClick(body)
      ? homeSession(deps, client, actorOf(context).workspace.id, body.user.id)
      : undefined;
    const answer = home?.respond ?? respond;
    const reply = home ? createReply(deps, client, answer) : context.reply;
    // PR buttons (pr-buttons.ts) still count their own outcome words; queue buttons return an Outcome.
    let outcome: string = 'failed';
    try {
      const c = await read(deps, { body, action, client, respond: answer, context, reply });
      outcome = c ? await handle(c, body.trigger_id) : 'invalid';
    } catch (err) {
      deps.logger.error({ err, action: actionId }, 'button failed');
      await reply.respond(renderError(err), { replace_original: false });
    }
    try {
      await home?.finish();
    } catch (err) {
      deps.logger.error({ err, action: actionId }, 'could not publish the Home after a click');
    }
    deps.metrics.interactions.inc({ name: actionId, outcome });
  };
}

/** Registers a button whose click `read` checks (and answers when it cannot be acted on). */
export function registerButtonOf<C>(
  app: App,
  actionId: string,
  read: (deps: SlackDeps, args: ClickArgs) => Promise<C | undefined>,
  handle: (c: C, triggerId: string) => Promise<string>,
): void {
  app.action<BlockAction<ButtonAction>, RequestContext>(actionId, buttonListener(actionId, read, handle));
}

/** Registers a status-message button (its value is a ButtonValue: blocks/ids.ts). */
export function registerButton(app: App, actionId: string, handle: (c: Click) => Promise<string>): void {
  registerButtonOf(app, actionId, readClick, handle);
}
