/**
 * Flaky-test lists of the fake: failing and quarantined tests per repo, either held in memory or built
 * lazily per page from a seed, and pagination with opaque tokens (random ids mapped server-side, so a
 * client cannot compute offsets and must follow the tokens it is given).
 */
import { randomUUID } from 'node:crypto';
import type { Page, Repo } from '../../../src/trunk/types.ts';
import {
  context,
  type GenerateOptions,
  generatedTime,
  generateFailingTest,
  generateQuarantinedTest,
  makeFailingTest,
  makeQuarantinedTest,
  type WireFailingTest,
  type WireQuarantinedTest,
} from './generate.ts';

const DAY_MS = 86_400_000;

/** A list of rows addressable by index, without saying how they are stored. */
export interface RowSource<T> {
  readonly count: number;
  at(i: number): T;
}

export interface FailingSource extends RowSource<WireFailingTest> {
  /** `status.timestamp` of row i in ms (cheap; lazy sources do not build the row). */
  timeAt(i: number): number;
}

function arrayFailingSource(tests: WireFailingTest[]): FailingSource {
  const times = new Float64Array(tests.length);
  for (let i = 0; i < tests.length; i++)
    times[i] = Date.parse((tests[i] as WireFailingTest).status.timestamp);
  return { count: tests.length, at: (i) => tests[i] as WireFailingTest, timeAt: (i) => times[i] as number };
}

function arraySource<T>(rows: T[]): RowSource<T> {
  return { count: rows.length, at: (i) => rows[i] as T };
}

export function failingSourceFromPartials(repo: Repo, tests: Partial<WireFailingTest>[]): FailingSource {
  return arrayFailingSource(tests.map((t) => makeFailingTest(t, repo)));
}

export function quarantinedSourceFromPartials(
  repo: Repo,
  tests: Partial<WireQuarantinedTest>[],
): RowSource<WireQuarantinedTest> {
  return arraySource(tests.map((t) => makeQuarantinedTest(t, repo)));
}

export function generatedFailingSource(
  repo: Repo,
  count: number,
  opts: GenerateOptions,
  now: number,
): FailingSource {
  const ctx = context(repo, opts, now, DAY_MS);
  if (opts.lazy) {
    return { count, at: (i) => generateFailingTest(ctx, i), timeAt: (i) => generatedTime(ctx, i) };
  }
  const rows = new Array<WireFailingTest>(count);
  for (let i = 0; i < count; i++) rows[i] = generateFailingTest(ctx, i);
  return arrayFailingSource(rows);
}

export function generatedQuarantinedSource(
  repo: Repo,
  count: number,
  opts: GenerateOptions,
  now: number,
): RowSource<WireQuarantinedTest> {
  const ctx = context(repo, opts, now, 30 * DAY_MS);
  if (opts.lazy) return { count, at: (i) => generateQuarantinedTest(ctx, i) };
  const rows = new Array<WireQuarantinedTest>(count);
  for (let i = 0; i < count; i++) rows[i] = generateQuarantinedTest(ctx, i);
  return arraySource(rows);
}

/** Failing tests of one repo with a small cache of "rows in window" index lists. */
export class FailingList {
  private readonly windows = new Map<string, Int32Array>();
  readonly source: FailingSource;
  constructor(source: FailingSource) {
    this.source = source;
  }

  /** Indices of rows with start <= status.timestamp < end. */
  inWindow(start: number, end: number): Int32Array {
    const key = `${start}:${end}`;
    const hit = this.windows.get(key);
    if (hit) return hit;
    const out = new Int32Array(this.source.count);
    let n = 0;
    for (let i = 0; i < this.source.count; i++) {
      const t = this.source.timeAt(i);
      if (t >= start && t < end) out[n++] = i;
    }
    const rows = out.slice(0, n);
    if (this.windows.size >= 16) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(key, rows);
    return rows;
  }
}

export type TokenResult = { ok: true; offset: number } | { ok: false; error: string };

/**
 * Opaque page tokens: a random id per (query scope, offset), remembered server-side. The same page of
 * the same query always gets the same token, so a client looping on a token is detectable.
 */
export class PageTokens {
  private readonly byKey = new Map<string, string>();
  private readonly byToken = new Map<string, { scope: string; offset: number }>();

  token(scope: string, offset: number): string {
    const key = `${scope}#${offset}`;
    let token = this.byKey.get(key);
    if (!token) {
      if (this.byToken.size > 200_000) {
        this.byKey.clear();
        this.byToken.clear();
      }
      // A UUID, as listPullRequests' cursor must be (format uuid); as opaque as any other token.
      token = randomUUID();
      this.byKey.set(key, token);
      this.byToken.set(token, { scope, offset });
    }
    return token;
  }

  resolve(scope: string, token: string, name = 'page_token'): TokenResult {
    if (token === '') return { ok: true, offset: 0 };
    const entry = this.byToken.get(token);
    if (!entry) return { ok: false, error: `${name} "${truncate(token)}" is not valid` };
    if (entry.scope !== scope)
      return { ok: false, error: `${name} belongs to a different query (repo or filters changed)` };
    return { ok: true, offset: entry.offset };
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** One page of `total` rows starting at `offset`, with tokens for next/prev/last pages. */
export function pageOf(
  tokens: PageTokens,
  scope: string,
  total: number,
  offset: number,
  size: number,
): { start: number; end: number; page: Page } {
  const totalPages = Math.ceil(total / size);
  const start = Math.min(offset, total);
  const end = Math.min(start + size, total);
  const lastOffset = totalPages > 0 ? (totalPages - 1) * size : 0;
  return {
    start,
    end,
    page: {
      total_rows: total,
      total_pages: totalPages,
      next_page_token: end < total ? tokens.token(scope, end) : '',
      prev_page_token: start > 0 ? tokens.token(scope, Math.max(0, start - size)) : '',
      last_page_token: totalPages > 0 ? tokens.token(scope, lastOffset) : '',
      page_index: Math.floor(start / size),
    },
  };
}
