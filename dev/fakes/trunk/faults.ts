/**
 * Faults the fake can inject: latency, scripted failures (next N requests), random faults of every kind
 * for soak tests (seeded, so a run can be replayed), malformed or contract-breaking bodies, and the quirks
 * of older deployments (UPPERCASE enums, extra fields, null requiredStatuses).
 */
import type { TrunkOperation } from '../../../src/trunk/api.ts';
import { createRng, type Rng } from './rng.ts';

export type FakeOperation = TrunkOperation;

/** A scripted failure: status (5xx, 429, or anything), optional Retry-After (seconds or HTTP date) and body. */
export interface FailSpec {
  status: number;
  retryAfter?: number | string;
  body?: string;
}

/**
 * How the answer of a request that was applied is lost: the socket destroyed ('drop'), no answer ever
 * ('hang', until the client gives up), or a failure status (a gateway's 502/504 after the service did the
 * work). This is "Trunk accepted the submit but the response timed out".
 */
export type LostAnswer = 'drop' | 'hang' | FailSpec;

/** Kinds of random fault for `setFaultRate`. */
export type FaultKind = '5xx' | '429' | 'drop' | 'malformed' | 'latency';
export const FAULT_KINDS: readonly FaultKind[] = ['5xx', '429', 'drop', 'malformed', 'latency'];

/**
 * Bodies that break the client's parser or the contract, sent with status 200:
 * invalid-json (not JSON), truncated (JSON cut short), empty, html (a proxy's error page),
 * missing-field (a required field removed), wrong-type (a required field of the wrong type),
 * or any raw text.
 */
export type MalformedKind =
  | 'invalid-json'
  | 'truncated'
  | 'empty'
  | 'html'
  | 'missing-field'
  | 'wrong-type'
  | { raw: string; contentType?: string };
export const MALFORMED_KINDS = [
  'invalid-json',
  'truncated',
  'empty',
  'html',
  'missing-field',
  'wrong-type',
] as const;

export interface Quirks {
  /** Add fields the contract does not list, at the top level and in every nested object. */
  extraFields?: boolean;
  /** Answer enums in UPPERCASE (RUNNING, PAUSED, SQUASH…), like older deployments. */
  uppercaseEnums?: boolean;
  /** Send `requiredStatuses: null` instead of an empty list. */
  nullRequiredStatuses?: boolean;
  /** Flaky-test lists answer the current page's token as next_page_token, so a naive client loops forever. */
  loopingPageTokens?: boolean;
}

export interface FaultRateOptions {
  /** Seed of the RNG deciding which requests fail and how; default 1. */
  seed?: number;
  /** Extra delay of a latency spike, ms; default 1500. */
  spikeMs?: number;
  /** Retry-After seconds on the 429s that carry one (half of them); default 1. */
  retryAfterSeconds?: number;
  /** Only these operations get random faults; default all. */
  operations?: FakeOperation[];
}

/** What to do with one request, decided when it arrives. */
export interface FaultPlan {
  delayMs: number;
  fail?: FailSpec;
  drop?: boolean;
  malformed?: MalformedKind;
  /** Apply the request, then lose its answer this way. */
  loseAnswer?: LostAnswer;
  /** Name of the injected fault, recorded with the request. */
  label?: string;
}

interface Scripted<T> {
  remaining: number;
  value: T;
  operation?: FakeOperation;
}

function take<T>(queue: Scripted<T>[], op: FakeOperation | undefined): T | undefined {
  const i = queue.findIndex((e) => e.operation === undefined || e.operation === op);
  if (i === -1) return undefined;
  const entry = queue[i] as Scripted<T>;
  entry.remaining -= 1;
  if (entry.remaining <= 0) queue.splice(i, 1);
  return entry.value;
}

