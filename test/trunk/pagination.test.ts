/**
 * Paging by token over real HTTP with a scripted server: order of tokens, the end marker, a service that
 * repeats a token, and the maxPages guard.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { TrunkInvalidResponseError, TrunkUnavailableError } from '../../src/trunk/errors.ts';
import type { FailingTestsPage } from '../../src/trunk/types.ts';
import { failingTest, page, quarantinedTest } from './fixtures.ts';
import { REPO, rejectionOf, type ScriptedServer, startScripted, testClient } from './helpers.ts';

let server: ScriptedServer;
let t: ReturnType<typeof testClient>;
let client: TrunkApi;
const flaky = { repo: REPO, org_url_slug: 'acme' };
const window = { start_time: '2026-11-20T00:00:00Z', end_time: '2026-11-21T00:00:00Z' };

beforeAll(async () => {
  server = await startScripted();
  t = testClient(server.url, { retry: { maxAttempts: 2 } });
  client = t.client;
});
afterAll(async () => {
  await t.close();
  await server.close();
});
afterEach(() => {
  expect(server.bodyViolations()).toEqual([]);
  server.reset();
});

function sentTokens(): string[] {
  return server.requests.map((r) => (r.body as { page_query: { page_token: string } }).page_query.page_token);
}

async function collect<T>(it: AsyncGenerator<T, void, undefined>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('failingTestPages', () => {
  it('follows next_page_token over 3 pages, first with "", until ""', async () => {
    server.script(
      { json: { tests: [failingTest(1), failingTest(2)], page: page('tok-A', 0, 5) } },
      { json: { tests: [failingTest(3), failingTest(4)], page: page('tok-B', 1, 5) } },
      { json: { tests: [failingTest(5)], page: page('', 2, 5) } },
    );
    const pages = await collect(client.failingTestPages({ ...flaky, ...window }));
    expect(pages.flatMap((p: FailingTestsPage) => p.tests.map((x) => x.name))).toEqual([
      'test 1',
      'test 2',
      'test 3',
      'test 4',
      'test 5',
    ]);
    expect(sentTokens()).toEqual(['', 'tok-A', 'tok-B']);
    for (const r of server.requests) {
      expect(r.path).toBe('/v1/flaky-tests/list-failing-tests');
      expect(r.body).toMatchObject({ ...flaky, ...window, page_query: { page_size: 100 } });
    }
  });

  it('an empty result is a single empty page', async () => {
    server.script({ json: { tests: [], page: page('') } });
    const pages = await collect(client.failingTestPages({ ...flaky, ...window }));
    expect(pages).toHaveLength(1);
    expect(pages[0]?.tests).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('a repeated token stops with TrunkInvalidResponseError (no endless loop)', async () => {
    server.script(
      { json: { tests: [failingTest(1)], page: page('tok-A') } },
      { json: { tests: [failingTest(2)], page: page('tok-B') } },
      { json: { tests: [failingTest(3)], page: page('tok-A') } },
    );
    const names: string[] = [];
    const err = await rejectionOf(
      (async () => {
        for await (const p of client.failingTestPages({ ...flaky, ...window }))
          names.push(...p.tests.map((x) => x.name));
      })(),
    );
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as TrunkInvalidResponseError).field).toBe('page.next_page_token');
    expect((err as Error).message).toContain('twice');
    expect(names).toEqual(['test 1', 'test 2', 'test 3']);
    expect(server.requests).toHaveLength(3);
  });

  it('a page answering with its own token is caught at once', async () => {
    server.script({ json: { tests: [], page: page('tok-A') } }, { json: { tests: [], page: page('tok-A') } });
    const err = await rejectionOf(collect(client.failingTestPages({ ...flaky, ...window })));
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect(server.requests).toHaveLength(2);
  });

  it('maxPages ends the walk with an error after that many pages', async () => {
    server.fallback = (req) => {
      const tok = (req.body as { page_query: { page_token: string } }).page_query.page_token;
      return { json: { tests: [failingTest(1)], page: page(`${tok}x`) } };
    };
    let count = 0;
    const err = await rejectionOf(
      (async () => {
        for await (const _ of client.failingTestPages({ ...flaky, ...window }, { maxPages: 4 })) count++;
      })(),
    );
    expect(err).toBeInstanceOf(TrunkInvalidResponseError);
    expect((err as Error).message).toContain('more than 4 pages');
    expect(count).toBe(4);
    expect(server.requests).toHaveLength(4);
  });

  it('a failing page ends the iteration with that error after its retries', async () => {
    server.script(
      { json: { tests: [failingTest(1)], page: page('tok-A') } },
      { status: 503, text: 'down' },
      { status: 503, text: 'still down' },
    );
    const err = await rejectionOf(collect(client.failingTestPages({ ...flaky, ...window })));
    expect(err).toBeInstanceOf(TrunkUnavailableError);
    expect(sentTokens()).toEqual(['', 'tok-A', 'tok-A']);
  });

  it('stopping early sends no further requests', async () => {
    server.script(
      { json: { tests: [failingTest(1)], page: page('tok-A') } },
      { json: { tests: [failingTest(2)], page: page('tok-B') } },
    );
    for await (const _ of client.failingTestPages({ ...flaky, ...window })) break;
    expect(server.requests).toHaveLength(1);
  });
});

describe('quarantinedTestPages', () => {
  it('pages with the requested page size', async () => {
    server.script(
      { json: { quarantined_tests: [quarantinedTest(1), quarantinedTest(2)], page: page('n1') } },
      { json: { quarantined_tests: [quarantinedTest(3), quarantinedTest(4)], page: page('n2') } },
      { json: { quarantined_tests: [quarantinedTest(5)], page: page('') } },
    );
    const pages = await collect(client.quarantinedTestPages(flaky, { pageSize: 2 }));
    expect(pages.map((p) => p.quarantined_tests.length)).toEqual([2, 2, 1]);
    expect(server.requests.map((r) => r.body)).toEqual([
      { ...flaky, page_query: { page_size: 2, page_token: '' } },
      { ...flaky, page_query: { page_size: 2, page_token: 'n1' } },
      { ...flaky, page_query: { page_size: 2, page_token: 'n2' } },
    ]);
  });
});
