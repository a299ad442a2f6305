/**
 * The Trunk fake's queues that move on their own (dev/fakes/trunk/activity.ts), read the way the app reads
 * them: over HTTP, through the real Trunk client, and against the OpenAPI document's response schemas.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ActivityEvent,
  type ActivityOptions,
  startTrunkFake,
  type TrunkFake,
} from '../../../dev/fakes/trunk/index.ts';
import { apiTokenAuth } from '../../../src/trunk/auth.ts';
import { createTrunkClient } from '../../../src/trunk/client.ts';

const NOW = Date.UTC(2026, 2, 3, 10, 0, 0);
const WEB = { host: 'github.com', owner: 'acme', name: 'web' };
const API = { host: 'github.com', owner: 'acme', name: 'api' };
const DEPARTED = ['merged', 'failed', 'cancelled'];

const fakes: TrunkFake[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

/** A fake with the activity option, one clock tick a step, and the queues the tests share. */
async function movingFake(activity: ActivityOptions, queues = [WEB]): Promise<TrunkFake> {
  let t = NOW;
  const fake = await startTrunkFake({ now: () => (t += 1_000), activity });
  fakes.push(fake);
  // Explicit ids: everything a body holds then comes from the seed and these lines alone.
  for (const repo of queues)
    fake.addQueue(repo, 'main', { concurrency: 2 }, [
      { prNumber: 11, id: `${repo.name}-11` },
      { prNumber: 12, id: `${repo.name}-12` },
      { prNumber: 13, id: `${repo.name}-13` },
    ]);
  return fake;
}

