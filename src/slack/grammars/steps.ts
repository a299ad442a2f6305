/**
 * The inputs of the app's Workflow Builder steps (function_executed `inputs`) → typed values, or a message
 * a person can act on naming the input that is wrong. The callback ids and input names are DESIGN's
 * contract (manifest.yml declares them). Pure and total: it never throws, whatever a workflow hands over.
 */
import { parseTarget, type TargetSpec } from '../../core/target.ts';
import { PRIORITIES, type PriorityName, QUEUE_INT_MAX, QUEUE_INT_MIN } from '../../trunk/types.ts';

export const STEP_IDS = [
  'pause_queue',
  'drain_queue',
  'resume_queue',
  'set_concurrency',
  'submit_pr',
  'cancel_pr',
  'wait_for_pr',
] as const;
export type StepId = (typeof STEP_IDS)[number];

/** The longest a `wait_for_pr` step may wait, in minutes (a week). */
export const MAX_TIMEOUT_MINUTES = 7 * 24 * 60;

interface Common {
  /** Undefined: the channel's default queue, then the workspace's. */
  target?: TargetSpec;
  /** The person who started the workflow (`interactivity.interactor.id`); absent for scheduled or event triggers. */
  interactor?: string;
  /** The channel the workflow names for announcements (optional `channel` input). */
  channel?: string;
}

export type StepInput = Common &
  (
    | { step: 'pause_queue' | 'drain_queue' | 'resume_queue'; reason?: string }
    | { step: 'set_concurrency'; concurrency: number }
    | { step: 'submit_pr'; pr: number; priority?: PriorityName | number }
    | { step: 'cancel_pr'; pr: number; reason?: string }
    | { step: 'wait_for_pr'; pr: number; timeoutMinutes: number }
  );

export type ParseStepResult = { ok: true; value: StepInput } | { ok: false; error: string };

const isStepId = (id: string): id is StepId => (STEP_IDS as readonly string[]).includes(id);

/** A whole number from a number input (Slack sends numbers; a workflow variable may arrive as text). */
function wholeNumber(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v)) return Number(v);
  return undefined;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function shown(v: unknown): string {
  try {
    return JSON.stringify(v)?.slice(0, 40) ?? String(v);
  } catch {
    return typeof v;
  }
}

/** Slack's type for the person who started a workflow; only Slack can produce a value of it. */
export const INTERACTIVITY_TYPE = 'slack#/types/interactivity';

/**
 * The person who started the workflow, from the `interactivity` input — only when it is what Slack makes
 * (docs.slack.dev/reference/types/interactivity-type: an `interactivity_pointer` and an `interactor` with
 * its `id` and the `secret` Slack validates; only Slack's own functions and triggers output one) and, when
 * the function's parameters as Slack sent them are given, declared as Slack's interactivity type: a value
 * under that name of any other type (a text a workflow's builder typed, an older manifest's string) could
 * name anyone, so it names no one.
 */
function interactorOf(interactivity: unknown, declared: unknown): string | undefined {
  if (declared !== undefined) {
    const params = Array.isArray(declared) ? (declared as Array<{ name?: unknown; type?: unknown }>) : [];
    const param = params.find((p) => p && typeof p === 'object' && p.name === 'interactivity');
    if (param?.type !== INTERACTIVITY_TYPE) return undefined;
  }
  if (!interactivity || typeof interactivity !== 'object') return undefined;
  const { interactor, interactivity_pointer: pointer } = interactivity as {
    interactor?: { id?: unknown; secret?: unknown };
    interactivity_pointer?: unknown;
  };
  if (typeof pointer !== 'string' || !pointer.trim()) return undefined;
  if (!interactor || typeof interactor !== 'object') return undefined;
  if (typeof interactor.secret !== 'string' || !interactor.secret) return undefined;
  const id = interactor.id;
  return typeof id === 'string' && /^[UW][A-Z0-9]{2,}$/.test(id) ? id : undefined;
}

/**
 * Parses one execution's inputs for `callbackId`; `declared` is the function's `input_parameters` as the
 * function_executed event listed them (the listener always passes them).
 */
export function parseStepInputs(callbackId: string, raw: unknown, declared?: unknown): ParseStepResult {
  if (!isStepId(callbackId)) return { ok: false, error: `This app has no workflow step \`${callbackId}\`.` };
  const inputs = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const common: Common = {};
  const targetText = text(inputs['target']);
  if (targetText) {
    const t = parseTarget(targetText);
    if (!t.ok) return { ok: false, error: `The step's \`target\` input: ${t.error}` };
    common.target = t.value;
  }
  const interactor = interactorOf(inputs['interactivity'], declared);
  if (interactor) common.interactor = interactor;
  const channel = text(inputs['channel']);
  if (channel && /^[CGD][A-Z0-9]{2,}$/.test(channel)) common.channel = channel;
  const reason = text(inputs['reason'])?.slice(0, 1000);

  const pr = () => {
    const n = wholeNumber(inputs['pr']);
    return n !== undefined && n >= 1
      ? ({ ok: true, n } as const)
      : ({
          ok: false,
          error: `The step's \`pr\` input must be a PR number such as 4812; got ${shown(inputs['pr'])}.`,
        } as const);
  };

  switch (callbackId) {
    case 'pause_queue':
    case 'drain_queue':
    case 'resume_queue':
      return { ok: true, value: { ...common, step: callbackId, ...(reason ? { reason } : {}) } };
    case 'set_concurrency': {
      const n = wholeNumber(inputs['concurrency']);
      if (n === undefined || n < QUEUE_INT_MIN || n > QUEUE_INT_MAX)
        return {
          ok: false,
          error: `The step's \`concurrency\` input must be a whole number from ${QUEUE_INT_MIN} to ${QUEUE_INT_MAX}; got ${shown(inputs['concurrency'])}.`,
        };
      return { ok: true, value: { ...common, step: callbackId, concurrency: n } };
    }
    case 'submit_pr': {
      const p = pr();
      if (!p.ok) return p;
      const priority = parsePriority(inputs['priority']);
      if (priority === 'invalid')
        return {
          ok: false,
          error: `The step's \`priority\` input is a name (${Object.keys(PRIORITIES).join(', ')}) or a number from 0 to 255; got ${shown(inputs['priority'])}.`,
        };
      return {
        ok: true,
        value: { ...common, step: callbackId, pr: p.n, ...(priority !== undefined ? { priority } : {}) },
      };
    }
    case 'cancel_pr': {
      const p = pr();
      if (!p.ok) return p;
      return { ok: true, value: { ...common, step: callbackId, pr: p.n, ...(reason ? { reason } : {}) } };
    }
    case 'wait_for_pr': {
      const p = pr();
      if (!p.ok) return p;
      const minutes = wholeNumber(inputs['timeout_minutes']);
      if (minutes === undefined || minutes < 1 || minutes > MAX_TIMEOUT_MINUTES)
        return {
          ok: false,
          error: `The step's \`timeout_minutes\` input must be a whole number of minutes from 1 to ${MAX_TIMEOUT_MINUTES} (a week); got ${shown(inputs['timeout_minutes'])}.`,
        };
      return { ok: true, value: { ...common, step: callbackId, pr: p.n, timeoutMinutes: minutes } };
    }
  }
}

function parsePriority(v: unknown): PriorityName | number | undefined | 'invalid' {
  if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) return undefined;
  const n = wholeNumber(v);
  if (n !== undefined) return n <= 255 ? n : 'invalid';
  const name = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return name in PRIORITIES ? (name as PriorityName) : 'invalid';
}
