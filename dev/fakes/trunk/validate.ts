/**
 * Request validation as the real service does it: the first problem found is reported in plain text
 * (400), naming the field and what was expected, so clients' bugs surface in tests.
 */
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  PRIORITIES,
  PULL_REQUEST_STATES,
  type PullRequestState,
  QUEUE_BOOL_SETTINGS,
  QUEUE_INT_MAX,
  QUEUE_INT_MIN,
  QUEUE_INT_SETTINGS,
  QUEUE_MODES,
  QUEUE_STATES_SETTABLE,
  type Repo,
} from '../../../src/trunk/types.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

type Obj = Record<string, unknown>;

class Invalid extends Error {}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function describe(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function need(body: Obj, field: string, path = field): unknown {
  if (!(field in body) || body[field] === undefined) throw new Invalid(`missing required field "${path}"`);
  return body[field];
}

function str(v: unknown, path: string, nonEmpty = true): string {
  if (typeof v !== 'string') throw new Invalid(`"${path}" must be a string, got ${typeName(v)}`);
  if (nonEmpty && v.trim() === '') throw new Invalid(`"${path}" must not be empty`);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new Invalid(`"${path}" must be a boolean, got ${typeName(v)}`);
  return v;
}

function int(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new Invalid(`"${path}" must be an integer between ${min} and ${max}, got ${describe(v)}`);
  if (v < min || v > max) throw new Invalid(`"${path}" must be between ${min} and ${max}, got ${v}`);
  return v;
}

function oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[]): T {
  if (typeof v !== 'string') throw new Invalid(`"${path}" must be a string, got ${typeName(v)}`);
  if (!(allowed as readonly string[]).includes(v))
    throw new Invalid(`"${path}" must be one of ${allowed.join(', ')}; got ${describe(v)}`);
  return v as T;
}

function noUnknown(body: Obj, allowed: readonly string[], where = 'request body'): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw new Invalid(`unknown field "${key}" in ${where}`);
  }
}

function repo(body: Obj): Repo {
  const r = need(body, 'repo');
  if (!isObj(r)) throw new Invalid(`"repo" must be an object with host, owner and name, got ${typeName(r)}`);
  noUnknown(r, ['host', 'owner', 'name'], '"repo"');
  return {
    host: str(need(r, 'host', 'repo.host'), 'repo.host'),
    owner: str(need(r, 'owner', 'repo.owner'), 'repo.owner'),
    name: str(need(r, 'name', 'repo.name'), 'repo.name'),
  };
}

function run<T>(body: unknown, fn: (b: Obj) => T): Checked<T> {
  if (!isObj(body)) return { ok: false, error: `request body must be a JSON object, got ${typeName(body)}` };
  try {
    return { ok: true, value: fn(body) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: err.message };
    throw err;
  }
}

export interface QueueAddressBody {
  repo: Repo;
  targetBranch: string;
}

export function checkGetQueue(body: unknown): Checked<QueueAddressBody> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch']);
    return { repo: repo(b), targetBranch: str(need(b, 'targetBranch'), 'targetBranch') };
  });
}

const UPDATE_FIELDS = [
  'repo',
  'targetBranch',
  'state',
  'mode',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
  'requiredStatuses',
  'deleteRequiredStatuses',
  ...QUEUE_INT_SETTINGS,
  ...QUEUE_BOOL_SETTINGS,
];

export function checkUpdateQueue(body: unknown): Checked<QueueAddressBody & Obj> {
  return run(body, (b) => {
    noUnknown(b, UPDATE_FIELDS);
    const out: QueueAddressBody & Obj = {
      repo: repo(b),
      targetBranch: str(need(b, 'targetBranch'), 'targetBranch'),
    };
    const enums: Array<[string, readonly string[]]> = [
      ['state', QUEUE_STATES_SETTABLE],
      ['mode', QUEUE_MODES],
      ['directMergeMode', DIRECT_MERGE_MODES],
      ['optimizationMode', OPTIMIZATION_MODES],
      ['mergeMethod', MERGE_METHODS],
    ];
    for (const [field, allowed] of enums)
      if (b[field] !== undefined) out[field] = oneOf(b[field], field, allowed);
    for (const field of QUEUE_INT_SETTINGS)
      if (b[field] !== undefined) out[field] = int(b[field], field, QUEUE_INT_MIN, QUEUE_INT_MAX);
    for (const field of QUEUE_BOOL_SETTINGS) if (b[field] !== undefined) out[field] = bool(b[field], field);
    if (b['requiredStatuses'] !== undefined) {
      const list = b['requiredStatuses'];
      if (!Array.isArray(list))
        throw new Invalid(`"requiredStatuses" must be an array of strings, got ${typeName(list)}`);
      out['requiredStatuses'] = list.map((s, i) => str(s, `requiredStatuses[${i}]`));
    }
    if (b['deleteRequiredStatuses'] !== undefined) {
      out['deleteRequiredStatuses'] = bool(b['deleteRequiredStatuses'], 'deleteRequiredStatuses');
      if (out['deleteRequiredStatuses'] === true && out['requiredStatuses'] !== undefined)
        throw new Invalid('send either "requiredStatuses" or "deleteRequiredStatuses": true, not both');
    }
    return out;
  });
}

export function checkGetSubmittedPr(
  body: unknown,
): Checked<QueueAddressBody & { prNumber?: number; prBranch?: string }> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch', 'pr']);
    const r = repo(b);
    const pr = need(b, 'pr');
    if (!isObj(pr)) throw new Invalid(`"pr" must be an object with a number, got ${typeName(pr)}`);
    noUnknown(pr, ['number', 'branch'], '"pr"');
    const hasNumber = pr['number'] !== undefined;
    const hasBranch = pr['branch'] !== undefined;
    if (hasNumber === hasBranch) throw new Invalid('"pr" must have exactly one of "number" or "branch"');
    const targetBranch = str(need(b, 'targetBranch'), 'targetBranch');
    return hasNumber
      ? { repo: r, targetBranch, prNumber: int(pr['number'], 'pr.number', 0, QUEUE_INT_MAX) }
      : { repo: r, targetBranch, prBranch: str(pr['branch'], 'pr.branch') };
  });
}