export class Faults {
  private latencyAll = 0;
  private latencyPer: Partial<Record<FakeOperation, number>> = {};
  private readonly failures: Scripted<FailSpec | 'drop'>[] = [];
  private readonly malformed: Scripted<MalformedKind>[] = [];
  private readonly lostAnswers: Scripted<LostAnswer>[] = [];
  private rate = 0;
  private kinds: readonly FaultKind[] = FAULT_KINDS;
  private rng: Rng = createRng(1);
  private rateOpts: Required<Omit<FaultRateOptions, 'seed' | 'operations'>> & {
    operations?: FakeOperation[];
  } = {
    spikeMs: 1500,
    retryAfterSeconds: 1,
  };
  quirks: Quirks = {};

  setLatency(ms: number | Partial<Record<FakeOperation, number>>): void {
    if (typeof ms === 'number') {
      this.latencyAll = ms;
      if (ms === 0) this.latencyPer = {};
    } else {
      this.latencyPer = { ...this.latencyPer, ...ms };
    }
  }

  failNext(n: number, spec: FailSpec | 'drop', operation?: FakeOperation): void {
    if (n > 0) this.failures.push({ remaining: n, value: spec, operation });
  }

  loseAnswerNext(n: number, how: LostAnswer, operation?: FakeOperation): void {
    if (n > 0) this.lostAnswers.push({ remaining: n, value: how, operation });
  }

  malformedNext(n: number, kind: MalformedKind, operation?: FakeOperation): void {
    if (n > 0) this.malformed.push({ remaining: n, value: kind, operation });
  }

  setFaultRate(rate: number, kinds: readonly FaultKind[] = FAULT_KINDS, opts: FaultRateOptions = {}): void {
    if (!(rate >= 0 && rate <= 1)) throw new Error('setFaultRate: rate must be between 0 and 1');
    if (kinds.length === 0) throw new Error('setFaultRate: give at least one fault kind');
    this.rate = rate;
    this.kinds = [...kinds];
    this.rng = createRng(opts.seed ?? 1);
    this.rateOpts = {
      spikeMs: opts.spikeMs ?? 1500,
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      operations: opts.operations,
    };
  }

  reset(): void {
    this.latencyAll = 0;
    this.latencyPer = {};
    this.failures.length = 0;
    this.malformed.length = 0;
    this.lostAnswers.length = 0;
    this.rate = 0;
    this.quirks = {};
  }

  /** Decides the fate of a request to `op` (undefined for unknown paths) when it arrives. */
  plan(op: FakeOperation | undefined): FaultPlan {
    const plan: FaultPlan = { delayMs: (op && this.latencyPer[op]) ?? this.latencyAll };
    const scripted = take(this.failures, op);
    if (scripted === 'drop') return { ...plan, drop: true, label: 'drop' };
    if (scripted) return { ...plan, fail: scripted, label: `status ${scripted.status}` };
    const lost = take(this.lostAnswers, op);
    if (lost)
      return {
        ...plan,
        loseAnswer: lost,
        label: `applied, answer lost (${typeof lost === 'string' ? lost : `status ${lost.status}`})`,
      };
    const ops = this.rateOpts.operations;
    if (this.rate > 0 && (!ops || (op !== undefined && ops.includes(op))) && this.rng() < this.rate) {
      const fault = this.randomFault();
      // A latency spike comes on top of the configured latency.
      return { ...plan, ...fault, delayMs: plan.delayMs + (fault.delayMs ?? 0) };
    }
    return plan;
  }

  /** A scripted malformed body for a successful response to `op`, if any is pending. */
  takeMalformed(op: FakeOperation): MalformedKind | undefined {
    return take(this.malformed, op);
  }

  private randomFault(): Omit<FaultPlan, 'delayMs'> & { delayMs?: number } {
    const kind = this.kinds[Math.floor(this.rng() * this.kinds.length)] as FaultKind;
    switch (kind) {
      case '5xx': {
        const status = [500, 502, 503, 504][Math.floor(this.rng() * 4)] as number;
        return { fail: { status }, label: `random ${status}` };
      }
      case '429': {
        const withHeader = this.rng() < 0.5;
        return withHeader
          ? { fail: { status: 429, retryAfter: this.rateOpts.retryAfterSeconds }, label: 'random 429' }
          : { fail: { status: 429 }, label: 'random 429 without Retry-After' };
      }
      case 'drop':
        return { drop: true, label: 'random drop' };
      case 'malformed': {
        const m = MALFORMED_KINDS[Math.floor(this.rng() * MALFORMED_KINDS.length)] as MalformedKind;
        return { malformed: m, label: `random malformed ${m as string}` };
      }
      case 'latency':
        return { delayMs: this.rateOpts.spikeMs, label: 'random latency spike' };
    }
  }
}

