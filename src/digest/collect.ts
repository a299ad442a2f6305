/**
 * Streams every page of a Trunk list and keeps only what a digest shows: counts, a top-N, a per-owner
 * tally and a fixed-size Bloom filter of the ids. Memory is bounded by N, never by the repository.
 */
import { ownedBy } from '../core/codeowners.ts';
import type { PaginateOptions } from '../trunk/api.ts';
import type { FailingTest, QuarantinedTest, Repo } from '../trunk/types.ts';
import { MAX_WINDOW_MS } from '../trunk/validate.ts';
import { Bloom } from './bloom.ts';
import type { Baseline, WorkspaceTrunk } from './types.ts';

export const WINDOW_MS = 24 * 3_600_000;
/** Owners tallied individually; the rest are counted together. */
const MAX_OWNERS = 100;

export interface FailingEntry {
  id: string;
  name: string;
  url: string;
  rate24h: number;
  rate7d: number;
  prsImpacted: number;
  owners: string[];
  ticketUrl?: string;
  quarantined: boolean;
  isNew: boolean;
}

export interface QuarantinedEntry {
  id: string;
  name: string;
  owners: string[];
  quarantinedAt: string;
  isNew: boolean;
}

interface Common {
  /** Distinct tests seen. */
  total: number;
  /** Not in the previous digest (0 when there is none). */
  newCount: number;
  /** In the previous digest but not in this one. */
  goneCount: number;
  /** Names from the previous digest's list that are gone now. */
  gone: Baseline['shown'];
  hasBaseline: boolean;
  bloom: Bloom;
}

export interface FailingCollection extends Common {
  kind: 'failing';
  windowStart: number;
  windowEnd: number;
  quarantinedAmongFailing: number;
  top: FailingEntry[];
  /** The most impactful of the tests that were not in the previous digest (up to 10). */
  newTop: FailingEntry[];
}

export interface QuarantinedCollection extends Common {
  kind: 'quarantined';
  byOwner: Array<{ owner: string; count: number; newCount: number }>;
  top: QuarantinedEntry[];
}

