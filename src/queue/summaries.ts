/**
 * Compact flaky/quarantined summaries: counts plus the top few entries. Pages are streamed through the
 * client's iterators and only the top N are kept, so a repository with 100 000 failing tests costs a few
 * pages of memory, not all of them.
 */

import type { RepoRef } from '../core/target.ts';
import type { PaginateOptions, TrunkApi } from '../trunk/api.ts';
import { TrunkUnavailableError } from '../trunk/errors.ts';
import { type Cutoff, untilDeadline } from '../trunk/pagination.ts';
import type { FailingTest, QuarantinedTest } from '../trunk/types.ts';

export interface FlakyEntry {
  name: string;
  url: string;
  failureRate24h: number;
  failureRate7d: number;
  prsImpacted7d: number;
  codeowners: string[];
  quarantined: boolean;
  ticketUrl?: string;
  /** Most common failure summary, if any. */
  failure?: string;
}

export interface FlakySummary {
  repo: RepoRef;
  /** Epoch ms; the window is [start, end). */
  windowStart: number;
  windowEnd: number;
  /** Trunk's total_rows when given, else the number scanned. */
  total: number;
  scanned: number;
  /** False when pages were left unread (maxPages); counts below are then over the scanned rows only. */
  complete: boolean;
  /** Trunk was too slow for the deadline: what was read in time is listed, the rest was not read. */
  cutShort?: boolean;
  quarantinedAmongScanned: number;
  top: FlakyEntry[];
}

export interface QuarantinedSummaryEntry {
  name: string;
  file: string;
  codeowners: string[];
  quarantinedAt: string;
}

export interface QuarantinedSummary {
  repo: RepoRef;
  total: number;
  scanned: number;
  complete: boolean;
  /** Trunk was too slow for the deadline: what was read in time is listed, the rest was not read. */
  cutShort?: boolean;
  /** Most recently quarantined first. */
  top: QuarantinedSummaryEntry[];
  /** Codeowners with the most quarantined tests among those scanned. */
  owners: Array<{ owner: string; count: number }>;
}

