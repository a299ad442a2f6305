/**
 * Workflow Builder steps in the fake: `function_executed` events shaped after Slack's documented example
 * (https://docs.slack.dev/reference/events/function_executed), each with its own execution token
 * (`bot_access_token`), and functions.completeSuccess / functions.completeError, which accept only the token
 * of the execution they complete (any other token is refused) and record every completion; an execution
 * whose workflow was cancelled answers `execution_not_in_running_state`, as Slack documents.
 */
import { eventEnvelope } from './signing.ts';
import { err, type Method, nextId, type SlackState, str } from './state.ts';
import type { FakeFunctionCompletion, FakeFunctionExecution, FunctionExecutionInput } from './types.ts';

export interface FunctionFake {
  methods: Record<string, Method>;
  /** Starts an execution: its token becomes valid for the team, and the Events API envelope is returned. */
  start(input: FunctionExecutionInput): FakeFunctionExecution;
  /** The workflow was cancelled (or ended) in Slack: completing the step answers `execution_not_in_running_state`. */
  cancel(executionId: string): void;
  readonly completions: FakeFunctionCompletion[];
}

/** The envelope Slack posts to the Request URL for one execution (docs' example, our ids and values). */
export function functionExecutedEnvelope(input: {
  teamId: string;
  enterpriseId?: string;
  enterpriseInstall?: boolean;
  callbackId: string;
  inputs: Record<string, unknown>;
  executionId: string;
  workflowExecutionId: string;
  token: string;
  at: number;
  appId?: string;
}): Record<string, unknown> {
  const appId = input.appId ?? 'A0FAKEAPP';
  const seconds = Math.floor(input.at / 1000);
  const event = {
    type: 'function_executed',
    function: {
      id: `Fn${input.callbackId
        .replace(/[^a-z]/gi, '')
        .slice(0, 8)
        .toUpperCase()}01`,
      callback_id: input.callbackId,
      title: input.callbackId.replaceAll('_', ' '),
      description: `Runs ${input.callbackId}`,
      type: 'app',
      // Slack lists the declared parameters (manifest.yml); the fake names those it was handed.
      input_parameters: Object.keys(input.inputs).map((name) => ({
        type: name === 'interactivity' ? 'slack#/types/interactivity' : 'string',
        name,
        description: name,
        title: name,
        is_required: true,
      })),
      output_parameters: [
        { type: 'string', name: 'state', description: 'state', title: 'State', is_required: true },
      ],
      app_id: appId,
      date_created: seconds - 86_400,
      date_updated: seconds - 3_600,
      date_deleted: 0,
    },
    inputs: input.inputs,
    function_execution_id: input.executionId,
    workflow_execution_id: input.workflowExecutionId,
    event_ts: (input.at / 1000).toFixed(6),
    bot_access_token: input.token,
  };
  return {
    ...eventEnvelope({
      teamId: input.teamId,
      ...(input.enterpriseId ? { enterpriseId: input.enterpriseId } : {}),
      ...(input.enterpriseInstall ? { enterpriseInstall: true } : {}),
      apiAppId: appId,
      event,
    }),
    // The documented example's token; one event id per execution, so a retry of it is recognised.
    token: 'XXYYZZ',
    event_id: `Ev${input.executionId.slice(2)}`,
    event_time: seconds,
  };
}

/** The `interactivity` input Slack hands a step when a person started the workflow. */
export function interactivityOf(userId: string): Record<string, unknown> {
  return {
    interactor: { id: userId, secret: `secret-${userId.toLowerCase()}` },
    interactivity_pointer: `${Date.now()}.${Math.floor(Math.random() * 1e12)}.fake`,
  };
}

export function createFunctionFake(s: SlackState): FunctionFake {
  /** execution id → its token, and token → execution id. */
  const tokenOf = new Map<string, string>();
  const executionOf = new Map<string, string>();
  const completions: FakeFunctionCompletion[] = [];
  const cancelled = new Set<string>();

  const complete =
    (kind: 'success' | 'error'): Method =>
    (args, token) => {
      const id = str(args['function_execution_id']);
      if (!id || !tokenOf.has(id)) return err('function_execution_not_found');
      // Only the execution's own token completes it: a bot token or another execution's is refused.
      if (!token || executionOf.get(token) !== id) return err('not_allowed_token_type');
      if (cancelled.has(id)) return err('execution_not_in_running_state');
      if (kind === 'error' && !str(args['error'])) return err('invalid_arguments');
      const c: FakeFunctionCompletion = { executionId: id, kind, token, at: s.now() };
      if (kind === 'success') {
        const outputs = typeof args['outputs'] === 'string' ? JSON.parse(args['outputs']) : args['outputs'];
        c.outputs = (outputs ?? {}) as Record<string, unknown>;
      } else c.error = String(args['error']);
      completions.push(c);
      return { body: { ok: true } };
    };

  return {
    completions,
    methods: {
      'functions.completeSuccess': complete('success'),
      'functions.completeError': complete('error'),
    },
    cancel(executionId) {
      cancelled.add(executionId);
    },
    start(input) {
      const teamId = input.teamId ?? s.defaultTeamId;
      const executionId = input.executionId ?? nextId(s, 'Fx');
      const token = `xwfp-${teamId}-${executionId}-${(++s.seq).toString(36)}`;
      tokenOf.set(executionId, token);
      executionOf.set(token, executionId);
      // The execution token works like the bot's for the rest of the Web API (chat.postMessage…).
      s.tokens.set(token, { teamId, userId: 'U0BOT', botId: 'B0BOT', teamName: 'Default' });
      const envelope = functionExecutedEnvelope({
        teamId,
        ...(input.enterpriseId ? { enterpriseId: input.enterpriseId } : {}),
        ...(input.enterpriseInstall ? { enterpriseInstall: true } : {}),
        callbackId: input.callbackId,
        inputs: input.inputs,
        executionId,
        workflowExecutionId: nextId(s, 'Wx'),
        token,
        at: s.now(),
      });
      return { executionId, token, envelope };
    },
  };
}