async function post(fake: TrunkFake, path: string, body: unknown) {
  const res = await fetch(`${fake.url}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': 'test-token' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const getQueue = (fake: TrunkFake, repo = WEB) => post(fake, '/getQueue', { repo, targetBranch: 'main' });

describe('Trunk fake: queues that move on their own', () => {
  it('the same seed tells the same story, step for step, over the wire', async () => {
    const a = await movingFake({ seed: 7 });
    const b = await movingFake({ seed: 7 });
    for (let i = 0; i < 40; i++) {
      expect(a.activity!.advance(3)).toEqual(b.activity!.advance(3));
      expect((await getQueue(a)).json).toEqual((await getQueue(b)).json);
    }
    expect(a.activity!.events.length).toBeGreaterThan(40);
    // Another seed, another story.
    const c = await movingFake({ seed: 8 });
    c.activity!.advance(120);
    expect(c.activity!.events).not.toEqual(a.activity!.events);
  });

  it('over a long run, PRs enter, test, merge, fail and are cancelled, and the web app pauses and resumes', async () => {
    const fake = await movingFake({ seed: 21 });
    const events = fake.activity!.advance(600);
    const kinds = new Set(events.map((e) => e.kind));
    expect([...kinds].sort()).toEqual(
      ['cancelled', 'failed', 'merged', 'paused', 'resumed', 'submitted', 'testing'].sort(),
    );
    for (const e of events.filter((x) => x.kind === 'paused' || x.kind === 'resumed'))
      expect(e.by).toBe('web app');
    // None of it came through the API.
    expect(fake.requests).toHaveLength(0);
    expect(events.every((e) => e.queue === 'acme/web:main')).toBe(true);
    // Steps are numbered and times come from the fake's clock.
    expect(events.at(-1)!.step).toBeLessThanOrEqual(600);
    expect(Date.parse(events[0]!.at)).toBeGreaterThan(NOW);
  });

  it("one queue's story does not change when another queue is added", async () => {
    const alone = await movingFake({ seed: 3 }, [WEB]);
    const both = await movingFake({ seed: 3 }, [API, WEB]);
    const of = (events: readonly ActivityEvent[]) =>
      events.filter((e) => e.queue === 'acme/web:main').map(({ at: _at, ...rest }) => rest);
    alone.activity!.advance(200);
    both.activity!.advance(200);
    expect(of(both.activity!.events)).toEqual(of(alone.activity!.events));
    expect(both.activity!.events.some((e) => e.queue === 'acme/api:main')).toBe(true);
  });

  it('getQueue shows the movement: testing PRs within concurrency, departed PRs gone', async () => {
    const fake = await movingFake({ seed: 5 });
    for (let i = 0; i < 150; i++) {
      const events = fake.activity!.advance(1);
      const { json } = await getQueue(fake);
      const prs = json['enqueuedPullRequests'] as Array<{ prNumber: number; state: string }>;
      if (json['state'] === 'running' || json['state'] === 'draining')
        expect(prs.filter((p) => p.state === 'testing').length).toBeLessThanOrEqual(2);
      for (const e of events) {
        const present = prs.some((p) => p.prNumber === e.prNumber);
        if (DEPARTED.includes(e.kind)) expect(present, `#${e.prNumber} ${e.kind}`).toBe(false);
        if (e.kind === 'submitted' || e.kind === 'testing') expect(present).toBe(true);
        if (e.kind === 'testing') expect(prs.find((p) => p.prNumber === e.prNumber)?.state).toBe('testing');
        if (e.kind === 'paused') expect(json['state']).toBe('paused');
        if (e.kind === 'resumed') expect(json['state']).toBe('running');
      }
    }
  });

  it("a departed PR reads back with its final state and the contract's readiness fields", async () => {
    const fake = await movingFake({ seed: 11 });
    const events = fake.activity!.advance(400);
    const departed = events.filter((e) => DEPARTED.includes(e.kind));
    expect(departed.length).toBeGreaterThan(20);

    const spec = JSON.parse(
      readFileSync(new URL('../../fixtures/trunk-openapi-v1.json', import.meta.url), 'utf8'),
    ) as {
      paths: Record<
        string,
        { post: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
      >;
    };
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const schema = (path: string) =>
      ajv.compile(spec.paths[path]!.post.responses['200']!.content['application/json']!.schema);
    const validPr = schema('/getSubmittedPullRequest');
    const validQueue = schema('/getQueue');
    // And the app's own client reads them (its zod schemas are the contract as the app relies on it).
    const client = createTrunkClient({ baseUrl: fake.url, auth: apiTokenAuth('test-token') });

    let notReady = 0;
    for (const e of departed) {
      const body = { repo: WEB, targetBranch: 'main', pr: { number: e.prNumber } };
      const { status, json } = await post(fake, '/getSubmittedPullRequest', body);
      expect(status).toBe(200);
      expect(validPr(json) ? [] : validPr.errors).toEqual([]);
      const pr = await client.getSubmittedPullRequest({ ...body, pr: { number: e.prNumber! } });
      expect(pr).toMatchObject({ prNumber: e.prNumber, state: e.kind, isCurrentlySubmittedToQueue: false });
      expect(pr.stateChangedAt).toBe(e.at);
      const r = pr.readiness!;
      expect(Object.keys(r).sort()).toEqual(
        ['doesBaseBranchMatch', 'gitHubMergeability', 'hasImpactedTargets', 'requiresImpactedTargets'].sort(),
      );
      // The contract's rule: ready when the base matches, it is mergeable, and impacted targets are there if required.
      const ready =
        r.doesBaseBranchMatch === true &&
        r.gitHubMergeability === 'mergeable' &&
        (r.requiresImpactedTargets !== true || r.hasImpactedTargets === true);
      if (e.kind === 'merged') expect(ready).toBe(true);
      if (!ready) {
        notReady++;
        expect(e.kind).toBe('failed');
      }
    }
    // Some failed before testing, and their readiness says why.
    expect(notReady).toBeGreaterThan(0);
    const { json } = await getQueue(fake);
    expect(validQueue(json) ? [] : validQueue.errors).toEqual([]);
    await expect(client.getQueue({ repo: WEB, targetBranch: 'main' })).resolves.toMatchObject({
      branch: 'main',
    });
  });

  it('a queue our app paused stays paused and still, until our app resumes it', async () => {
    const fake = await movingFake({ seed: 9, rates: { pause: 0 } });
    fake.activity!.advance(5);
    const paused = await post(fake, '/updateQueue', { repo: WEB, targetBranch: 'main', state: 'paused' });
    expect(paused.status).toBe(200);
    const before = (await getQueue(fake)).json;
    expect(fake.activity!.advance(100)).toEqual([]);
    expect((await getQueue(fake)).json).toEqual(before);
    await post(fake, '/updateQueue', { repo: WEB, targetBranch: 'main', state: 'running' });
    expect(fake.activity!.advance(20).length).toBeGreaterThan(0);
  });

  it('a draining queue finishes what it tests and starts or takes nothing new', async () => {
    const fake = await movingFake({ seed: 13, rates: { pause: 0 } });
    fake.activity!.advance(10);
    await post(fake, '/updateQueue', { repo: WEB, targetBranch: 'main', state: 'draining' });
    const events = fake.activity!.advance(200);
    expect(events.filter((e) => e.kind === 'submitted' || e.kind === 'testing')).toEqual([]);
    const prs = (await getQueue(fake)).json['enqueuedPullRequests'] as Array<{ state: string }>;
    expect(prs.filter((p) => p.state === 'testing')).toEqual([]);
  });

  it('steps on its own with intervalMs, stops on close, and reset() starts the story again', async () => {
    const timed = await movingFake({ seed: 17, intervalMs: 10 });
    await new Promise((r) => setTimeout(r, 300));
    expect(timed.activity!.steps).toBeGreaterThan(3);
    await timed.close();
    const steps = timed.activity!.steps;
    await new Promise((r) => setTimeout(r, 100));
    expect(timed.activity!.steps).toBe(steps);

    const fake = await movingFake({ seed: 17 });
    const first = fake.activity!.advance(50).map(({ at: _at, ...rest }) => rest);
    fake.reset();
    fake.addQueue(WEB, 'main', { concurrency: 2 }, [
      { prNumber: 11, id: 'web-11' },
      { prNumber: 12, id: 'web-12' },
      { prNumber: 13, id: 'web-13' },
    ]);
    expect(fake.activity!.steps).toBe(0);
    expect(fake.activity!.advance(50).map(({ at: _at, ...rest }) => rest)).toEqual(first);
  });
});
