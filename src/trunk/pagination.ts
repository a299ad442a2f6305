/**
 * Page-by-token iteration shared by the flaky-test lists and listPullRequests. Tokens are opaque: we only
 * pass back what the service gave us. The first page has an empty token, "" as next token means the end. A token seen twice
 * (the service looping) or more pages than `maxPages` ends the iteration with an error instead of
 * running forever.
 */
import { settleBy } from '../core/deadline.ts';
import type { TrunkOperation } from './api.ts';
import { TrunkInvalidRequestError, TrunkInvalidResponseError } from './errors.ts';
import type { Page } from './types.ts';
import { PAGE_SIZE_MAX, PAGE_SIZE_MIN } from './validate.ts';

export const DEFAULT_PAGE_SIZE = 100;
export const DEFAULT_MAX_PAGES = 1000;

export interface PagingLimits {
  pageSize: number;
  maxPages: number;
}

/** Read pageSize/maxPages with defaults, refusing nonsense before the first request. */
export function pagingLimits(
  operation: TrunkOperation,
  opts: { pageSize?: number | undefined; maxPages?: number | undefined },
): PagingLimits {
  const pageSize = opts.pageSize ?? DEFAULT_PAGE_SIZE;
  const maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isInteger(pageSize) || pageSize < PAGE_SIZE_MIN || pageSize > PAGE_SIZE_MAX) {
    throw new TrunkInvalidRequestError(
      `Invalid ${operation} request: \`pageSize\` must be a whole number from ${PAGE_SIZE_MIN} to ${PAGE_SIZE_MAX}.`,
      {
        operation,
        field: 'pageSize',
        rule: `must be a whole number from ${PAGE_SIZE_MIN} to ${PAGE_SIZE_MAX}`,
        local: true,
      },
    );
  }
  if (!Number.isInteger(maxPages) || maxPages < 1) {
    throw new TrunkInvalidRequestError(
      `Invalid ${operation} request: \`maxPages\` must be a positive whole number.`,
      {
        operation,
        field: 'maxPages',
        rule: 'must be a positive whole number',
        local: true,
      },
    );
  }
  return { pageSize, maxPages };
}

/** Where a page keeps its next token: the flaky-test lists' `page.next_page_token` unless told. */
export interface NextToken<P> {
  next(page: P): string;
  /** The field's name, for errors. */
  field: string;
}

const flakyNextToken: NextToken<{ page: Page }> = {
  next: (p) => p.page.next_page_token,
  field: 'page.next_page_token',
};

export async function* paginate<P>(
  operation: TrunkOperation,
  maxPages: number,
  fetchPage: (pageToken: string) => Promise<P>,
  nextToken: NextToken<P> = flakyNextToken as unknown as NextToken<P>,
): AsyncGenerator<P, void, undefined> {
  const seen = new Set<string>();
  let token = '';
  for (let n = 1; ; n++) {
    const result = await fetchPage(token);
    yield result;
    const next = nextToken.next(result);
    if (next === '') return;
    seen.add(token);
    if (seen.has(next)) {
      throw new TrunkInvalidResponseError(
        `Trunk ${operation} returned page token ${JSON.stringify(next.slice(0, 80))} twice; stopped paging to avoid a loop.`,
        { operation, field: nextToken.field, detail: `repeated page token after ${n} pages` },
      );
    }
    if (n >= maxPages) {
      throw new TrunkInvalidResponseError(
        `Trunk ${operation} has more than ${maxPages} pages; stopped at the limit.`,
        { operation, field: nextToken.field, detail: `more than maxPages (${maxPages}) pages` },
      );
    }
    token = next;
  }
}

/** Whether `untilDeadline` stopped reading because the deadline came first. */
export interface Cutoff {
  reached: boolean;
}

/**
 * The pages of `pages` that arrive by `deadlineAt` (epoch ms). The page still awaited then is left
 * unread (`onCut` may abort its request), `cutoff.reached` is set, and the iteration ends: a listing
 * answers with what it read in time instead of after every retry of every page.
 */
export async function* untilDeadline<P>(
  pages: AsyncIterable<P>,
  deadlineAt: number,
  cutoff: Cutoff,
  onCut?: () => void,
): AsyncGenerator<P, void, undefined> {
  const it = pages[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const got = await settleBy(it.next(), deadlineAt);
      if (got.kind === 'timeout') {
        cutoff.reached = true;
        onCut?.();
        return;
      }
      if (got.kind === 'error') throw got.error;
      if (got.value.done) {
        finished = true;
        return;
      }
      yield got.value.value;
    }
  } finally {
    // Left early (the caller's own limit, or the deadline): the source stops after its page in flight.
    if (!finished) void it.return?.()?.catch(() => {});
  }
}