export interface SummaryOptions {
  repo: RepoRef;
  orgSlug: string;
  now: () => number;
  /** Entries kept; default 5. */
  top?: number;
  /** Pages read at most; default 5 (500 rows). */
  maxPages?: number;
  pageSize?: number;
  /** Failing window length in ms; default 24 h. */
  windowMs?: number;
  signal?: AbortSignal;
  /**
   * Epoch ms by which the summary answers with the pages read so far (`cutShort`); the page still in
   * flight then is aborted. None read by then: TrunkUnavailableError (timed out).
   */
  deadlineAt?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Ranks by PRs impacted in 7 days, then 24 h failure rate (both descending), then name for stability. */
export function compareFlaky(a: FlakyEntry, b: FlakyEntry): number {
  return (
    b.prsImpacted7d - a.prsImpacted7d || b.failureRate24h - a.failureRate24h || a.name.localeCompare(b.name)
  );
}

export function toFlakyEntry(t: FailingTest): FlakyEntry {
  const e: FlakyEntry = {
    name: t.name || t.classname || t.id,
    url: t.html_url,
    failureRate24h: finite(t.failure_rate_last_24h),
    failureRate7d: finite(t.failure_rate_last_7d),
    prsImpacted7d: finite(t.pull_requests_impacted_last_7d),
    codeowners: t.codeowners ?? [],
    quarantined: t.quarantined === true,
  };
  if (t.ticket?.html_url) e.ticketUrl = t.ticket.html_url;
  const failure = t.most_common_failures?.[0]?.summary;
  if (failure) e.failure = failure;
  return e;
}

function finite(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/** Keeps the best `limit` items of a stream in order, without holding the stream. */
export function insertTop<T>(top: T[], item: T, limit: number, compare: (a: T, b: T) => number): void {
  if (limit <= 0) return;
  if (top.length >= limit && compare(item, top[top.length - 1]!) >= 0) return;
  let i = top.length;
  while (i > 0 && compare(item, top[i - 1]!) < 0) i--;
  top.splice(i, 0, item);
  if (top.length > limit) top.pop();
}

function pageOpts(o: SummaryOptions, stop: AbortController): PaginateOptions {
  return {
    pageSize: o.pageSize ?? 100,
    signal: o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal,
  };
}

/** `pages`, or only those that arrive by `o.deadlineAt` (the page in flight then is aborted). */
function inTime<P>(pages: AsyncIterable<P>, o: SummaryOptions, stop: AbortController, cut: Cutoff) {
  if (o.deadlineAt === undefined) return pages;
  return untilDeadline(pages, o.deadlineAt, cut, () => stop.abort(new Error('listing deadline reached')));
}

/** After the pages: a deadline that came first marks the summary, or fails it when nothing was read. */
function noteCutoff(
  summary: { complete: boolean; cutShort?: boolean },
  cut: Cutoff,
  pages: number,
  operation: 'listFailingTests' | 'listQuarantinedTests',
): void {
  if (!cut.reached) return;
  if (pages === 0)
    throw new TrunkUnavailableError(`Trunk ${operation} did not answer by the listing's deadline.`, {
      operation,
      timedOut: true,
    });
  summary.complete = false;
  summary.cutShort = true;
}

export async function summarizeFailingTests(trunk: TrunkApi, o: SummaryOptions): Promise<FlakySummary> {
  const end = o.now();
  const start = end - (o.windowMs ?? DAY_MS);
  const limit = o.top ?? 5;
  const maxPages = o.maxPages ?? 5;
  const summary: FlakySummary = {
    repo: o.repo,
    windowStart: start,
    windowEnd: end,
    total: 0,
    scanned: 0,
    complete: true,
    quarantinedAmongScanned: 0,
    top: [],
  };
  let pages = 0;
  let total: number | undefined;
  const stop = new AbortController();
  const cut: Cutoff = { reached: false };
  const iter = trunk.failingTestPages(
    {
      repo: o.repo,
      org_url_slug: o.orgSlug,
      start_time: new Date(start).toISOString(),
      end_time: new Date(end).toISOString(),
    },
    pageOpts(o, stop),
  );
  for await (const page of inTime(iter, o, stop, cut)) {
    pages++;
    if (total === undefined && Number.isFinite(page.page?.total_rows)) total = page.page.total_rows;
    for (const t of page.tests) {
      summary.scanned++;
      if (t.quarantined) summary.quarantinedAmongScanned++;
      insertTop(summary.top, toFlakyEntry(t), limit, compareFlaky);
    }
    if (pages >= maxPages) {
      if (page.page?.next_page_token) summary.complete = false;
      break; // leaving the loop closes the iterator: no further page is requested
    }
  }
  noteCutoff(summary, cut, pages, 'listFailingTests');
  summary.total = Math.max(total ?? 0, summary.scanned);
  return summary;
}

export async function summarizeQuarantinedTests(
  trunk: TrunkApi,
  o: Omit<SummaryOptions, 'windowMs'>,
): Promise<QuarantinedSummary> {
  const limit = o.top ?? 5;
  const maxPages = o.maxPages ?? 5;
  const summary: QuarantinedSummary = {
    repo: o.repo,
    total: 0,
    scanned: 0,
    complete: true,
    top: [],
    owners: [],
  };
  const owners = new Map<string, number>();
  const byRecent = (a: QuarantinedSummaryEntry, b: QuarantinedSummaryEntry) =>
    time(b.quarantinedAt) - time(a.quarantinedAt) || a.name.localeCompare(b.name);
  let pages = 0;
  let total: number | undefined;
  const stop = new AbortController();
  const cut: Cutoff = { reached: false };
  const iter = trunk.quarantinedTestPages({ repo: o.repo, org_url_slug: o.orgSlug }, pageOpts(o, stop));
  for await (const page of inTime(iter, o, stop, cut)) {
    pages++;
    if (total === undefined && Number.isFinite(page.page?.total_rows)) total = page.page.total_rows;
    for (const t of page.quarantined_tests) {
      summary.scanned++;
      for (const owner of t.codeowners ?? []) owners.set(owner, (owners.get(owner) ?? 0) + 1);
      insertTop(summary.top, toQuarantinedSummaryEntry(t), limit, byRecent);
    }
    if (pages >= maxPages) {
      if (page.page?.next_page_token) summary.complete = false;
      break;
    }
  }
  noteCutoff(summary, cut, pages, 'listQuarantinedTests');
  summary.total = Math.max(total ?? 0, summary.scanned);
  summary.owners = [...owners]
    .map(([owner, count]) => ({ owner, count }))
    .sort((a, b) => b.count - a.count || a.owner.localeCompare(b.owner))
    .slice(0, 5);
  return summary;
}

function toQuarantinedSummaryEntry(t: QuarantinedTest): QuarantinedSummaryEntry {
  return {
    name: t.name || t.classname || t.test_case_id,
    file: t.file,
    codeowners: t.codeowners ?? [],
    quarantinedAt: t.quarantined_at,
  };
}

function time(iso: string): number {
  const n = Date.parse(iso);
  return Number.isFinite(n) ? n : 0;
}