/** Keeps the best `n` items under `better`, in order; O(n) per insert, n is small. */
export class TopN<T> {
  readonly items: T[] = [];
  readonly #n: number;
  readonly #better: (a: T, b: T) => number;
  constructor(n: number, better: (a: T, b: T) => number) {
    this.#n = n;
    this.#better = better;
  }
  offer(item: T): void {
    const items = this.items;
    if (items.length >= this.#n && this.#better(item, items[items.length - 1]!) >= 0) return;
    let i = items.length;
    while (i > 0 && this.#better(item, items[i - 1]!) < 0) i--;
    items.splice(i, 0, item);
    if (items.length > this.#n) items.pop();
  }
}

/** Impact order: PRs impacted, then failure rate (24 h, then 7 d), then name for a stable order. */
export function byImpact(a: FailingEntry, b: FailingEntry): number {
  return (
    b.prsImpacted - a.prsImpacted ||
    b.rate24h - a.rate24h ||
    b.rate7d - a.rate7d ||
    a.name.localeCompare(b.name)
  );
}

/** Newly quarantined first, then the most recently quarantined. */
export function byNewest(a: QuarantinedEntry, b: QuarantinedEntry): number {
  return (
    Number(b.isNew) - Number(a.isNew) ||
    b.quarantinedAt.localeCompare(a.quarantinedAt) ||
    a.name.localeCompare(b.name)
  );
}

function testName(t: { name: string; parent?: string; classname?: string }): string {
  let scope = t.parent || t.classname || '';
  if (scope.length > 60) scope = `…${scope.slice(-59)}`;
  return scope && !t.name.startsWith(scope) ? `${scope} › ${t.name}` : t.name;
}

function rate(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

function previous(baseline: Baseline | undefined) {
  const bloom = baseline ? Bloom.fromBase64(baseline.bloom) : undefined;
  return { bloom, count: bloom ? (baseline?.count ?? 0) : 0, shown: bloom ? (baseline?.shown ?? []) : [] };
}

/**
 * Trunk lists distinct tests; a row can still show up twice when the list shifts between two page
 * requests, and then on neighbouring pages. Remembering this page's and the previous page's ids catches
 * that exactly, in memory bounded by the page size. (The Bloom filter is not used for this: its rare
 * false positives would drop real tests from the count.)
 */
class RecentIds {
  #previous = new Set<string>();
  #current = new Set<string>();
  nextPage() {
    this.#previous = this.#current;
    this.#current = new Set();
  }
  /** False when id was already on this page or the previous one. */
  add(id: string): boolean {
    if (this.#current.has(id) || this.#previous.has(id)) return false;
    this.#current.add(id);
    return true;
  }
}

/**
 * Asks for the next page as soon as one arrives, so the request's round trip overlaps with the work on
 * the page just received (pages follow tokens: at most one request is in flight).
 */
export async function* readAhead<T>(
  pages: AsyncGenerator<T, void, undefined>,
): AsyncGenerator<T, void, undefined> {
  let next = pages.next();
  try {
    for (;;) {
      const r = await next;
      if (r.done) return;
      next = pages.next();
      // If the consumer stops early, this request's outcome is dropped, not left unhandled.
      next.catch(() => undefined);
      // undici writes a request on a reused keep-alive socket from a setImmediate (it first reads any
      // FIN/RST already pending on the idle socket); let that write leave before this page is worked on.
      await new Promise<void>((resolve) => setImmediate(resolve));
      yield r.value;
    }
  } finally {
    await pages.return(undefined).catch(() => undefined);
  }
}

export interface CollectOptions {
  repo: Repo;
  topN: number;
  baseline?: Baseline;
  paginate?: PaginateOptions;
  /** Only tests whose code owners include this owner (see ownedBy). */
  owner?: string;
}

/** Pages of rows, as Trunk sends them or as a shared collection replays them (shared-collection.ts). */
export type PageSource<T> = AsyncIterable<T[]>;

/** The failing-tests window of a scheduled instant: [scheduledAt − 24 h, scheduledAt). */
export function failingWindow(scheduledAt: number): { start: number; end: number } {
  const start = scheduledAt - WINDOW_MS;
  const end = scheduledAt;
  if (end - start > MAX_WINDOW_MS || end <= start)
    throw new RangeError('the failing-tests window must be within 7 days');
  return { start, end };
}

/** Every page of the failing tests of the 24 h before `scheduledAt`, straight from Trunk. */
export async function* trunkFailingPages(
  trunk: WorkspaceTrunk,
  scheduledAt: number,
  repo: Repo,
  paginate?: PaginateOptions,
): AsyncGenerator<FailingTest[], void, undefined> {
  const w = failingWindow(scheduledAt);
  const req = {
    repo,
    org_url_slug: trunk.orgSlug,
    start_time: new Date(w.start).toISOString(),
    end_time: new Date(w.end).toISOString(),
  };
  for await (const page of readAhead(trunk.api.failingTestPages(req, paginate))) yield page.tests;
}

/** Every page of the quarantined tests now, straight from Trunk. */
export async function* trunkQuarantinedPages(
  trunk: WorkspaceTrunk,
  repo: Repo,
  paginate?: PaginateOptions,
): AsyncGenerator<QuarantinedTest[], void, undefined> {
  const pages = readAhead(trunk.api.quarantinedTestPages({ repo, org_url_slug: trunk.orgSlug }, paginate));
  for await (const page of pages) yield page.quarantined_tests;
}

/** Failing tests of the 24 h before the scheduled instant: [scheduledAt − 24 h, scheduledAt). */
export function collectFailing(
  trunk: WorkspaceTrunk,
  scheduledAt: number,
  opts: CollectOptions,
): Promise<FailingCollection> {
  return collectFailingFrom(
    trunkFailingPages(trunk, scheduledAt, opts.repo, opts.paginate),
    scheduledAt,
    opts,
  );
}

/** As collectFailing, over pages from any source. */
export async function collectFailingFrom(
  pages: PageSource<FailingTest>,
  scheduledAt: number,
  opts: CollectOptions,
): Promise<FailingCollection> {
  const { start: windowStart, end: windowEnd } = failingWindow(scheduledAt);
  const prev = previous(opts.baseline);
  const seen = new Bloom();
  const top = new TopN<FailingEntry>(opts.topN, byImpact);
  const newTop = new TopN<FailingEntry>(10, byImpact);
  let total = 0;
  let newCount = 0;
  let still = 0;
  let quarantinedAmongFailing = 0;
  const recent = new RecentIds();
  for await (const page of pages) {
    recent.nextPage();
    for (const t of page) {
      if (!recent.add(t.id) || !ownedBy(t.codeowners, opts.owner)) continue;
      seen.add(t.id);
      total++;
      const known = prev.bloom?.has(t.id) ?? false;
      if (known) still++;
      else if (prev.bloom) newCount++;
      if (t.quarantined) quarantinedAmongFailing++;
      const entry: FailingEntry = {
        id: t.id,
        name: testName(t),
        url: t.html_url,
        rate24h: rate(t.failure_rate_last_24h),
        rate7d: rate(t.failure_rate_last_7d),
        prsImpacted: Number.isFinite(t.pull_requests_impacted_last_7d) ? t.pull_requests_impacted_last_7d : 0,
        owners: Array.isArray(t.codeowners) ? t.codeowners : [],
        quarantined: t.quarantined === true,
        isNew: prev.bloom !== undefined && !known,
      };
      if (t.ticket?.html_url) entry.ticketUrl = t.ticket.html_url;
      top.offer(entry);
      if (entry.isNew) newTop.offer(entry);
    }
  }
  return {
    kind: 'failing',
    newTop: newTop.items,
    windowStart,
    windowEnd,
    total,
    newCount,
    goneCount: Math.max(0, prev.count - still),
    gone: prev.shown.filter((s) => !seen.has(s.id)),
    hasBaseline: prev.bloom !== undefined,
    bloom: seen,
    quarantinedAmongFailing,
    top: top.items,
  };
}

/** Every quarantined test now, tallied by owner, newest first. */
export function collectQuarantined(
  trunk: WorkspaceTrunk,
  opts: CollectOptions,
): Promise<QuarantinedCollection> {
  return collectQuarantinedFrom(trunkQuarantinedPages(trunk, opts.repo, opts.paginate), opts);
}

/** As collectQuarantined, over pages from any source. */
export async function collectQuarantinedFrom(
  pages: PageSource<QuarantinedTest>,
  opts: CollectOptions,
): Promise<QuarantinedCollection> {
  const prev = previous(opts.baseline);
  const seen = new Bloom();
  const top = new TopN<QuarantinedEntry>(opts.topN, byNewest);
  const owners = new Map<string, { count: number; newCount: number }>();
  let total = 0;
  let newCount = 0;
  let still = 0;
  const recent = new RecentIds();
  for await (const page of pages) {
    recent.nextPage();
    for (const t of page) {
      const id = t.test_case_id || `${t.file}#${t.classname}#${t.name}#${t.variant}`;
      if (!recent.add(id) || !ownedBy(t.codeowners, opts.owner)) continue;
      seen.add(id);
      total++;
      const known = prev.bloom?.has(id) ?? false;
      if (known) still++;
      else if (prev.bloom) newCount++;
      const isNew = prev.bloom !== undefined && !known;
      const codeowners = Array.isArray(t.codeowners) ? t.codeowners : [];
      let owner = codeowners[0] ?? '';
      if (!owners.has(owner) && owners.size >= MAX_OWNERS) owner = '*other*';
      const tally = owners.get(owner) ?? { count: 0, newCount: 0 };
      tally.count++;
      if (isNew) tally.newCount++;
      owners.set(owner, tally);
      top.offer({
        id,
        name: testName(t),
        owners: codeowners,
        quarantinedAt: t.quarantined_at ?? '',
        isNew,
      });
    }
  }
  return {
    kind: 'quarantined',
    total,
    newCount,
    goneCount: Math.max(0, prev.count - still),
    gone: prev.shown.filter((s) => !seen.has(s.id)),
    hasBaseline: prev.bloom !== undefined,
    bloom: seen,
    byOwner: [...owners.entries()]
      .map(([owner, t]) => ({ owner, ...t }))
      .sort((a, b) => b.newCount - a.newCount || b.count - a.count || a.owner.localeCompare(b.owner)),
    top: top.items,
  };
}

export type Collection = FailingCollection | QuarantinedCollection;

/** Nothing to report: with skip-empty on, such a digest is not posted. */
export function isEmpty(c: Collection): boolean {
  return c.total === 0;
}

/** What the next digest compares with. */
export function baselineOf(c: Collection): Baseline {
  return {
    bloom: c.bloom.toBase64(),
    count: c.total,
    shown: c.top.map((t) =>
      c.kind === 'failing'
        ? { id: t.id, name: t.name, url: (t as FailingEntry).url }
        : { id: t.id, name: t.name },
    ),
  };
}