export function checkGetTestRun(body: unknown): Checked<QueueAddressBody & { testRunId: string }> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch', 'testRunId']);
    return {
      repo: repo(b),
      testRunId: str(need(b, 'testRunId'), 'testRunId'),
      targetBranch: str(need(b, 'targetBranch'), 'targetBranch'),
    };
  });
}

export interface ListBody {
  repo: Repo;
  orgSlug: string;
  pageSize: number;
  pageToken: string;
}

function listCommon(b: Obj): ListBody {
  const r = repo(b);
  const orgSlug = str(need(b, 'org_url_slug'), 'org_url_slug');
  const q = need(b, 'page_query');
  if (!isObj(q)) throw new Invalid(`"page_query" must be an object with page_size, got ${typeName(q)}`);
  noUnknown(q, ['page_size', 'page_token'], '"page_query"');
  const pageSize = int(need(q, 'page_size', 'page_query.page_size'), 'page_query.page_size', 1, 100);
  const pageToken = q['page_token'] === undefined ? '' : str(q['page_token'], 'page_query.page_token', false);
  return { repo: r, orgSlug, pageSize, pageToken };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function dateTime(v: unknown, path: string): number {
  const text = str(v, path);
  const ms = Date.parse(text);
  if (!RFC3339.test(text) || Number.isNaN(ms))
    throw new Invalid(
      `"${path}" must be an RFC 3339 date-time like 2026-01-15T09:00:00Z, got ${describe(v)}`,
    );
  return ms;
}

const SEVEN_DAYS_MS = 7 * 86_400_000;

export function checkListFailing(body: unknown): Checked<ListBody & { start: number; end: number }> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'org_url_slug', 'start_time', 'end_time', 'page_query']);
    const common = listCommon(b);
    const start = dateTime(need(b, 'start_time'), 'start_time');
    const end = dateTime(need(b, 'end_time'), 'end_time');
    if (!(start < end)) throw new Invalid('"start_time" must be before "end_time"');
    if (end - start > SEVEN_DAYS_MS) throw new Invalid('"start_time" must be within 7 days of "end_time"');
    return { ...common, start, end };
  });
}

export function checkListQuarantined(body: unknown): Checked<ListBody> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'org_url_slug', 'page_query']);
    return listCommon(b);
  });
}

export interface PrRefBody extends QueueAddressBody {
  prNumber: number;
}

function prRef(b: Obj): PrRefBody {
  const r = repo(b);
  const pr = need(b, 'pr');
  if (!isObj(pr)) throw new Invalid(`"pr" must be an object with a number, got ${typeName(pr)}`);
  noUnknown(pr, ['number'], '"pr"');
  const prNumber = int(need(pr, 'number', 'pr.number'), 'pr.number', 0, QUEUE_INT_MAX);
  return { repo: r, targetBranch: str(need(b, 'targetBranch'), 'targetBranch'), prNumber };
}

/** cancelPullRequest and restartTestsOnPullRequest. */
export function checkPrRef(body: unknown): Checked<PrRefBody> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch', 'pr']);
    return prRef(b);
  });
}

export interface SubmitBody extends PrRefBody {
  /** Absent or null: the queue's default. */
  priority?: { value: number; name: string };
  noBatch: boolean;
}

const PRIORITY_NAMES = Object.keys(PRIORITIES) as Array<keyof typeof PRIORITIES>;

export function checkSubmitPr(body: unknown): Checked<SubmitBody> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch', 'pr', 'priority', 'noBatch']);
    const out: SubmitBody = { ...prRef(b), noBatch: false };
    const p = b['priority'];
    if (typeof p === 'string') {
      const name = PRIORITY_NAMES.find((n) => n === p.toLowerCase());
      if (!name)
        throw new Invalid(
          `"priority" must be one of ${PRIORITY_NAMES.join(', ')} or an integer, got ${describe(p)}`,
        );
      out.priority = { value: PRIORITIES[name], name };
    } else if (p !== undefined && p !== null) {
      const value = int(p, 'priority', 0, QUEUE_INT_MAX);
      // A number that is one of the named levels reads as that name; any other keeps its number.
      out.priority = { value, name: PRIORITY_NAMES.find((n) => PRIORITIES[n] === value) ?? String(value) };
    }
    if (b['noBatch'] !== undefined) out.noBatch = bool(b['noBatch'], 'noBatch');
    return out;
  });
}

export interface ListPrsBody extends QueueAddressBody {
  state?: PullRequestState;
  /** ms since epoch */
  since?: number;
  cursor: string;
  take: number;
}

export function checkListPrs(body: unknown): Checked<ListPrsBody> {
  return run(body, (b) => {
    noUnknown(b, ['repo', 'targetBranch', 'state', 'since', 'cursor', 'take']);
    const out: ListPrsBody = {
      repo: repo(b),
      targetBranch: str(need(b, 'targetBranch'), 'targetBranch'),
      cursor: b['cursor'] === undefined ? '' : str(b['cursor'], 'cursor'),
      take: b['take'] === undefined ? 50 : int(b['take'], 'take', 1, 100),
    };
    if (b['state'] !== undefined) out.state = oneOf(b['state'], 'state', PULL_REQUEST_STATES);
    if (b['since'] !== undefined) out.since = dateTime(b['since'], 'since');
    return out;
  });
}