const ENUM_KEYS = new Set([
  'state',
  'mode',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
  'gitHubMergeability',
  'requiredStatusesSource',
]);

/** Applies quirks to a response object (already a private copy). */
export function applyQuirks(value: unknown, quirks: Quirks, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => applyQuirks(v, quirks, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(obj)) {
    if (quirks.uppercaseEnums && typeof v === 'string' && (ENUM_KEYS.has(key) || key === 'status'))
      obj[key] = v.toUpperCase();
    else if (quirks.uppercaseEnums && key === 'status' && typeof v === 'object' && v !== null) {
      const s = v as Record<string, unknown>;
      if (typeof s['value'] === 'string') s['value'] = s['value'].toUpperCase();
      applyQuirks(v, { ...quirks, uppercaseEnums: false }, depth + 1);
    } else obj[key] = applyQuirks(v, quirks, depth + 1);
  }
  if (
    quirks.nullRequiredStatuses &&
    Array.isArray(obj['requiredStatuses']) &&
    obj['requiredStatuses'].length === 0
  )
    obj['requiredStatuses'] = null;
  if (quirks.extraFields) {
    if (depth === 0) {
      obj['apiRevision'] = '2025-11-01';
      obj['_links'] = { self: { href: '/v1/self' }, docs: { href: 'https://docs.trunk.io' } };
    } else {
      obj['internalId'] = `int_${depth}`;
    }
  }
  return obj;
}

/** Required fields removed or retyped by `missing-field` / `wrong-type`, per operation. */
const BREAK_FIELD: Record<FakeOperation, string | undefined> = {
  // The PR writes answer `{}`: there is nothing to remove.
  submitPullRequest: undefined,
  cancelPullRequest: undefined,
  restartTestsOnPullRequest: undefined,
  listPullRequests: 'pullRequests',
  getQueue: 'concurrency',
  updateQueue: 'state',
  getSubmittedPullRequest: 'prNumber',
  getMergeQueueTestingDetails: 'testBranch',
  listFailingTests: 'page',
  listQuarantinedTests: 'quarantined_tests',
};

/** Renders a successful response body, broken in the way `kind` says. */
export function malformedBody(
  op: FakeOperation,
  body: Record<string, unknown>,
  kind: MalformedKind,
): { text: string; contentType: string } {
  const json = 'application/json';
  if (typeof kind === 'object') return { text: kind.raw, contentType: kind.contentType ?? json };
  switch (kind) {
    case 'invalid-json':
      return { text: `{"ok": true, ${JSON.stringify(body).slice(1, 40)} undefined,}`, contentType: json };
    case 'truncated': {
      const full = JSON.stringify(body);
      return { text: full.slice(0, Math.max(1, Math.floor(full.length / 2))), contentType: json };
    }
    case 'empty':
      return { text: '', contentType: json };
    case 'html':
      return {
        text: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>',
        contentType: 'text/html',
      };
    case 'missing-field': {
      const copy = { ...body };
      const field = BREAK_FIELD[op];
      if (field !== undefined) delete copy[field];
      return { text: JSON.stringify(copy), contentType: json };
    }
    case 'wrong-type': {
      const field = BREAK_FIELD[op] ?? 'ok';
      const current = body[field];
      const wrong =
        typeof current === 'string' ? 42 : typeof current === 'number' ? 'forty-two' : 'not-an-object';
      return { text: JSON.stringify({ ...body, [field]: wrong }), contentType: json };
    }
  }
}
