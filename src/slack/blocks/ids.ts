/**
 * Action, block and callback ids the app's listeners match on, and the small JSON carried in button values.
 * Button values come back from Slack untrusted: parseButtonValue checks their shape and target, and the
 * listener still checks the target and the clicking user's permission on every click.
 */
import { formatQueueRef, parseTarget, type QueueRef } from '../../core/target.ts';

export const ACTIONS = {
  pause: 'mq_pause',
  drain: 'mq_drain',
  resume: 'mq_resume',
  concurrencyDec: 'mq_concurrency_dec',
  concurrencyInc: 'mq_concurrency_inc',
  refresh: 'mq_refresh',
  openTrunk: 'mq_open_trunk',
  settings: 'mq_settings_open',
  prRestart: 'mq_pr_restart',
  prResubmit: 'mq_pr_resubmit',
  prCancel: 'mq_pr_cancel',
  /** Connect Trunk from the Home tab: opens the `/mergequeue connect` modal. */
  homeConnect: 'mq_home_connect',
} as const;
export type ActionId = (typeof ACTIONS)[keyof typeof ACTIONS];

export const CALLBACKS = {
  settings: 'mq_settings',
  connect: 'mq_connect',
  /** Pause or Drain with an optional reason (blocks/reason-modal.ts). */
  reason: 'mq_reason',
  prCancel: 'mq_pr_cancel_confirm',
} as const;

/** What a status button carries: the queue and what the message showed when it was rendered. */
export interface ButtonValue {
  ref: QueueRef;
  /** Queue state shown. */
  state: string;
  /** Concurrency shown. */
  concurrency: number;
  /** When the message was rendered (epoch ms): one rendering's buttons share it, so a double click is one. */
  renderedAt: number;
}

export function encodeButtonValue(v: ButtonValue): string {
  return JSON.stringify({
    t: formatQueueRef(v.ref),
    s: v.state.slice(0, 40),
    c: v.concurrency,
    v: v.renderedAt,
  });
}

/** Returns undefined for anything that is not a value this app produced. Never throws. */
export function parseButtonValue(raw: unknown): ButtonValue | undefined {
  const base = parseShownValue(raw);
  if (!base) return undefined;
  const { c } = base.data;
  if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > 4294967295) return undefined;
  return { ref: base.ref, state: base.state, concurrency: c, renderedAt: base.renderedAt };
}

/**
 * What every button value of this app carries, checked: a queue (`t`), the state shown (`s`) and when it
 * was rendered (`v`); `data` holds the rest for the caller to check. Undefined for anything else.
 */
export function parseShownValue(
  raw: unknown,
): { ref: QueueRef; state: string; renderedAt: number; data: Record<string, unknown> } | undefined {
  if (typeof raw !== 'string' || raw.length > 2000) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { t, s, v } = data as Record<string, unknown>;
  if (typeof t !== 'string' || typeof s !== 'string' || s.length > 40) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return undefined;
  const parsed = parseTarget(t);
  if (!parsed.ok || !parsed.value.repo || parsed.value.branch === undefined) return undefined;
  return {
    ref: { repo: parsed.value.repo, branch: parsed.value.branch },
    state: s,
    renderedAt: v,
    data: data as Record<string, unknown>,
  };
}

/** The key under which repeated clicks of one rendered button count once (see changeState's clickKey). */
export function clickKey(actionId: string, v: ButtonValue): string {
  return `${actionId}:${formatQueueRef(v.ref)}:${v.renderedAt}`;
}
