/**
 * What every Workflow Builder step's listener shares (function_executed, acknowledged by Bolt at once):
 * parse the inputs, build the Actor of the person who started the workflow (`interactivity.interactor`,
 * which a workflow's builder cannot forge: only a value of Slack's interactivity type, with its pointer and
 * secret, names a person; never the event's own fields), refuse a `channel` input that person cannot see
 * (nothing is announced there, nor is its default queue used), locate the queue, run the step, and end it
 * with `complete` or `fail`. Whatever happens (bad input, a refusal, Trunk failing, an
 * exception) the step is completed or failed: a workflow is never left hanging.
 */
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { Actor } from '../../../services/actor.ts';
import type { QueueAt } from '../../../services/queue.ts';
import { actorIn, actorWorkspace } from '../../actor.ts';
import { renderError, renderNoTarget, renderNotConnected } from '../../blocks/errors.ts';
import { stepBadInput, stepChannelUnseen, stepErrorText, stepNeedsPerson } from '../../blocks/steps.ts';
import type { SlackDeps } from '../../deps.ts';
import { parseStepInputs, type StepId, type StepInput } from '../../grammars/steps.ts';

export type StepArgs = SlackEventMiddlewareArgs<'function_executed'> & AllMiddlewareArgs;

/** How a step ended; `waiting` leaves it open for later (wait_for_pr): something else completes it. */
export type StepEnd =
  | { end: 'complete'; state: string }
  | { end: 'fail'; error: string }
  | { end: 'waiting' };

/** One step's execution, parsed and located. */
export interface StepRun<S extends StepInput = StepInput> {
  deps: SlackDeps;
  input: S;
  /** Acts as the interactor; its user id is '' when the workflow had none (only reads then). */
  actor: Actor;
  at: QueueAt;
  executionId: string;
  /** The function execution token Slack gave this step. */
  token: string;
  workspaceId: string;
}

export interface StepDefinition<S extends StepInput> {
  id: S['step'];
  /** What the step would do, in words, when refused for want of a person ("pause the queue"). */
  needsPerson?: string;
  run(r: StepRun<S>): Promise<StepEnd>;
}

/** Registers one step's listener. */
export function registerStep<S extends StepInput>(
  app: { function(id: string, handler: (args: StepArgs) => Promise<void>): unknown },
  deps: SlackDeps,
  def: StepDefinition<S>,
): void {
  app.function(def.id, (args) => runStep(deps, def, args));
}

async function runStep<S extends StepInput>(deps: SlackDeps, def: StepDefinition<S>, args: StepArgs) {
  const { event, complete, fail } = args;
  const log = deps.logger.child({ step: def.id, execution: event.function_execution_id });
  let end: StepEnd;
  try {
    end = await decide(deps, def, args);
  } catch (err) {
    log.error({ err }, 'a workflow step failed');
    end = { end: 'fail', error: stepErrorText(renderError(err)) };
  }
  try {
    if (end.end === 'complete') await complete({ outputs: { state: end.state } });
    else if (end.end === 'fail') await fail({ error: end.error });
  } catch (err) {
    // Slack did not take the answer: the step times out on Slack's side; the person sees it failed there.
    log.error({ err, end: end.end }, 'could not complete a workflow step');
  }
}

async function decide<S extends StepInput>(
  deps: SlackDeps,
  def: StepDefinition<S>,
  { event, body, context, client }: StepArgs,
): Promise<StepEnd> {
  const parsed = parseStepInputs(
    def.id as StepId,
    event.inputs,
    // What Slack says each input is (manifest.yml): the interactor counts only under Slack's own type.
    event.function?.input_parameters ?? [],
  );
  if (!parsed.ok) return { end: 'fail', error: stepBadInput(parsed.error) };
  const input = parsed.value as S;
  if (def.needsPerson && !input.interactor) return { end: 'fail', error: stepNeedsPerson(def.needsPerson) };
  const envelope = body as { team_id?: string; enterprise_id?: string };
  // The team, or the enterprise of an org-wide install (which custom steps need on Enterprise Grid).
  const workspace = actorWorkspace(deps, {
    context,
    teamId: envelope.team_id,
    enterpriseId: envelope.enterprise_id,
    userId: input.interactor ?? '',
  });
  // The Actor's directory asks Slack with the bot token (users.info); the execution token only completes.
  const botClient = await deps.workspaces.slackFor(workspace.id).catch(() => client);
  const actor = actorIn(deps, botClient, workspace, input.interactor ?? '');
  // Issue 26: a step announces only where its person can see, like a command typed in that channel would.
  if (input.channel && input.interactor && !(await actor.canSee(input.channel)))
    return { end: 'fail', error: stepChannelUnseen(input.channel) };
  const located = await deps.services.queue.locate(actor, input.channel, input.target);
  if (located.answer === 'no_target') return { end: 'fail', error: stepErrorText(renderNoTarget()) };
  if (located.answer === 'not_connected') return { end: 'fail', error: stepErrorText(renderNotConnected()) };
  return def.run({
    deps,
    input,
    actor,
    at: { ref: located.ref, trunk: located.trunk },
    executionId: event.function_execution_id,
    token: event.bot_access_token,
    workspaceId: actor.workspace.id,
  });
}
